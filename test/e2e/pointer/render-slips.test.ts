// `hotfix pointer render` refuses the slips that would pass every later tool (issue 37 §4): a recall of
// the baked .0 version or of the version it ships (a package revision is the same version); with the
// live pointer (--kubeconfig), a recall of a version it never offered and a serial far above it, unless
// --force; a schedule whose steps are all past, unless --backdate. `-o text` shows the steps and the recall.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-slips-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const render = (args: string[]) =>
  runAnc(['hotfix', 'pointer', 'render', '--expires', '2099-01-01T00:00:00Z', ...args], { env: { HOME: work }, cwd: work });
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';

test('a recall of the baked .0 version, or of the version the pointer ships (with or without its revision), is refused', async () => {
  const ship = ['--hotfix', '202604.01=202604.01.2', '--serial', '3'];
  for (const version of ['202604.01.0', '202604.01.0-1', '202610.15.0']) {
    const out = await render([...ship, '--recall', version]);
    assert.is(out.exitCode, 1, version);
    assert.is(out.stdout, '');
    assert.match(
      out.stderr,
      `--recall ${version}: ${version.replace(/-\d+$/, '')} is the agent baked into image ${version.slice(0, 9)} (patch 0)`,
    );
  }
  for (const version of ['202604.01.2', '202604.01.2-1']) {
    const out = await render([...ship, '--recall', version]);
    assert.is(out.exitCode, 1, version);
    assert.match(out.stderr, `--recall ${version}: this pointer ships 202604.01.2 for image 202604.01, the same version`);
  }
  const fine = await render([...ship, '--recall', '202604.01.1-1']);
  assert.is(fine.exitCode, 0, fine.stderr);
});

test('a schedule whose steps are all past is refused unless --backdate; -o text shows the steps and the recall', async () => {
  const now = Date.now();
  const past = `202604.01=1@${iso(now - 7200_000)},100@${iso(now - 3600_000)}`;
  const base = ['--hotfix', '202604.01=202604.01.2', '--serial', '4', '--recall', '202604.01.1'];
  const refused = await render([...base, '--schedule', past]);
  assert.is(refused.exitCode, 1);
  assert.match(
    refused.stderr,
    /--schedule 202604\.01: every step is already past \(the last, 100% at .*\): the wave would open at 100% at once/,
  );
  assert.match(refused.stderr, 'pass --backdate');
  const backdated = await render([...base, '--schedule', past, '--backdate']);
  assert.is(backdated.exitCode, 0, backdated.stderr);
  const future = `202604.01=1@${iso(now - 60_000)},10@${iso(now + 86_400_000)},100@${iso(now + 3 * 86_400_000)}`;
  const text = await render([...base, '--schedule', future, '-o', 'text']);
  assert.is(text.exitCode, 0, text.stderr);
  assert.match(text.stdout, 'image 202604.01: take 202604.01.2 on a schedule (wave 202604.01.2):\n');
  assert.match(text.stdout, `    1% of nodes from ${iso(now - 60_000).replace('Z', ':00Z')} (past)\n`);
  assert.match(text.stdout, `   10% of nodes from ${iso(now + 86_400_000).replace('Z', ':00Z')}\n`);
  assert.match(text.stdout, `  100% of nodes from ${iso(now + 3 * 86_400_000).replace('Z', ':00Z')}\n`);
  assert.match(text.stdout, '  recall   202604.01.1: every node gives it up');
  assert.not.match(text.stdout, /0% of nodes \(wave/);
});

test('with --kubeconfig: a recall the live pointer never offered and a serial 1000 above it need --force', async () => {
  const TOKEN = 'operator.0123456789abcdef';
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'operator', canRead: true } } });
  try {
    const kubeconfig = join(work, 'op.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(api, { token: TOKEN }));
    const live = await render(['--hotfix', '202604.01=202604.01.1', '--serial', '5', '--recall', '202604.01.3', '-o', 'json']);
    api.configMaps.set('kube-system/anc-hotfix-version', JSON.parse(live.stdout).data);
    const next = ['--kubeconfig', kubeconfig, '--hotfix', '202604.01=202604.01.2'];
    // Offered (the shipped 202604.01.1, also as its package revision) and already recalled (202604.01.3): fine.
    const ok = await render([...next, '--recall', '202604.01.1-1', '--recall', '202604.01.3']);
    assert.is(ok.exitCode, 0, ok.stderr);
    assert.match(ok.stderr, "serial 6: the cluster's pointer has serial 5");
    const typo = await render([...next, '--recall', '202604.01.11']);
    assert.is(typo.exitCode, 1);
    assert.match(
      typo.stderr,
      '--recall 202604.01.11: the live pointer (serial 5) never offered it (it offers 202604.01.1, recalls 202604.01.3): a mistyped recall recalls nothing',
    );
    assert.match(typo.stderr, 'pass --force');
    const forced = await render([...next, '--recall', '202604.01.11', '--force']);
    assert.is(forced.exitCode, 0, forced.stderr);
    const jump = await render([...next, '--serial', '1006']);
    assert.is(jump.exitCode, 1);
    assert.match(jump.stderr, "--serial 1006 is 1001 above the live pointer's serial 5");
    assert.match(jump.stderr, 'Use --serial 6');
    const within = await render([...next, '--serial', '1005']);
    assert.is(within.exitCode, 0, within.stderr);
    const huge = await render([...next, '--serial', String(2 ** 53 - 1), '--force']);
    assert.is(huge.exitCode, 0, huge.stderr);
    // A halt's --serial too.
    const halt = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--withdraw', '--kubeconfig', kubeconfig, '--serial', '5000'], {
      env: { HOME: work },
    });
    assert.is(halt.exitCode, 1);
    assert.match(halt.stderr, "--serial 5000 is 4995 above the live pointer's serial 5");
  } finally {
    await api.close();
  }
});

test.run();

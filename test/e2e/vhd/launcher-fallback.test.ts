// The launcher's fallback table (docs/hotfix.md), one test per row, with fake agents (shell scripts that
// record argv and env): only a HOTFIX binary that failed WITHOUT the scripts-started marker is replaced by
// the baked binary, once, after `hotfix fallback` recorded it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, recordedCalls, runLauncher, writeFakeAgent, writeHostname, type FakeAgentOptions } from '../../fakes/node-image.ts';

const roots: string[] = [];
test.after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A node with a config, a baked fake agent and (unless `hotfix` is null) a staged hotfix fake agent. */
function node(baked: FakeAgentOptions, hotfix: FakeAgentOptions | null) {
  const root = mkdtempSync(join(tmpdir(), 'anc-fallback-'));
  roots.push(root);
  const p = imagePaths(root);
  const rec = join(root, 'calls');
  const marker = join(root, 'opt/azure/containers/aks-node-controller-scripts-started');
  writeFakeAgent(p.binary, rec, { label: 'baked', ...baked });
  if (hotfix) writeFakeAgent(p.hotfixBinary, rec, { label: 'hotfix', ...hotfix });
  writeHostname(root);
  mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
  writeFileSync(p.config, '{}');
  // Provisioning calls only: after a failure the launcher also runs `status` (checked in row 1).
  const calls = () =>
    recordedCalls(rec)
      .filter((c) => c.args[0] !== 'status')
      .map((c) => `${c.label} ${c.args.join(' ')}`);
  return { root, p, rec, marker, calls, run: () => runLauncher(root) };
}
const markThen = (marker: string, rest: string) => `printf 'v t\\n' > ${JSON.stringify(marker)}; ${rest}`;
const provision = (n: { p: { config: string } }) => `provision --provision-config=${n.p.config}`;

test('row 1: the baked binary fails -> its exit code, nothing else runs (nothing to fall back to)', async () => {
  const n = node({ exitCodes: { provision: 3 } }, null);
  const out = await n.run();
  assert.is(out.exitCode, 3);
  assert.equal(n.calls(), [`baked ${provision(n)}`]);
  assert.is(recordedCalls(n.rec)[0]!.env.ANC_LAUNCHER_FALLBACK, undefined, 'the baked run has no fallback');
  assert.equal(recordedCalls(n.rec).at(-1)!.args, ['status'], 'after a failure the launcher prints status (serial console)');
});

test('row 2: the hotfix succeeds -> exit 0, one run, told that the launcher would fall back', async () => {
  const n = node({}, {});
  const out = await n.run();
  assert.is(out.exitCode, 0);
  assert.equal(n.calls(), [`hotfix ${provision(n)}`]);
  assert.is(recordedCalls(n.rec)[0]!.env.ANC_LAUNCHER_FALLBACK, 'baked');
});

const afterScripts = (code: number) =>
  `baked hotfix fallback --after-scripts ${code} --reason failed provisioning with exit code ${code} after the provisioning scripts started`;

test('row 3: the hotfix fails after the scripts started (marker present) -> never retried in this boot, quarantined for the next', async () => {
  for (const code of [1, 7, 240, 255]) {
    const n = node({}, {});
    writeFakeAgent(n.p.hotfixBinary, n.rec, { label: 'hotfix', provisionScript: markThen(n.marker, `exit ${code}`) });
    const out = await n.run();
    assert.is(out.exitCode, code);
    // The baked binary records the quarantine (issue 34); no second provision in this boot.
    assert.equal(n.calls(), [`hotfix ${provision(n)}`, afterScripts(code)], `exit ${code}`);
    assert.ok(out.stdout.includes(`Hotfix binary failed after the provisioning scripts started (exit ${code}); not retrying in this boot`));
  }
});

test('row 3b: killed by a signal after the scripts started -> still not retried, quarantined for the next boot', async () => {
  const n = node({}, { provisionScript: '' });
  writeFakeAgent(n.p.hotfixBinary, n.rec, { label: 'hotfix', provisionScript: markThen(n.marker, 'kill -9 $$') });
  const out = await n.run();
  assert.is(out.exitCode, 137);
  assert.equal(n.calls(), [`hotfix ${provision(n)}`, afterScripts(137)]);
});

const reason = (text: string) => `hotfix fallback --reason ${text} before the provisioning scripts started`;

test('row 4: the hotfix is killed by a signal before the scripts -> fallback record, baked provision once', async () => {
  for (const [signal, number] of [
    ['KILL', 9],
    ['SEGV', 11],
    ['ABRT', 6],
  ] as const) {
    const n = node({}, { provisionScript: `kill -${signal} $$` });
    const out = await n.run();
    assert.is(out.exitCode, 0, `${signal}: ${out.stdout}`);
    assert.equal(n.calls(), [`hotfix ${provision(n)}`, `baked ${reason(`was killed by signal ${number}`)}`, `baked ${provision(n)}`]);
    const calls = recordedCalls(n.rec);
    assert.is(calls[1]!.program, n.p.binary);
    assert.is(calls[2]!.env.ANC_LAUNCHER_FALLBACK, undefined);
    assert.ok(
      out.stdout.includes(
        `Hotfix binary was killed by signal ${number} before the provisioning scripts started; falling back to the VHD-baked binary: ${n.p.binary}`,
      ),
    );
  }
});

test('row 5: the hotfix exits with its own error before the scripts -> fallback; the launcher exits with the baked code', async () => {
  for (const [code, bakedCode] of [
    [1, 0],
    [240, 0],
    [2, 4],
  ] as const) {
    const n = node({ exitCodes: { provision: bakedCode } }, { exitCodes: { provision: code } });
    const out = await n.run();
    assert.is(out.exitCode, bakedCode);
    assert.equal(
      n.calls(),
      [`hotfix ${provision(n)}`, `baked ${reason(`exited with status ${code}`)}`, `baked ${provision(n)}`],
      `exit ${code}`,
    );
  }
});

test('row 5b: a stale marker from an earlier run is removed first, so it cannot hide an early failure', async () => {
  const n = node({}, { exitCodes: { provision: 1 } });
  writeFileSync(n.marker, 'stale\n');
  const out = await n.run();
  assert.is(out.exitCode, 0);
  assert.is(n.calls().length, 3);
});

test('row 5c: the fallback record failing does not stop the baked provision', async () => {
  const n = node({ exitCodes: { hotfix: 9 } }, { exitCodes: { provision: 1 } });
  const out = await n.run();
  assert.is(out.exitCode, 0);
  assert.ok(out.stdout.includes('ANC hotfix fallback record failed; continuing'), out.stdout);
  assert.is(n.calls()[2], `baked ${provision(n)}`);
});

test.run();

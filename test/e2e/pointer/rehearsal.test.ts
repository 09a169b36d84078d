// The "Publish a hotfix" checklist of docs/operators.md, step by step, against the apiserver stand-in
// started as an operator starts it (`npm run apiserver`), with real kubectl: render proposes the next
// serial, explain decides per image version on the signed YAML and on JSON, verify --kubeconfig refuses
// publishing over the live pointer with the same serial and other content, and a lower serial.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ANC_VERSION } from '../check-hotfix/node.ts';
import { runAnc, type RunOutcome } from '../harness.ts';
import { CURRENT, SIGNED_BIN, keyFile, signedData } from './keys.ts';
import { type KubectlRun, runKubectl } from './kubectl.ts';

const WORK = mkdtempSync(join(tmpdir(), 'anc-rehearsal-'));
const PUBLISHER = join(WORK, 'publisher.kubeconfig');
const BASE = ANC_VERSION.base;
const TARGET = ANC_VERSION.target;
const OTHER_IMAGE = '202605.02.1';
// Weeks away, as the docs ask (an expiry over 90 days away is warned about).
const EXPIRES = new Date(Date.now() + 60 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
let server: ChildProcess | undefined;

test.after(() => {
  // npm runs the script in a child: stop the whole process group it leads.
  if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  rmSync(WORK, { recursive: true, force: true });
});

/** `npm run apiserver -- --dir WORK`, as the checklist starts it; resolves once it printed its kubeconfigs. */
function startStandIn(): Promise<string> {
  return new Promise((resolve, reject) => {
    server = spawn('npm', ['run', '-s', 'apiserver', '--', '--dir', WORK], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let out = '';
    server.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Ctrl-C stops it')) resolve(out);
    });
    server.on('exit', (code) => reject(new Error(`npm run apiserver exited ${code}: ${out}`)));
  });
}

const anc = (args: string[]): Promise<RunOutcome> => runAnc(args, { bin: SIGNED_BIN, root: WORK, cwd: WORK });

function kubectl(args: string[]): Promise<KubectlRun> {
  return runKubectl(PUBLISHER, WORK, args);
}

/** Steps 2 and 3: render (serial proposed from the cluster unless given) and sign; returns the file. */
async function renderAndSign(
  name: string,
  flags: string[],
  format: 'yaml' | 'json' = 'yaml',
): Promise<{ file: string; rendered: RunOutcome }> {
  const rendered = await anc(['hotfix', 'pointer', 'render', '-o', format, ...flags, '--expires', EXPIRES]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const unsigned = join(WORK, `${name}.${format}`);
  writeFileSync(unsigned, rendered.stdout);
  const signed = await anc(['hotfix', 'pointer', 'sign', '-o', format, '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, unsigned]);
  assert.is(signed.exitCode, 0, signed.stderr);
  const file = join(WORK, `${name}-signed.${format}`);
  writeFileSync(file, signed.stdout);
  return { file, rendered };
}

test('the publish checklist against `npm run apiserver` with real kubectl', async () => {
  const banner = await startStandIn();
  assert.match(banner, `publisher kubeconfig (may write): ${PUBLISHER}`);
  // Every command the stand-in suggests works as printed (kubectl's list of an empty namespace included).
  const suggested = banner.split('\n').filter((l) => l.startsWith('try: '));
  assert.ok(suggested.length > 0, banner);
  for (const line of suggested) {
    const run = spawnSync('bash', ['-c', line.slice('try: '.length)], {
      cwd: WORK,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: WORK },
    });
    assert.is(run.status, 0, `${line}\n${run.stdout}${run.stderr}`);
  }

  // 2-3. Render against the (empty) cluster: serial 1 is proposed; sign.
  const first = await renderAndSign('first', ['--kubeconfig', PUBLISHER, '--hotfix', `${BASE}=${TARGET}`]);
  assert.is(first.rendered.stderr, 'serial 1: the cluster has no anc-hotfix-version ConfigMap yet\n');

  // 4. One decision per image version, as those nodes decide, on the signed YAML.
  const explained = await anc([
    'hotfix',
    'explain',
    '--pointer',
    first.file,
    '--current-version',
    ANC_VERSION.full,
    '--current-version',
    OTHER_IMAGE,
  ]);
  assert.is(explained.exitCode, 0, explained.stderr);
  assert.equal(explained.stdout.split('\n'), [
    `${first.file}: a node would stage this pointer (signed, serial 1, mode unsigned-allowed; scope not matched here)`,
    `  ${ANC_VERSION.full} -> ${TARGET}: takes the hotfix (upgrade)`,
    `  ${OTHER_IMAGE}: stays (not-listed)`,
    '',
  ]);

  // 5. Nothing live yet: verify against the cluster accepts.
  const checked = await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', '--kubeconfig', PUBLISHER, first.file]);
  assert.is(checked.exitCode, 0, checked.stdout);

  // 6. Apply, read back, verify what the cluster serves.
  const applied = await kubectl(['apply', '-f', first.file]);
  assert.is(applied.code, 0, applied.stderr);
  const got = await kubectl(['-n', 'kube-system', 'get', 'configmap', 'anc-hotfix-version', '-o', 'yaml']);
  assert.is(got.code, 0, got.stderr);
  const live = join(WORK, 'live.yaml');
  writeFileSync(live, got.stdout);
  const liveVerdict = await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', live]);
  assert.is(liveVerdict.exitCode, 0, liveVerdict.stdout);
  assert.match(liveVerdict.stdout, `serial 1)`);

  // A different payload signed under the same serial: render refuses it against the cluster, and verify
  // refuses publishing a file made without --kubeconfig.
  const reused = await anc([
    'hotfix',
    'pointer',
    'render',
    '--kubeconfig',
    PUBLISHER,
    '--hotfix',
    `${BASE}=${BASE}.7`,
    '--serial',
    '1',
    '--expires',
    EXPIRES,
  ]);
  assert.is(reused.exitCode, 1);
  assert.match(reused.stderr, /--serial 1 is not higher than 1: the cluster's pointer has serial 1/);
  const sameSerial = await renderAndSign('same-serial', ['--hotfix', `${BASE}=${BASE}.7`, '--serial', '1']);
  const refused = await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', '--kubeconfig', PUBLISHER, sameSerial.file]);
  assert.is(refused.exitCode, 1, refused.stdout);
  assert.match(refused.stdout, 'rejected: outcome=rolledBack');
  assert.match(refused.stdout, /serial 1 was already accepted with another payload/);
  // Re-publishing the identical signed file is fine.
  assert.is((await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', '--kubeconfig', PUBLISHER, first.file])).exitCode, 0);

  // The next round: serial 2 proposed; explain on render's JSON output decides per image too.
  const second = await renderAndSign(
    'second',
    ['--kubeconfig', PUBLISHER, '--hotfix', `${BASE}=${TARGET}`, '--hotfix', `202605.02=202605.02.2`],
    'json',
  );
  assert.is(second.rendered.stderr, "serial 2: the cluster's pointer has serial 1\n");
  const json = await anc([
    'hotfix',
    'explain',
    '-o',
    'json',
    '--pointer',
    second.file,
    '--current-version',
    ANC_VERSION.full,
    '--current-version',
    OTHER_IMAGE,
  ]);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.pointer, { file: second.file, signed: true, mode: 'unsigned-allowed', accepted: true, outcome: 'accepted', serial: 2 });
  assert.equal(
    doc.decisions.map((d: { current: string; resolved: string; upgrade: boolean; reason: string }) => [
      d.current,
      d.resolved,
      d.upgrade,
      d.reason,
    ]),
    [
      [ANC_VERSION.full, TARGET, true, 'upgrade'],
      [OTHER_IMAGE, '202605.02.2', true, 'upgrade'],
    ],
  );
  assert.is((await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', '--kubeconfig', PUBLISHER, second.file])).exitCode, 0);
  const replaced = await kubectl(['replace', '-f', second.file]);
  assert.is(replaced.code, 0, replaced.stderr);
  // Going back to the first file now is a rollback: refused before it is published.
  const back = await anc(['hotfix', 'pointer', 'verify', '--mode', 'enforce', '--kubeconfig', PUBLISHER, first.file]);
  assert.is(back.exitCode, 1);
  assert.match(back.stdout, /serial 1 is lower than 2/);
});

test('explain on a ConfigMap a node would refuse (expired, unsigned in enforce): every image stays, saying why', async () => {
  // render refuses an expiry in the past, so the expired ConfigMap is signed by hand with the same key.
  const expired = join(WORK, 'expired.json');
  const data = signedData({ serial: 9, expires: '2021-01-01T00:00:00Z', hotfixes: { [BASE]: TARGET } });
  writeFileSync(
    expired,
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'anc-hotfix-version', namespace: 'kube-system' }, data }),
  );
  const out = await anc([
    'hotfix',
    'explain',
    '--pointer',
    expired,
    '--current-version',
    ANC_VERSION.full,
    '--current-version',
    OTHER_IMAGE,
  ]);
  assert.equal(out.stdout.split('\n'), [
    `${expired}: a node would refuse this pointer (expired: the pointer expired at 2021-01-01T00:00:00Z (now ${out.stdout.match(/now ([^)]+)\)/)?.[1]})); it stages nothing (signed, serial 9, mode unsigned-allowed)`,
    `  ${ANC_VERSION.full}: stays (no-request)`,
    `  ${OTHER_IMAGE}: stays (no-request)`,
    '',
  ]);
  const unsigned = join(WORK, 'unsigned.json');
  writeFileSync(
    unsigned,
    (await anc(['hotfix', 'pointer', 'render', '-o', 'json', '--hotfix', `${BASE}=${TARGET}`, '--serial', '3', '--expires', EXPIRES]))
      .stdout,
  );
  const enforced = await runAnc(['hotfix', 'explain', '--pointer', unsigned, '--current-version', ANC_VERSION.full], {
    bin: SIGNED_BIN,
    root: WORK,
    env: { ANC_HOTFIX_POINTER_SIGNING: 'enforce' },
  });
  assert.equal(enforced.stdout.split('\n'), [
    `${unsigned}: a node would refuse this pointer (unsigned: the pointer carries no signature and ANC_HOTFIX_POINTER_SIGNING=enforce); it stages nothing (unsigned, mode enforce)`,
    `  ${ANC_VERSION.full}: stays (no-request)`,
    '',
  ]);
  // In the default mode the unsigned JSON ConfigMap is read like the node reads it (no more silent no-request).
  const allowed = await anc(['hotfix', 'explain', '-o', 'json', '--pointer', unsigned, '--current-version', ANC_VERSION.full]);
  assert.is(JSON.parse(allowed.stdout).decisions[0].reason, 'upgrade');
});

test.run();

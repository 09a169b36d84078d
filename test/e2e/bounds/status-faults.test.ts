// provision and provision-wait against status-file faults (issue: fail-open means bounded): a FIFO
// provision.json (with and without --timeout), an empty or cut-off provision.json left by a crash, 5 MB
// of garbage, a full disk under the status files and under the events (a small tmpfs; the tests skip
// with the reason when mounting is not permitted). Every write is whole or absent; the sentinel appears
// only beside a valid provision.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc, type Sandbox } from '../harness.ts';
import { failingScript, LOG, makeNode, PROVISION_COMPLETE, PROVISION_JSON, type Node } from '../provision/support.ts';
import { assertWholeEvents, EVENTS_DIR, leftoverTemps, measured, plantDevice, plantFifo, printWorstCases } from './support.ts';

const STATUS_DIR = '/var/log/azure/aks';
const nodes: Sandbox[] = [];
const mounts: string[] = [];

test.after(() => {
  for (const dir of mounts) execFileSync('umount', ['-l', dir]);
  for (const n of nodes) n.cleanup();
  printWorstCases('status-faults');
});

function node(script = failingScript(3)): Node {
  const n = makeNode(script);
  nodes.push(n);
  return n;
}

const provision = (n: Node) => runAnc(['provision', `--provision-config=${n.configPath}`], { root: n.root, timeoutMs: 60_000 });
const wait = (n: Sandbox, args: string[] = []) => runAnc(['provision-wait', ...args], { root: n.root, timeoutMs: 30_000 });

/** Mounts a tmpfs of `size` over the sandbox directory and fills it; undefined when mounting is refused. */
function fullDisk(n: Sandbox, onNodeDir: string, size = '64k'): string | undefined {
  const dir = n.path(onNodeDir);
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    return `cannot mount a tmpfs (${String((error as { stderr?: unknown }).stderr ?? error).trim()}): needs root and CAP_SYS_ADMIN`;
  }
  mounts.push(dir);
  try {
    execFileSync('sh', ['-c', `head -c 10000000 /dev/zero > "${dir}/.filler"`], { stdio: 'pipe' });
  } catch {
    // the expected "No space left on device"
  }
  return undefined;
}

test('provision-wait: provision.json is a FIFO or /dev/zero: refused at once, with and without --timeout', async () => {
  for (const [plant, name] of [
    [plantFifo, 'FIFO'],
    [plantDevice, '/dev/zero'],
  ] as const) {
    for (const args of [[], ['--timeout=5']]) {
      const n = node();
      n.write(PROVISION_COMPLETE, '');
      plant(n.path(PROVISION_JSON));
      const r = await wait(n, args);
      measured('provision-wait', `provision.json ${name} ${args.join(' ')}`.trim(), r.durationMs, 5_000);
      assert.is(r.exitCode, 1);
      assert.match(r.stderr, /failed to read provision.json: open \S+\/var\/log\/azure\/aks\/provision.json: ENOTREG/);
      assert.ok(n.events().some((e) => e.EventLevel === 'Error' && e.TaskName === 'AKS.AKSNodeController.ProvisionWait'));
    }
  }
});

test('provision-wait --timeout bounds the wait when provision.json is a FIFO and no sentinel comes', async () => {
  const n = node();
  plantFifo(n.path(PROVISION_JSON));
  const r = await wait(n, ['--timeout=1']);
  measured('provision-wait', 'FIFO provision.json, no sentinel, --timeout=1', r.durationMs, 1_000 + 3_000);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /did not appear within 1s \(--timeout\)/);
});

test('provision-wait: an empty or cut-off provision.json is named as such, with the file', async () => {
  for (const [content, said] of [
    [
      '',
      /parse provision.json: unexpected end of JSON input: \S+provision.json is empty \(0 bytes\) \(its writer crashed or the disk was full\)/,
    ],
    [
      '{"ExitCode":"3","Output":"par',
      /parse provision.json: unexpected end of JSON input \(it ends at byte 29 inside a value\): \S+provision.json is not complete JSON/,
    ],
  ] as const) {
    const n = node();
    n.write(PROVISION_COMPLETE, '');
    n.write(PROVISION_JSON, content);
    const r = await wait(n, ['--timeout=5']);
    measured('provision-wait', 'empty/partial provision.json', r.durationMs, 5_000);
    assert.is(r.exitCode, 1);
    assert.match(r.stderr, said);
  }
});

test('provision-wait: 5 MB of garbage is not echoed into the error, the log or the event', async () => {
  const n = node();
  n.write(PROVISION_COMPLETE, '');
  n.write(PROVISION_JSON, 'garbage '.repeat(640 * 1024));
  const r = await wait(n, ['--timeout=5']);
  measured('provision-wait', '5 MB garbage provision.json', r.durationMs, 10_000);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /parse provision.json: invalid character in JSON: not valid JSON \(syntax error at byte offset 0 of 5242880\)/);
  assert.ok(r.stderr.length < 10_000, `stderr holds ${r.stderr.length} bytes`);
  assert.ok(readFileSync(n.path(LOG), 'utf8').length < 10_000, 'the log stays small');
  for (const e of n.events()) assert.ok(e.Message!.length < 2_000, 'the event stays small');
});

test('provision: an empty provision.json left by a crash is replaced; then the sentinel; the exit code survives', async () => {
  const n = node(failingScript(3));
  n.write(PROVISION_JSON, '');
  const r = await provision(n);
  measured('provision', 'empty provision.json left by a crash', r.durationMs, 30_000);
  assert.is(r.exitCode, 3);
  assert.equal(JSON.parse(readFileSync(n.path(PROVISION_JSON), 'utf8')).ExitCode, '3');
  assert.ok(existsSync(n.path(PROVISION_COMPLETE)));
  assert.match(readFileSync(n.path(LOG), 'utf8'), /provision.json exists but holds no valid result \(empty or partial\); replacing it/);
  const w = await wait(n, ['--timeout=5']);
  assert.is(w.exitCode, 1);
  assert.match(w.stderr, /provision failed: exitCode=3/);
  assert.equal(leftoverTemps(n.path(STATUS_DIR)), []);
});

test('provision removes status and event temp files a killed run left, and only those', async () => {
  const n = node(failingScript(3));
  const old = new Date(Date.now() - 60_000);
  const status = n.write(`${STATUS_DIR}/.aks-node-controller-status-1234567890`, '{"Exi');
  const event = n.write(`${EVENTS_DIR}/.aks-node-controller-event-1234567890`, '{"Time');
  for (const file of [status, event]) utimesSync(file, old, old);
  const r = await provision(n);
  assert.is(r.exitCode, 3);
  assert.not.ok(existsSync(status), 'status temp removed');
  assert.not.ok(existsSync(event), 'event temp removed');
  assertWholeEvents(n.path(EVENTS_DIR));
  assert.equal(leftoverTemps(n.path(STATUS_DIR)), []);
});

test('provision on a full disk: no partial provision.json, no sentinel, the failed write is named', async () => {
  const n = node(failingScript(3));
  const skip = fullDisk(n, STATUS_DIR);
  if (skip) {
    console.log(`  [skip] full-disk provision test: ${skip}`);
    return;
  }
  const r = await provision(n);
  measured('provision', 'full disk under /var/log/azure/aks', r.durationMs, 30_000);
  assert.is(r.exitCode, 3, 'the script exit code is still the exit code');
  assert.not.ok(existsSync(n.path(PROVISION_JSON)), 'no partial provision.json');
  assert.not.ok(existsSync(n.path(PROVISION_COMPLETE)), 'no sentinel without a valid provision.json');
  assert.match(
    readFileSync(n.path(LOG), 'utf8'),
    /"msg":"failed to write provision.json".*"error":"write \S+provision.json: no space left on device"/,
  );
  assert.equal(readdirSync(n.path(STATUS_DIR)), ['.filler'], 'no temp file left on the full disk');
  // Space again (the filler removed): the next run records the result whole.
  execFileSync('rm', ['-f', n.path(`${STATUS_DIR}/.filler`)]);
  const again = await provision(n);
  assert.is(again.exitCode, 3);
  assert.equal(JSON.parse(readFileSync(n.path(PROVISION_JSON), 'utf8')).ExitCode, '3');
  assert.ok(existsSync(n.path(PROVISION_COMPLETE)));
});

test('events on a full disk: no 0-byte or partial event file, the failure is logged with its operation', async () => {
  const n = node();
  const skip = fullDisk(n, EVENTS_DIR);
  if (skip) {
    console.log(`  [skip] full-disk events test: ${skip}`);
    return;
  }
  const r = await wait(n, ['--timeout=0.5']);
  measured('provision-wait', 'full disk under the events directory', r.durationMs, 5_000);
  assert.is(r.exitCode, 1);
  assert.equal(readdirSync(n.path(EVENTS_DIR)), ['.filler'], 'no event file, whole or partial, and no temp');
  assert.match(readFileSync(n.path(LOG), 'utf8'), /"msg":"failed to write guest agent event","task":"ProvisionWait","operation":"write"/);
  execFileSync('rm', ['-f', n.path(`${EVENTS_DIR}/.filler`)]);
  await wait(n, ['--timeout=0.2']);
  assertWholeEvents(n.path(EVENTS_DIR));
  assert.is(n.events().length, 2, 'with space again, both events are written whole');
});

test.run();

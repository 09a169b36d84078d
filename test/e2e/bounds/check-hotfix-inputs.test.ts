// check-hotfix against local-file faults (issue: fail-open means bounded): a FIFO or /dev/zero at every
// input, a 50 MB kubeconfig, a 1 MiB kubeconfig of keys (the parser is linear), a pointer that is a
// symlink to a secret file. Every run: exit 0 within the 12 s bound (measured), one CheckHotfix event,
// no temp file, the pointer either untouched or replaced whole, no file content in any message.
import { existsSync, lstatSync, readFileSync, utimesSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN, kubeconfigFor, startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import {
  ANC_VERSION,
  BOOTSTRAP_KUBECONFIG,
  CLUSTER_CA,
  CM_KEY,
  EXISTING_POINTER,
  KUBECONFIG,
  NODE_CONFIG,
  POINTER,
  assertRun,
  nodeFor,
  prepareNode,
  runCheck,
  SERVED,
  type CheckRun,
} from '../check-hotfix/node.ts';
import { assertWholeEvents, EVENTS_DIR, measured, plantDevice, plantFifo, printWorstCases } from './support.ts';

/** The 12 s promise, plus slack for a loaded 2-core machine; faults below fail in well under a second. */
const BOUND_MS = 12_000 + 3_000;

const ctx = {} as { api: FakeApiServer };
test.before(async () => {
  ctx.api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() } });
});
test.after(async () => {
  await ctx.api?.close();
  printWorstCases('check-hotfix-inputs');
});

function checked(run: CheckRun, outcome: string, fault: string): void {
  assertRun(run, outcome);
  measured('check-hotfix', fault, run.durationMs, BOUND_MS);
  assertWholeEvents(run.sb.path(EVENTS_DIR));
}

test('node config is a FIFO (no kubeconfig): failed at once, named, pointer untouched', async () => {
  const sb = nodeFor(ctx.api);
  plantFifo(sb.path(NODE_CONFIG));
  const run = await runCheck(sb);
  checked(run, 'failed', 'node config FIFO');
  assert.match(
    run.error,
    /reading node config \/opt\/azure\/containers\/aks-node-controller-config.json: ENOTREG: a FIFO is not a regular file \(refused without reading\)/,
  );
  assert.is(run.pointer, EXISTING_POINTER);
});

test('node config is /dev/zero: refused, not read', async () => {
  const sb = nodeFor(ctx.api);
  plantDevice(sb.path(NODE_CONFIG));
  const run = await runCheck(sb);
  checked(run, 'failed', 'node config /dev/zero');
  assert.match(run.error, /ENOTREG: a character device/);
});

const PLANTS = [
  [plantFifo, 'FIFO'],
  [plantDevice, '/dev/zero'],
] as const;

test('cluster CA is a FIFO or /dev/zero: node-config credentials refused, no kubeconfig -> failed, pointer untouched', async () => {
  for (const [plant, name] of PLANTS) {
    const sb = nodeFor(ctx.api);
    plant(sb.path(CLUSTER_CA));
    const run = await runCheck(sb);
    checked(run, 'failed', `ca.crt ${name}`);
    assert.match(run.stderr, /reading cluster CA \/etc\/kubernetes\/certs\/ca.crt: ENOTREG/);
    assert.is(run.pointer, EXISTING_POINTER);
  }
});

test('existing pointer is a FIFO or /dev/zero: failed at once, the FIFO is left as it was', async () => {
  for (const plant of [plantFifo, plantDevice]) {
    const sb = nodeFor(ctx.api);
    plant(sb.path(POINTER));
    const run = await runCheck(sb);
    checked(run, 'failed', `pointer ${plant === plantFifo ? 'FIFO' : '/dev/zero'}`);
    assert.match(run.error, /reading existing hotfix pointer \/opt\/azure\/containers\/aks-node-controller-hotfix.json: ENOTREG/);
    const stat = lstatSync(sb.path(POINTER));
    assert.ok(plant === plantFifo ? stat.isFIFO() : stat.isSymbolicLink());
  }
});

test('both kubeconfigs are FIFOs or /dev/zero (no node config): failed at once', async () => {
  for (const [plant, name] of PLANTS) {
    const sb = prepareNode({});
    plant(sb.path(BOOTSTRAP_KUBECONFIG));
    plant(sb.path(KUBECONFIG));
    const run = await runCheck(sb);
    checked(run, 'failed', `kubeconfig ${name}`);
    assert.match(run.stderr, /reading kubeconfig \/var\/lib\/kubelet\/bootstrap-kubeconfig: ENOTREG/);
  }
});

test("the kubeconfig's CA file is a FIFO or /dev/zero: failed at once", async () => {
  for (const [plant, name] of PLANTS) {
    const kubeconfig = kubeconfigFor(ctx.api, { token: DEFAULT_TOKEN }).replace(
      /certificate-authority-data: \S+/,
      'certificate-authority: /etc/kubernetes/certs/odd-ca.crt',
    );
    const sb = prepareNode({ kubeconfig, ca: null });
    plant(sb.path('/etc/kubernetes/certs/odd-ca.crt'));
    const run = await runCheck(sb);
    checked(run, 'failed', `kubeconfig CA ${name}`);
    assert.match(run.stderr, /reading certificate-authority \/etc\/kubernetes\/certs\/odd-ca.crt: ENOTREG/);
  }
});

test('a 50 MB kubeconfig is refused by its size cap before it is parsed', async () => {
  const sb = prepareNode({});
  const big =
    `clusters:\n- cluster:\n    server: https://${ctx.api.address}\n` +
    '# padding padding padding padding\n'.repeat((50 * 1024 * 1024) / 34);
  sb.write(BOOTSTRAP_KUBECONFIG, big, 0o600);
  const run = await runCheck(sb);
  checked(run, 'failed', '50 MB kubeconfig');
  assert.match(run.stderr, /bootstrap-kubeconfig: EFBIG: \d+ bytes is over the 262144-byte limit for a kubeconfig/);
  assert.ok(run.durationMs < 5_000, `refusal took ${run.durationMs} ms`);
});

test('a kubeconfig just under the cap, made of 20 000 keys, parses in linear time and is used', async () => {
  const head = kubeconfigFor(ctx.api, { token: DEFAULT_TOKEN });
  const filler = Array.from({ length: 20_000 }, (_, i) => `k${i}: v\n`).join('');
  assert.ok(head.length + filler.length < 256 * 1024, 'fits the cap');
  const sb = prepareNode({ kubeconfig: head + filler });
  const run = await runCheck(sb);
  checked(run, 'configMapRead', '256 KiB kubeconfig of 20 000 keys');
  assert.match(run.stderr, '"credentials":"/var/lib/kubelet/kubeconfig"');
});

test('a pointer that is a symlink to a secret file: replaced, and its content never quoted', async () => {
  const sb = nodeFor(ctx.api);
  const secretText = `-----BEGIN PRIVATE KEY-----\nSECRETKEYMATERIAL${DEFAULT_TOKEN}\n-----END PRIVATE KEY-----\n`;
  const secretFile = sb.write('/etc/kubernetes/certs/client.key', secretText, 0o600);
  plantDevice(sb.path(POINTER), secretFile);
  const run = await runCheck(sb);
  checked(run, 'configMapRead', 'pointer symlink to a key');
  assert.match(run.stderr, /existing hotfix pointer is not valid; replacing it.*not valid JSON \(syntax error at byte offset 0 of \d+\)/);
  const everything =
    run.stdout + run.stderr + JSON.stringify(run.events) + readFileSync(sb.path('/var/log/azure/aks-node-controller.log'), 'utf8');
  assert.not.ok(everything.includes('SECRETKEYMATERIAL'), 'the file content leaked');
  assert.ok(lstatSync(sb.path(POINTER)).isFile(), 'the symlink is replaced by the staged pointer');
  assert.is(readFileSync(secretFile, 'utf8'), secretText, 'the link target is untouched');
  assert.ok(run.pointer!.includes(ANC_VERSION.target));
});

test('a 100 KB argument is not echoed in full', async () => {
  const run = await runCheck(nodeFor(ctx.api), { args: ['x'.repeat(100_000)] });
  checked(run, 'configMapRead', '100 KB argument');
  assert.ok(run.stderr.length < 5_000, `stderr is ${run.stderr.length} bytes`);
  assert.match(run.stderr, /ignoring unexpected check-hotfix arguments.*\(99800 more characters\)/);
});

test('a pointer temp file left by a killed run is removed at the next start; a foreign file stays', async () => {
  const sb = nodeFor(ctx.api);
  const old = new Date(Date.now() - 60_000);
  const left = sb.write('/opt/azure/containers/.aks-node-controller-hotfix-1234567890', '{"hotf');
  const foreign = sb.write('/opt/azure/containers/.someone-else-tmp', 'x');
  utimesSync(left, old, old);
  utimesSync(foreign, old, old);
  const run = await runCheck(sb);
  checked(run, 'configMapRead', 'left-over pointer temp file');
  assert.not.ok(existsSync(left), 'the left-over temp file is gone');
  assert.ok(existsSync(foreign), 'files of other owners are not touched');
  assert.match(run.stderr, /removed temp files left by an interrupted earlier run.*\.aks-node-controller-hotfix-1234567890/);
});

test.run();

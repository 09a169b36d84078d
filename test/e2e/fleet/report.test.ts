// report-status end to end: the compiled binary writes this boot's report on its own Node object in the
// apiserver stand-in with the node's client certificate (NodeRestriction refuses another node), kubectl
// sees the label, and the command fails open within its bounds when the apiserver is down or hangs.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { runAnc } from '../harness.ts';
import { runKubectl } from '../pointer/kubectl.ts';
import { fastBounds, joinedNode } from './support.ts';

const ANNOTATION = 'kubernetes.azure.com/aks-node-controller-status';
const LABEL = 'kubernetes.azure.com/aks-node-controller-version';

const meta = (node: Record<string, unknown> | undefined) =>
  (node?.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
const reportEvents = (events: Array<Record<string, string>>) => events.filter((e) => e.TaskName === 'AKS.AKSNodeController.ReportStatus');

test('the node reports on its own Node object with its certificate; status shows it; kubectl sees the label', async () => {
  const api = await startFakeApiServer({
    nodes: ['aks-pool-0'],
    tokens: { 'admin.0123456789abcdef': { user: 'admin', canRead: true, canWrite: true } },
  });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds() });
    assert.is(run.exitCode, 0, run.stderr);
    const stored = meta(api.nodes.nodes.get('aks-pool-0'));
    const text = stored.annotations?.[ANNOTATION] ?? '';
    assert.ok(Buffer.byteLength(text) <= 4096, 'at most 4 KiB');
    const report = JSON.parse(text);
    assert.is(report.schemaVersion, 1);
    assert.is(report.bootId, 'boot-1');
    assert.is(report.platform, 'ubuntu-22.04/amd64');
    assert.equal(report.provision, {
      state: 'succeeded',
      exitCode: 0,
      name: 'ERR_SUCCESS' === report.provision.name ? 'ERR_SUCCESS' : report.provision.name,
    });
    assert.is(report.provision.exitCode, 0);
    assert.is(report.hotfix.path, 'baked');
    assert.equal(report.pointer, { serial: null, signed: false });
    assert.is(stored.labels?.[LABEL], report.running);
    assert.is(stored.labels?.['kubernetes.io/hostname'], 'aks-pool-0', 'a merge patch keeps the other labels');
    const patch = api.requests.find((r) => r.method === 'PATCH');
    assert.ok(patch?.clientCert && !patch.bearer, 'with the client certificate, no token');
    assert.is(patch?.user, 'system:node:aks-pool-0');
    const [event] = reportEvents(node.box.events());
    assert.is(event?.EventLevel, 'Informational');
    assert.match(event!.Message!, /^reported on node aks-pool-0: binary=\w+ running=\S+ path=baked exit=0/);
    const status = await runAnc(['status'], { root: node.box.root });
    assert.match(status.stdout, /\nreport: reported on node aks-pool-0: /);
    // Real kubectl: the label column, and a selector on it.
    const kubeconfig = join(node.box.root, 'admin.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(api, { token: 'admin.0123456789abcdef' }));
    const get = await runKubectl(kubeconfig, node.box.root, ['get', 'nodes', '-L', LABEL]);
    assert.is(get.code, 0, get.stderr);
    assert.match(get.stdout, /AKS-NODE-CONTROLLER-VERSION/);
    assert.match(get.stdout, new RegExp(`aks-pool-0\\s+Ready\\s+agent\\s+\\S+\\s+v1\\.32\\.4\\s+${report.running.replace(/\./g, '\\.')}`));
    const selected = await runKubectl(kubeconfig, node.box.root, ['get', 'nodes', '-l', `${LABEL}=${report.running}`, '-o', 'name']);
    assert.is(selected.stdout.trim(), 'node/aks-pool-0', selected.stderr);
    // The state label answers "which nodes failed?" without JSON.
    const STATE = 'kubernetes.azure.com/aks-node-controller-state';
    assert.is(stored.labels?.[STATE], 'baked');
    const failedOnes = await runKubectl(kubeconfig, node.box.root, ['get', 'nodes', '-l', `${STATE}=failed`, '-o', 'name']);
    assert.is(failedOnes.stdout.trim(), '', failedOnes.stderr);
    const bakedOnes = await runKubectl(kubeconfig, node.box.root, ['get', 'nodes', '-l', `${STATE}=baked`, '-o', 'name']);
    assert.is(bakedOnes.stdout.trim(), 'node/aks-pool-0', bakedOnes.stderr);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test("another node's certificate is refused (NodeRestriction), at once and fail-open; so is a reserved label", async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0', 'aks-pool-1'] });
  // Kubelet flags name aks-pool-1, the certificate is aks-pool-0's.
  const node = joinedNode(api, 'aks-pool-1', { certFor: 'aks-pool-0' });
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(30) });
    assert.is(run.exitCode, 0, 'fail-open');
    assert.ok(run.durationMs < 15_000, `a refusal is final: no waiting out the 30 s bound (${run.durationMs} ms)`);
    assert.is(meta(api.nodes.nodes.get('aks-pool-1')).annotations?.[ANNOTATION], undefined);
    const [event] = reportEvents(node.box.events());
    assert.is(event?.EventLevel, 'Error');
    assert.match(event!.Message!, /not reported on node aks-pool-1: .*403.*node "aks-pool-0" is not allowed to modify node "aks-pool-1"/);
    const log = node.box.read('/var/log/azure/aks-node-controller.log');
    assert.match(log, /report-status completed: not reported \(fail-open\)/);
    // The same node may not set a label in a reserved domain on itself (kubectl label with its kubeconfig,
    // the on-node file paths rewritten into the sandbox).
    const own = join(node.box.root, 'own.kubeconfig');
    writeFileSync(own, node.box.read('/var/lib/kubelet/kubeconfig').replaceAll(': /', `: ${node.box.root}/`));
    const label = await runKubectl(own, node.box.root, ['label', 'node', 'aks-pool-0', 'node-restriction.kubernetes.io/pool=x']);
    assert.is.not(label.code, 0);
    assert.match(label.stderr, /not allowed to modify labels: node-restriction\.kubernetes\.io\/pool/);
    const allowed = await runKubectl(own, node.box.root, ['label', 'node', 'aks-pool-0', 'kubernetes.azure.com/pool=x']);
    assert.is(allowed.code, 0, allowed.stderr);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('waits for the Node object (kubelet registers it later), then reports', async () => {
  const api = await startFakeApiServer({ nodes: [] });
  const node = joinedNode(api, 'aks-late-0');
  try {
    const running = runAnc(['report-status'], { root: node.box.root, env: fastBounds(10) });
    await new Promise((r) => setTimeout(r, 1500));
    api.nodes.register('aks-late-0', { bootId: 'boot-1' });
    const run = await running;
    assert.is(run.exitCode, 0);
    assert.ok(meta(api.nodes.nodes.get('aks-late-0')).annotations?.[ANNOTATION], 'reported once the Node existed');
    assert.match(node.box.read('/var/log/azure/aks-node-controller.log'), /waiting for kubelet credentials and the Node object/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('fail-open when the apiserver is down: the wait bound holds, the event says why', async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0'] });
  // A port nobody listens on.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const node = joinedNode(api, 'aks-pool-0', { server: `https://127.0.0.1:${port}` });
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(2) });
    assert.is(run.exitCode, 0);
    assert.ok(run.durationMs < 8_000, `bounded by the 2 s wait (took ${run.durationMs} ms)`);
    const [event] = reportEvents(node.box.events());
    assert.is(event?.EventLevel, 'Error');
    assert.match(
      event!.Message!,
      /not reported on node aks-pool-0: gave up after \d+(\.\d)? s \(bound 2 s, \d+ attempts\): .*ECONNREFUSED/,
    );
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('fail-open when the apiserver hangs: each request is cut at its bound', async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0'], override: (req) => req.url?.startsWith('/api/v1/nodes') === true });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(2) });
    assert.is(run.exitCode, 0);
    assert.ok(run.durationMs < 8_000, `bounded (took ${run.durationMs} ms)`);
    const [event] = reportEvents(node.box.events());
    assert.match(event!.Message!, /gave up after .*no complete answer within [\d.]+ s/, event?.Message);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test.run();

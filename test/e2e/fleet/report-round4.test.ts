// Issue 41 §5 for report-status on the compiled binary: the node name as kubelet takes it from
// /etc/default/kubelet (R4-10), a 403 that an authorizer lagging a fresh registration answers is tried
// again within the bound (R4-14), and the "not reported" event names the most informative fault met, not
// the attempt the deadline cut (R4-21).
import type { ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer } from '../../fakes/apiserver.ts';
import { runAnc } from '../harness.ts';
import { fastBounds, joinedNode } from './support.ts';

const ANNOTATION = 'kubernetes.azure.com/aks-node-controller-status';
const reportEvents = (events: Array<Record<string, string>>) => events.filter((e) => e.TaskName === 'AKS.AKSNodeController.ReportStatus');
const annotation = (api: Awaited<ReturnType<typeof startFakeApiServer>>, name: string) =>
  ((api.nodes.nodes.get(name)?.metadata ?? {}) as { annotations?: Record<string, string> }).annotations?.[ANNOTATION];

function statusReply(res: ServerResponse, code: number, message: string): true {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code }));
  return true;
}

test('R4-10: a commented-out --hostname-override is not the node name; the last flag of KUBELET_FLAGS is', async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0', 'evil-node', 'wrong'] });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    node.box.write(
      '/etc/default/kubelet',
      [
        '# KUBELET_FLAGS=--hostname-override=evil-node',
        '#KUBELET_FLAGS="--hostname-override=evil-node"',
        'KUBELET_NODE_LABELS=kubernetes.azure.com/role=agent',
        'KUBELET_FLAGS="--node-ip=10.224.0.4 --hostname-override=wrong --max-pods=110 --hostname-override aks-pool-0"',
        '',
      ].join('\n'),
    );
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(5) });
    assert.is(run.exitCode, 0, run.stderr);
    assert.ok(annotation(api, 'aks-pool-0'), 'reported on the node kubelet registers');
    assert.is(annotation(api, 'evil-node'), undefined);
    assert.is(annotation(api, 'wrong'), undefined);
    assert.match(reportEvents(node.box.events())[0]!.Message!, /^reported on node aks-pool-0: /);
    // Only a commented-out flag: kubelet uses the hostname, and so does the report.
    node.box.write('/etc/default/kubelet', '# KUBELET_FLAGS=--hostname-override=evil-node\nKUBELET_FLAGS=--max-pods=110\n');
    await runAnc(['report-status'], { root: node.box.root, env: fastBounds(1) });
    assert.match(reportEvents(node.box.events())[1]!.Message!, `node ${hostname().trim().toLowerCase()}`);
    assert.match(node.box.read('/var/log/azure/aks-node-controller.log'), /"nameSource":"hostname"/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('R4-14: a 403 on the first GET (an authorizer lagging the registration) is tried again within the bound; then reported', async () => {
  let refused = 0;
  const api = await startFakeApiServer({
    nodes: ['aks-pool-0'],
    override: (req, res) => {
      if (req.method !== 'GET' || req.url !== '/api/v1/nodes/aks-pool-0' || refused >= 1) return false;
      refused++;
      return statusReply(res, 403, 'nodes "aks-pool-0" is forbidden: node "aks-pool-0" cannot get resource "nodes"');
    },
  });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(10) });
    assert.is(run.exitCode, 0, run.stderr);
    assert.is(refused, 1);
    assert.ok(annotation(api, 'aks-pool-0'), 'reported after the 403');
    assert.match(reportEvents(node.box.events())[0]!.Message!, /^reported on node aks-pool-0: /);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('R4-14: a 403 that stays is final after a few tries, well within the bound', async () => {
  const api = await startFakeApiServer({
    nodes: ['aks-pool-0'],
    override: (req, res) => req.url === '/api/v1/nodes/aks-pool-0' && statusReply(res, 403, 'forbidden: always'),
  });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(30) });
    assert.is(run.exitCode, 0);
    assert.ok(run.durationMs < 15_000, `final, not the 30 s bound (${run.durationMs} ms)`);
    assert.is(api.requests.filter((r) => r.path === '/api/v1/nodes/aks-pool-0').length, 4, 'four tries');
    assert.match(reportEvents(node.box.events())[0]!.Message!, /^not reported on node aks-pool-0: .*status 403/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('R4-21: "not reported" names the most informative fault (the 503 answer), not the attempt the deadline cut', async () => {
  let gets = 0;
  const api = await startFakeApiServer({
    nodes: ['aks-pool-0'],
    override: (req, res) => {
      if (req.url !== '/api/v1/nodes/aks-pool-0') return false;
      if (++gets <= 2) return statusReply(res, 503, 'the apiserver is shutting down');
      return true; // then it hangs: every later attempt is cut by its bound
    },
  });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds(3) });
    assert.is(run.exitCode, 0);
    const message = reportEvents(node.box.events())[0]!.Message!;
    assert.match(
      message,
      /^not reported on node aks-pool-0: gave up after [\d.]+ s \(bound 3 s, \d+ attempts\): apiserver returned status 503/,
    );
    assert.match(message, /\(last attempt: .*no complete answer within/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test.run();

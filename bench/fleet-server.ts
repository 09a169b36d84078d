// The apiserver stand-in for bench/fleet.mjs, in its own process so that serving thousands of Nodes
// neither shares the benchmark's event loop (its RSS sampler) nor its memory. Started with fork(): it
// fills the stand-in with N realistic Nodes of about K KiB, writes a kubeconfig and answers the parent
// over IPC: `configmap` (the live pointer's data), `wire` (bytes and connections so far), `requests` (requests so far), `change` (patch the
// reports of `count` Nodes, as report-status would), `stop`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfigFor, startFakeApiServer } from '../test/fakes/apiserver.ts';
import { mixedState, nodeName, realisticNode, REPORT_ANNOTATION, syntheticReport } from '../test/fakes/realistic-node.ts';

const [count, kib, dir] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!];
const TOKEN = 'publisher.0123456789abcdef';
const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } } });
let nodeBytes = 0;
for (let i = 0; i < count; i++) {
  const node = realisticNode(i, kib, mixedState(i));
  nodeBytes += JSON.stringify(node).length;
  api.nodes.put(node);
}
// The whole NodeList as one response would be (the items plus the list's envelope).
nodeBytes += JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }).length + count;
const kubeconfig = join(dir, 'publisher.kubeconfig');
writeFileSync(kubeconfig, kubeconfigFor(api, { token: TOKEN }));
let next = 0;
process.on('message', (message: { op: string; count?: number; data?: Record<string, string>; id: number }) => {
  const reply = (body: unknown) => process.send!({ id: message.id, ...(body as object) });
  if (message.op === 'wire') return reply(api.wire());
  if (message.op === 'configmap') {
    api.configMaps.set('kube-system/anc-hotfix-version', message.data);
    return reply({});
  }
  if (message.op === 'requests') return reply({ requests: api.requests.length });
  if (message.op === 'change') {
    for (let k = 0; k < (message.count ?? 1); k++) {
      const i = next++ % count;
      const node = api.nodes.nodes.get(nodeName(i))!;
      const meta = node.metadata as { annotations: Record<string, string> };
      const annotations = { ...meta.annotations, [REPORT_ANNOTATION]: syntheticReport('hotfix', `boot-${i}-${next}`) };
      api.nodes.put({ ...node, metadata: { ...meta, annotations } });
    }
    return reply({});
  }
  if (message.op === 'stop') void api.close().then(() => process.exit(0));
});
process.send!({ ready: true, url: api.url, kubeconfig, nodeBytes, pid: process.pid });

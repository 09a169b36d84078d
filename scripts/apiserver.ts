// `npm run apiserver`: the apiserver stand-in on loopback, for rehearsing a hotfix publish by hand (the
// checklist in docs/operators.md). Real HTTPS with a throwaway CA; ConfigMaps in kube-system; what kubectl
// get/apply/replace need, and Node objects (get, list with label selectors, merge patch; NodeRestriction
// for node certificates). It writes a publisher kubeconfig that may write, a node (bootstrap token) one
// that may only read, and with --nodes N, N registered Nodes each with a kubelet kubeconfig (a client
// certificate system:node:<name>), prints where they are, and runs until Ctrl-C. Nothing is kept.
//
//   npm run apiserver -- [--dir DIR] [--nodes N]   kubeconfigs go to DIR (default: a new temporary directory)
//
// The same server backs the end-to-end tests (test/fakes/apiserver.ts): Node lists in pages (limit/continue,
// 410 for an expired token), metadata-only and Table answers, gzip over 128 KiB, watch with bookmarks;
// where it still differs from kube-apiserver: test/fakes/apiserver-list.ts and docs/operators.md.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { issueNodeCert } from '../test/fakes/apiserver-pki.ts';
import { kubeconfigFor, startFakeApiServer } from '../test/fakes/apiserver.ts';

const PUBLISHER_TOKEN = 'publisher.0123456789abcdef';
const NODE_TOKEN = 'abcdef.0123456789abcdef';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: npm run apiserver -- [--dir DIR] [--nodes N]\n\nStarts the apiserver stand-in on loopback and writes publisher.kubeconfig and node.kubeconfig\ninto DIR (default: a new temporary directory); --nodes N registers N Nodes, each with a kubelet\nkubeconfig (client certificate system:node:<name>). Ctrl-C stops it.\n',
  );
  process.exit(0);
}
const at = args.indexOf('--dir');
const nodesAt = args.indexOf('--nodes');
const unknown = args.find((a, i) => !['--dir', '--nodes'].includes(a) && i !== at + 1 && i !== nodesAt + 1);
if (unknown !== undefined) {
  process.stderr.write(`apiserver: unknown argument ${unknown} (see --help)\n`);
  process.exit(2);
}
const nodeCount = nodesAt >= 0 ? Number(args[nodesAt + 1]) : 0;
if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 100) {
  process.stderr.write('apiserver: --nodes must be an integer from 0 to 100\n');
  process.exit(2);
}
const dir = at >= 0 && args[at + 1] ? resolve(args[at + 1]!) : mkdtempSync(join(tmpdir(), 'anc-apiserver-'));
mkdirSync(dir, { recursive: true });

const api = await startFakeApiServer({
  configMaps: {},
  tokens: {
    [PUBLISHER_TOKEN]: { user: 'publisher', canRead: true, canWrite: true },
    [NODE_TOKEN]: { user: 'system:bootstrap:abcdef', canRead: true },
  },
});
const nodeNames = Array.from({ length: nodeCount }, (_, i) => `aks-nodepool1-${String(i).padStart(2, '0')}`);
for (const name of nodeNames) {
  api.nodes.register(name, { bootId: `${name}-boot-1` });
  writeFileSync(join(dir, `${name}.kubeconfig`), kubeconfigFor(api, { clientCert: issueNodeCert(api.pki, name) }), { mode: 0o600 });
}
const publisher = join(dir, 'publisher.kubeconfig');
const node = join(dir, 'node.kubeconfig');
writeFileSync(publisher, kubeconfigFor(api, { token: PUBLISHER_TOKEN }), { mode: 0o600 });
writeFileSync(node, kubeconfigFor(api, { token: NODE_TOKEN }), { mode: 0o600 });
process.stdout.write(
  [
    `apiserver stand-in listening on ${api.url} (TLS, throwaway CA)`,
    `publisher kubeconfig (may write): ${publisher}`,
    `node kubeconfig (may only read):  ${node}`,
    ...(nodeNames.length > 0
      ? [`${nodeNames.length} Nodes, each with its kubelet kubeconfig: ${join(dir, `${nodeNames[0]}.kubeconfig`)} ...`]
      : []),
    `try: kubectl --kubeconfig ${publisher} -n kube-system get configmaps`,
    `try: kubectl --kubeconfig ${publisher} get nodes -L kubernetes.azure.com/aks-node-controller-version`,
    `try: kubectl --kubeconfig ${node} -n kube-system get configmaps`,
    'Ctrl-C stops it; nothing is kept.',
    '',
  ].join('\n'),
);
const stop = async () => {
  await api.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

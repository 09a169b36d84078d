// `npm run apiserver`: the apiserver stand-in on loopback, for rehearsing a hotfix publish by hand (the
// checklist in docs/operators.md). Real HTTPS with a throwaway CA; ConfigMaps in kube-system; what kubectl
// get/apply/replace need. It writes two kubeconfigs: a publisher that may write, and a node (bootstrap
// token) that may only read, prints where they are, and runs until Ctrl-C. Nothing is kept.
//
//   npm run apiserver -- [--dir DIR]      kubeconfigs go to DIR (default: a new temporary directory)
//
// The same server backs the end-to-end tests (test/fakes/apiserver.ts).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kubeconfigFor, startFakeApiServer } from '../test/fakes/apiserver.ts';

const PUBLISHER_TOKEN = 'publisher.0123456789abcdef';
const NODE_TOKEN = 'abcdef.0123456789abcdef';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: npm run apiserver -- [--dir DIR]\n\nStarts the apiserver stand-in on loopback and writes publisher.kubeconfig and node.kubeconfig\ninto DIR (default: a new temporary directory). Ctrl-C stops it.\n',
  );
  process.exit(0);
}
const at = args.indexOf('--dir');
if (args.some((a, i) => a.startsWith('-') && a !== '--dir' && i !== at + 1)) {
  process.stderr.write(`apiserver: unknown argument ${args.find((a) => a.startsWith('-') && a !== '--dir')} (see --help)\n`);
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
const publisher = join(dir, 'publisher.kubeconfig');
const node = join(dir, 'node.kubeconfig');
writeFileSync(publisher, kubeconfigFor(api, { token: PUBLISHER_TOKEN }), { mode: 0o600 });
writeFileSync(node, kubeconfigFor(api, { token: NODE_TOKEN }), { mode: 0o600 });
process.stdout.write(
  [
    `apiserver stand-in listening on ${api.url} (TLS, throwaway CA)`,
    `publisher kubeconfig (may write): ${publisher}`,
    `node kubeconfig (may only read):  ${node}`,
    `try: kubectl --kubeconfig ${publisher} -n kube-system get configmaps`,
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

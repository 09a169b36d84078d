// One sandboxed node ready for download-hotfix: the package manager's view of the loopback repository,
// the baked agent, the pointer, and the nbc command file the health gate's dry-run self-test provisions
// against. Shared by the download, fast-path and delta end-to-end tests.
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import type { Sandbox } from '../e2e/harness.ts';
import { prepareAptRoot, prepareRpmRoot, type ServedRepo } from './repos.ts';

export const NODE_BAKED = '/opt/azure/containers/aks-node-controller';
export const NODE_POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
const NODE_NBC = '/opt/azure/containers/aks-node-controller-nbc-cmd.sh';

export interface HotfixNodeOptions {
  kind: 'apt' | 'rpm';
  repo: ServedRepo;
  /** The rpm stub the rpm root's database starts from (buildBaseStubRpm). */
  stub: string;
  baked: string;
  /** The staged pointer; none when undefined. */
  pointer?: string;
  source?: 'list' | 'sources' | 'none';
}

export function plantHotfixNode(sb: Sandbox, o: HotfixNodeOptions): void {
  if (o.kind === 'apt') prepareAptRoot(sb.root, o.repo, { source: o.source ?? 'list' });
  else prepareRpmRoot(sb.root, o.repo, o.stub);
  mkdirSync(sb.path('/opt/azure/containers'), { recursive: true });
  copyFileSync(o.baked, sb.path(NODE_BAKED));
  chmodSync(sb.path(NODE_BAKED), 0o755);
  if (o.pointer !== undefined) sb.write(NODE_POINTER, o.pointer);
  sb.write(NODE_NBC, 'exit 0\n');
}

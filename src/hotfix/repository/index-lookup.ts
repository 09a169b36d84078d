// `hotfix explain --repository URL` (issue 29): does the repository's signed hotfix index list a version
// for an architecture? Answered by the node's own verified path (apt-path.ts: InRelease through gpgv with
// the keyring, fresh, the Packages index it signs, exactly our version and architecture), in a private
// scratch root: the release machine's node paths are never written.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import { deadlineFrom } from '../retry.ts';
import { findInRelease, keyringsFor } from './apt-path.ts';
import { type FastPathContext, HOTFIX_INDEX_DIR } from './context.ts';
import { isUnavailable } from './errors.ts';
import { createFetcher } from './fetcher.ts';
import { readKeyrings } from './gpg.ts';
import { createScratch } from './scratch.ts';
import { repositoryBase } from './url-rules.ts';

export interface IndexAnswer {
  index: string;
  version: string;
  arch: string;
  listed: boolean;
  /** Why not: unreachable, not listed, or an integrity failure (a bad signature, tampered metadata). */
  reason?: string;
  delta?: boolean;
}

const ARCHES: Record<string, { deb: string; rpm: string }> = {
  amd64: { deb: 'amd64', rpm: 'x86_64' },
  arm64: { deb: 'arm64', rpm: 'aarch64' },
};

/** `url`: the apt release directory (`…/dists/<suite>/`); the hotfix index is its aks-node-controller/. */
export async function checkHotfixIndex(deps: Deps, url: string, version: string, arch: string, keyring?: string): Promise<IndexAnswer> {
  const dir = new URL(url.endsWith('/') ? url : `${url}/`);
  const index = new URL(`${HOTFIX_INDEX_DIR}/`, dir);
  const answer = { index: `${index}`, version, arch };
  const base = repositoryBase(`${dir}`);
  if (!base || !ARCHES[arch]) return { ...answer, listed: false, reason: !base ? 'not an http(s) URL' : `no architecture ${arch}` };
  const root = `${deps.env.TMPDIR || '/tmp'}/anc-index-check-${process.pid}-${deps.clock.now().getTime()}`;
  // Scratch and the replay floor in a private directory: a preview writes nothing of the node's.
  const paths = { ...deps.paths, containersDir: root, repositoryState: `${root}/repository-state.json` };
  const local: Deps = { ...deps, paths };
  const scratch = createScratch(local);
  const trace = { path: 'none' as const, fetchedBytes: 0, stages: {} };
  const deadline = deadlineFrom(() => deps.clock.now(), 60);
  const ctx: FastPathContext = {
    deps: local,
    scratch,
    version,
    arch: ARCHES[arch]!,
    deadline,
    budgetEnd: deps.clock.now().getTime() + 60_000,
    trace,
  };
  try {
    const keyrings = keyring ? readKeyrings(deps, [keyring]) : keyringsFor(ctx, { signedBy: undefined });
    const fetcher = createFetcher(local, base, undefined, ctx.budgetEnd, trace);
    const found = await findInRelease({ ctx, fetcher, keyrings }, index, `${dir} ${HOTFIX_INDEX_DIR}`, ['Packages']);
    return { ...answer, listed: true, delta: typeof found.delta !== 'string' };
  } catch (error) {
    return { ...answer, listed: false, reason: `${isUnavailable(error) ? '' : 'INTEGRITY: '}${errorMessage(error)}` };
  } finally {
    scratch.remove();
    deps.fs.removeTree(root);
  }
}

// The rpm half of the fast path (docs/hotfix.md): the node's repositories in /etc/yum.repos.d ->
// repomd.xml verified by gpgv against the repository's gpgkey (repomd.xml.asc), not older than the newest
// already verified -> the primary index it pins by SHA-256 -> exactly our version, release, architecture
// -> the .rpm, checksum as pinned, own signature by rpmkeys -> the executable.
import { errorMessage } from '../../platform/errors.ts';
import { tryDelta } from '../delta/delta-path.ts';
import { DELTA_PACKAGE_NAME } from '../delta/manifest.ts';
import { openRpmDelta } from '../delta/package-files.ts';
import { parseOsReleaseField } from '../../platform/os-release.ts';
import { writeCandidate } from './candidate.ts';
import { bindingNames, type FastPathContext, HOTFIX_INDEX_DIR, repositoryPath, timed, timeLeft } from './context.ts';
import { compressionOf } from './decompress.ts';
import { integrityError, isUnavailable, unavailableError } from './errors.ts';
import { createFetcher, type Fetcher, SIZE_CAPS } from './fetcher.ts';
import { checkFreshness, recordFreshness } from './freshness.ts';
import { type Keyring, readKeyrings, verifyDetached } from './gpg.ts';
import { dnfProxy } from './proxy.ts';
import { fetchAndScanIndex } from './index-scan.ts';
import { PACKAGE_NAME } from './packages-index.ts';
import { findRpmEntry, parseRepomd, type RepoFile, type RpmEntry } from './repodata.ts';
import { rpmBinary, verifyRpmSignature } from './rpm-package.ts';
import { enabledRepos, parseIni, type YumRepo } from './yum-repo.ts';
import { repositoryBase, resolveUnder } from './url-rules.ts';

function readRepos(ctx: FastPathContext): { repos: YumRepo[]; mainProxy?: string } {
  const { deps } = ctx;
  const mainFile = [deps.paths.dnfConf, deps.paths.tdnfConf].find((f) => deps.fs.exists(f));
  const main = mainFile ? parseIni(deps.fs.readText(mainFile, 'packageConfig')).get('main') : undefined;
  const mainGpgcheck = main?.get('gpgcheck') === undefined ? true : main.get('gpgcheck') === '1';
  const releasever = parseOsReleaseField(deps.fs.readText(deps.paths.osRelease, 'osRelease'), 'VERSION_ID') ?? '';
  const vars = { basearch: ctx.arch.rpm, arch: ctx.arch.rpm, releasever };
  let names: string[];
  try {
    names = deps.fs
      .readdir(deps.paths.yumReposDir)
      .filter((n) => n.endsWith('.repo'))
      .sort();
  } catch (error) {
    throw unavailableError(`reading ${deps.paths.yumReposDir}: ${errorMessage(error)}`, error);
  }
  // The Microsoft repository first: that is where the agent's package is published.
  names.sort((a, b) => Number(b.startsWith('microsoft')) - Number(a.startsWith('microsoft')));
  const repos: YumRepo[] = [];
  for (const name of names) {
    const found = enabledRepos(deps.fs.readText(`${deps.paths.yumReposDir}/${name}`, 'packageConfig'), vars, mainGpgcheck);
    if (typeof found === 'string') deps.log.warn('skipping repository definition', { file: name, reason: found });
    else repos.push(...found);
  }
  if (repos.length === 0) throw unavailableError(`no enabled repository with a baseurl in ${deps.paths.yumReposDir}`);
  return { repos, mainProxy: main?.get('proxy') };
}

async function findInRepo(ctx: FastPathContext, repo: YumRepo, mainProxy: string | undefined) {
  const { deps, trace } = ctx;
  const base = repositoryBase(repo.baseurl);
  if (!base) throw unavailableError(`repository ${repo.id}: baseurl ${repo.baseurl} is not http(s)`);
  if (!repo.gpgcheck) throw unavailableError(`repository ${repo.id}: gpgcheck is off (nothing to verify the package against)`);
  const keyFiles = repo.gpgkeys.filter((k) => k.startsWith('file://')).map((k) => decodeURIComponent(k.slice('file://'.length)));
  if (keyFiles.length === 0) throw unavailableError(`repository ${repo.id}: no file:// gpgkey`);
  const keyrings = readKeyrings(deps, keyFiles);
  const fetcher = createFetcher(deps, base, dnfProxy(repo.proxy, mainProxy, base, deps.env), ctx.budgetEnd, trace);
  const located = { ctx, fetcher, keyrings };
  // The small signed hotfix index first (docs/hotfix.md "The hotfix index"), else the repository's own.
  const entry =
    (await fromHotfixIndex(located, new URL(`${HOTFIX_INDEX_DIR}/`, base), `${repo.baseurl} ${HOTFIX_INDEX_DIR}`, repo.id, repo.baseurl)) ??
    (await findInRepodata(located, base, repo.baseurl, repo.id));
  return { base, fetcher, keyFiles, entry: entry.found, delta: entry.delta };
}

interface Located {
  ctx: FastPathContext;
  fetcher: Fetcher;
  keyrings: Keyring[];
}

type Found = { found: RpmEntry; delta: RpmEntry | string };

/** Our packages in the primary index of the repodata under `mdBase`, verified by the node's keys and fresh. */
async function findInRepodata(
  { ctx, fetcher, keyrings }: Located,
  mdBase: URL,
  repository: string,
  id: string,
  binding?: string,
): Promise<Found> {
  const { deps } = ctx;
  const repomd = await timed(ctx, 'releaseMs', async () => {
    const xml = await fetcher.get(new URL('repodata/repomd.xml', mdBase), SIZE_CAPS.signedMetadata);
    const signature = await fetcher.get(new URL('repodata/repomd.xml.asc', mdBase), SIZE_CAPS.signedMetadata);
    await verifyDetached(deps, ctx.scratch, xml, signature, keyrings, `${mdBase}repodata/repomd.xml`, () => timeLeft(ctx));
    const parsed = parseRepomd(xml.toString('utf8'));
    if (typeof parsed === 'string') throw integrityError(parsed);
    // A hotfix index names its repository; checked before its date may move this repository's floor.
    if (binding !== undefined && !bindingNames(parsed.boundRepository, binding)) {
      const names =
        parsed.boundRepository === undefined
          ? 'no binding tag (published without one)'
          : JSON.stringify(parsed.boundRepository.slice(0, 200));
      throw unavailableError(
        `${mdBase}repodata/repomd.xml is not this repository's hotfix index: it names ${names}, this repository is ${JSON.stringify(repositoryPath(binding))} at ${JSON.stringify(new URL(binding).origin)}`,
      );
    }
    const date = parsed.revision !== undefined ? new Date(parsed.revision * 1000) : undefined;
    checkFreshness(deps, repository, `${mdBase}repodata/repomd.xml`, date, undefined);
    recordFreshness(deps, repository, date);
    return parsed;
  });
  return timed(ctx, 'indexMs', async () => {
    const xml = await readPrimary(ctx, fetcher, mdBase, repomd.primary);
    const found = findRpmEntry(xml, ctx.version, ctx.arch.rpm);
    if (typeof found === 'string') throw unavailableError(`repository ${id}: ${found}`);
    return { found, delta: findRpmEntry(xml, ctx.version, ctx.arch.rpm, DELTA_PACKAGE_NAME) };
  });
}

/**
 * The hotfix index: repodata of only our packages (their locations relative to the repository's
 * baseurl), signed with the repository's own key and checked exactly like it. Not published,
 * unreachable, or without our version: undefined (the caller reads the full index). A bad signature,
 * replayed or tampered metadata: an integrity failure, as anywhere.
 */
async function fromHotfixIndex(located: Located, mdBase: URL, repository: string, id: string, binding: string): Promise<Found | undefined> {
  try {
    return await findInRepodata(located, mdBase, repository, id, binding);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    located.ctx.deps.log.info('no usable hotfix index, reading the repository index', { index: `${mdBase}`, reason: error.message });
    return undefined;
  }
}

/** Fetches, verifies and extracts; returns the written candidate's path (not yet version-checked). */
export async function fetchRpmCandidate(ctx: FastPathContext): Promise<string> {
  const { repos, mainProxy } = await timed(ctx, 'sourceMs', () => readRepos(ctx));
  const misses: string[] = [];
  for (const repo of repos) {
    let found: Awaited<ReturnType<typeof findInRepo>>;
    try {
      found = await findInRepo(ctx, repo, mainProxy);
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      misses.push(error.message);
      continue;
    }
    // The delta package at the same version in the same verified index first (docs/hotfix.md).
    if (typeof found.delta !== 'string') {
      const candidate = await tryDelta(ctx, openRpmDelta(ctx, found.fetcher, found.base, found.keyFiles, found.delta));
      if (candidate) return candidate;
    } else ctx.deps.log.info('no delta package for this version, fetching the full package', { reason: found.delta });
    return fetchPackage(ctx, found);
  }
  throw unavailableError(misses.join('; '));
}

async function fetchPackage(
  ctx: FastPathContext,
  found: { base: URL; fetcher: ReturnType<typeof createFetcher>; keyFiles: string[]; entry: RpmEntry },
): Promise<string> {
  const { deps, scratch } = ctx;
  const { entry } = found;
  ctx.baseDigest?.cancel();
  const rpm = await timed(ctx, 'packageMs', async () => {
    const url = resolveUnder(found.base, entry.href);
    if (typeof url === 'string') throw integrityError(`package location ${url}`);
    const file = scratch.file('package.rpm');
    ctx.trace.packageBytes = await found.fetcher.download(url, SIZE_CAPS.package, { size: entry.size, sha256: entry.sha256 }, file);
    return file;
  });
  // The package's own signature (rpmkeys) is checked while the executable streams out of it: both read
  // the file whose SHA-256 the signed index pinned, on two cores. The candidate reaches the health gate
  // only once both succeeded; a refused signature wins over anything the extraction said.
  const identity = { name: PACKAGE_NAME, version: entry.version, release: entry.release, arch: ctx.arch.rpm };
  const [signature, extracted] = await Promise.allSettled([
    timed(ctx, 'signatureMs', () => verifyRpmSignature(deps, scratch, rpm, found.keyFiles, () => timeLeft(ctx))),
    timed(ctx, 'extractMs', () => writeCandidate(deps, scratch, (out) => rpmBinary(deps, rpm, identity, out, timeLeft(ctx)))),
  ]);
  if (signature.status === 'rejected') throw signature.reason;
  if (extracted.status === 'rejected') throw extracted.reason;
  return extracted.value;
}

/**
 * The <package> blocks of our packages in the primary index: fetched into the scratch directory and
 * checked against repomd's SHA-256 (and size) before a byte of it is decompressed, then scanned as a stream.
 */
async function readPrimary(ctx: FastPathContext, fetcher: ReturnType<typeof createFetcher>, base: URL, primary: RepoFile): Promise<string> {
  const url = resolveUnder(base, primary.href);
  if (typeof url === 'string') throw integrityError(`primary location ${url}`);
  const compression = compressionOf(primary.href);
  if (!compression) throw unavailableError(`primary index ${primary.href}: unknown compression`);
  return fetchAndScanIndex(ctx, fetcher, {
    url,
    what: primary.href,
    compression,
    expected: { size: primary.size, sha256: primary.sha256 },
    separator: '</package>',
    marker: `<name>${PACKAGE_NAME}`,
  });
}

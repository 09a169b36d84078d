// The apt half of the fast path (docs/hotfix.md): the node's Microsoft source -> InRelease verified by
// gpgv against its signed-by keyring (else apt's trusted keyrings), fresh -> the Packages index it signs
// -> exactly our version and architecture -> the .deb, size and SHA-256 as signed -> the executable.
import { errorMessage } from '../../platform/errors.ts';
import { tryDelta } from '../delta/delta-path.ts';
import { DELTA_PACKAGE_NAME } from '../delta/manifest.ts';
import { openDebDelta } from '../delta/package-files.ts';
import { chooseAptSource } from '../install.ts';
import { type AptSource, parseDeb822Sources, parseOneLineSources, releaseDirectory } from './apt-source.ts';
import { writeCandidate } from './candidate.ts';
import { bindingNames, type FastPathContext, HOTFIX_INDEX_DIR, repositoryPath, timed, timeLeft } from './context.ts';
import { debBinary } from './deb-package.ts';
import { canReadZstd } from './decompress.ts';
import { integrityError, isUnavailable, unavailableError } from './errors.ts';
import { createFetcher, type Expected, type Fetcher, SIZE_CAPS } from './fetcher.ts';
import { checkFreshness, recordFreshness } from './freshness.ts';
import { type Keyring, readKeyrings, verifyClearsigned } from './gpg.ts';
import { fetchAndScanIndex } from './index-scan.ts';
import { type DebEntry, findDebEntry, PACKAGE_NAME } from './packages-index.ts';
import { aptProxy } from './proxy.ts';
import { BINDING_FIELD, choosePackagesIndex, type Compression, parseRelease, type ReleaseFile } from '../../formats/release.ts';
import { repositoryBase, resolveUnder } from './url-rules.ts';

function readSource(ctx: FastPathContext): AptSource {
  const { deps } = ctx;
  let file: string;
  let text: string;
  try {
    file = chooseAptSource(deps.paths.aptSourcesDir, (p) => deps.fs.stat(p) !== undefined);
    text = deps.fs.readText(file, 'packageConfig');
  } catch (error) {
    throw unavailableError(`apt source: ${errorMessage(error)}`, error);
  }
  const parsed = file.endsWith('.sources') ? parseDeb822Sources(text) : parseOneLineSources(text);
  if (!parsed.ok) throw unavailableError(`${file}: ${parsed.problem}`);
  const entry = parsed.entries.find((e) => !e.architectures || e.architectures.includes(ctx.arch.deb));
  if (!entry) throw unavailableError(`${file}: no deb entry for ${ctx.arch.deb}`);
  if (entry.trusted) throw unavailableError(`${file}: trusted=yes (apt does not verify this source; nothing to verify against)`);
  return entry;
}

export function keyringsFor(ctx: FastPathContext, source: Pick<AptSource, 'signedBy'>): Keyring[] {
  const { deps } = ctx;
  if (source.signedBy?.embedded) return [{ origin: 'the Signed-By field', data: Buffer.from(source.signedBy.embedded) }];
  if (source.signedBy) return readKeyrings(deps, source.signedBy.files);
  const files = deps.fs.exists(deps.paths.aptTrustedKeyring) ? [deps.paths.aptTrustedKeyring] : [];
  if (deps.fs.stat(deps.paths.aptTrustedKeyringDir)?.isDirectory) {
    for (const name of deps.fs.readdir(deps.paths.aptTrustedKeyringDir).sort()) {
      if (name.endsWith('.gpg') || name.endsWith('.asc')) files.push(`${deps.paths.aptTrustedKeyringDir}/${name}`);
    }
  }
  if (files.length === 0)
    throw unavailableError(
      `no signed-by keyring and none of apt's trusted keyrings (${deps.paths.aptTrustedKeyring}, ${deps.paths.aptTrustedKeyringDir})`,
    );
  return readKeyrings(deps, files);
}

function aptConfTexts(ctx: FastPathContext): string[] {
  const { deps } = ctx;
  const texts: string[] = [];
  const main = deps.env.APT_CONFIG || deps.paths.aptConfig;
  if (deps.fs.exists(main)) texts.push(deps.fs.readText(main, 'packageConfig'));
  if (deps.fs.stat(deps.paths.aptConfDir)?.isDirectory) {
    for (const name of deps.fs.readdir(deps.paths.aptConfDir).sort())
      texts.push(deps.fs.readText(`${deps.paths.aptConfDir}/${name}`, 'packageConfig'));
  }
  return texts;
}

/** Fetches, verifies and extracts; returns the written candidate's path (not yet version-checked). */
export async function fetchAptCandidate(ctx: FastPathContext): Promise<string> {
  const { deps, trace } = ctx;
  const source = await timed(ctx, 'sourceMs', () => readSource(ctx));
  const base = repositoryBase(source.uri);
  if (!base) throw unavailableError(`apt source URI ${JSON.stringify(source.uri)} is not an http(s) URL`);
  const keyrings = keyringsFor(ctx, source);
  const proxy = aptProxy(aptConfTexts(ctx), base, deps.env);
  const fetcher = createFetcher(deps, base, proxy, ctx.budgetEnd, trace);
  const dir = new URL(releaseDirectory(source));
  const repository = `${source.uri} ${source.suite}`;
  const indices = { ctx, fetcher, keyrings };
  // The small signed hotfix index first (docs/hotfix.md "The hotfix index"), else the repository's own.
  const entry =
    (await fromHotfixIndex(indices, new URL(`${HOTFIX_INDEX_DIR}/`, dir), `${repository} ${HOTFIX_INDEX_DIR}`, {
      uri: source.uri,
      path: repositoryPath(source.uri),
      suite: source.suite,
    })) ??
    (await findInRelease(
      indices,
      dir,
      repository,
      source.components.length === 0 ? ['Packages'] : source.components.map((c) => `${c}/binary-${ctx.arch.deb}/Packages`),
    ));
  const poolBase = source.components.length === 0 ? dir : base;
  // The delta package at the same version in the same verified index first (docs/hotfix.md).
  if (typeof entry.delta !== 'string') {
    const candidate = await tryDelta(ctx, openDebDelta(ctx, fetcher, poolBase, entry.delta));
    if (candidate) return candidate;
  } else deps.log.info('no delta package for this version, fetching the full package', { reason: entry.delta });
  ctx.baseDigest?.cancel();
  const deb = await timed(ctx, 'packageMs', async () => {
    const url = resolveUnder(poolBase, entry.found.filename);
    if (typeof url === 'string') throw integrityError(`package Filename ${url}`);
    ctx.trace.packageBytes = entry.found.size;
    const file = ctx.scratch.file('package.deb');
    await fetcher.download(url, SIZE_CAPS.package, { size: entry.found.size, sha256: entry.found.sha256 }, file);
    return file;
  });
  const identity = { name: PACKAGE_NAME, version: ctx.version, arch: ctx.arch.deb };
  return timed(ctx, 'extractMs', () => writeCandidate(deps, ctx.scratch, (out) => debBinary(deps, deb, identity, out, timeLeft(ctx))));
}

export interface Indices {
  ctx: FastPathContext;
  fetcher: Fetcher;
  keyrings: Keyring[];
}

type Found = { found: DebEntry; delta: DebEntry | string };

/** Where a hotfix index must say it belongs (its binding), checked before its freshness. */
interface Binding {
  /** The source's URI: a binding with an origin must name its origin too (context.ts bindingNames). */
  uri: string;
  path: string;
  suite: string;
}

/**
 * `<dir>InRelease` verified by the node's keys, bound to this repository when `binding` is given (a hotfix
 * index), fresh, and only then recorded as seen for `repository`: another repository's index signed by
 * the same key never moves this one's replay floor (issue 34 R3-1/R3-2).
 */
async function verifiedRelease({ ctx, fetcher, keyrings }: Indices, dir: URL, repository: string, binding?: Binding): Promise<ReleaseFile> {
  return timed(ctx, 'releaseMs', async () => {
    const signed = await fetcher.get(new URL('InRelease', dir), SIZE_CAPS.signedMetadata);
    const text = await verifyClearsigned(ctx.deps, ctx.scratch, signed, keyrings, `${dir}InRelease`, () => timeLeft(ctx));
    const parsed = parseRelease(text);
    if (typeof parsed === 'string') throw integrityError(`${dir}InRelease: ${parsed}`);
    if (binding && (!bindingNames(parsed.boundRepository, binding.uri) || parsed.suite !== binding.suite)) {
      const names =
        parsed.boundRepository === undefined
          ? `no ${BINDING_FIELD} field (published without a binding)`
          : `repository ${JSON.stringify(parsed.boundRepository.slice(0, 200))} suite ${JSON.stringify((parsed.suite ?? '').slice(0, 64))}`;
      throw unavailableError(
        `${dir}InRelease is not this repository's hotfix index: it names ${names}, this source is ${JSON.stringify(binding.path)} suite ${JSON.stringify(binding.suite)}`,
      );
    }
    checkFreshness(ctx.deps, repository, `${dir}InRelease`, parsed.date, parsed.validUntil);
    recordFreshness(ctx.deps, repository, parsed.date);
    return parsed;
  });
}

/** Our stanzas from the first of `stems` (Packages indices the Release at `dir` lists) that has our version. */
export async function findInRelease(indices: Indices, dir: URL, repository: string, stems: string[], binding?: Binding): Promise<Found> {
  const { ctx, fetcher } = indices;
  const release = await verifiedRelease(indices, dir, repository, binding);
  return timed(ctx, 'indexMs', async () => {
    const misses: string[] = [];
    for (const stem of stems) {
      const index = choosePackagesIndex(release, stem, canReadZstd(ctx.deps));
      if (!index) {
        misses.push(`${stem} not listed in ${dir}InRelease`);
        continue;
      }
      const url = resolveUnder(dir, index.path);
      if (typeof url === 'string') throw integrityError(`index path ${url}`);
      const text = await readIndex(ctx, fetcher, url, index, release.sha256.get(index.path));
      const found = findDebEntry(text, ctx.version, ctx.arch.deb);
      if (typeof found !== 'string') return { found, delta: findDebEntry(text, ctx.version, ctx.arch.deb, DELTA_PACKAGE_NAME) };
      misses.push(found);
    }
    throw unavailableError(misses.join('; '));
  });
}

/**
 * The hotfix index: a flat repository of only our packages, signed with the repository's own key and
 * checked exactly like it. Not published, unreachable, or without our version: undefined (the caller
 * reads the full index). A bad signature, replayed or tampered metadata: an integrity failure, as anywhere.
 */
async function fromHotfixIndex(indices: Indices, dir: URL, repository: string, binding: Binding): Promise<Found | undefined> {
  try {
    return await findInRelease(indices, dir, repository, ['Packages'], binding);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    indices.ctx.deps.log.info('no usable hotfix index, reading the repository index', { index: `${dir}`, reason: error.message });
    return undefined;
  }
}

/**
 * The stanzas of our packages in a Packages index: fetched into the scratch directory and checked
 * against the signed size and SHA-256 before a byte of it is decompressed, then scanned as a stream.
 */
async function readIndex(
  ctx: FastPathContext,
  fetcher: Fetcher,
  url: URL,
  index: { path: string; compression: Compression },
  expected: Expected | undefined,
): Promise<string> {
  if (!expected) throw integrityError(`${index.path}: no size and SHA-256 in the signed Release`);
  return fetchAndScanIndex(ctx, fetcher, {
    url,
    what: index.path,
    compression: index.compression,
    expected,
    separator: '\n\n',
    marker: `Package: ${PACKAGE_NAME}`,
  });
}

// The delta step of the repository fast path (docs/hotfix.md "Delta packages"): tried after the signed
// index is verified and before the full package is fetched. The index names the delta package's size and
// sha256 like any other package; from it come the manifest and the one delta for our own base executable
// (the baked agent, identified by its sha256); the reconstruction must match the manifest's target.
// Answers: a candidate path (then D5 and the atomic switch run as for the full package), undefined (no
// delta for us, or any failure other than integrity: the caller fetches the full package), or a thrown
// integrity failure (final).
import { errorMessage, isAgentError } from '../../platform/errors.ts';
import { type FastPathContext, timed, timeLeft } from '../repository/context.ts';
import { INTEGRITY_STEP, integrityError } from '../repository/errors.ts';
import { expectedBinaryVersion } from '../../pointer/version.ts';
import { DELTA_DIR, deltaFor, MANIFEST_MAX_BYTES, MANIFEST_PATH, parseDeltaManifest } from './manifest.ts';
import { deltaUnavailableError, reconstructTarget } from './reconstruct.ts';

/** The delta package itself (fetch cap) and one delta inside it. */
export const DELTA_PACKAGE_MAX_BYTES = 16 * 1024 * 1024;
export const DELTA_MAX_BYTES = 16 * 1024 * 1024;
/** The unpacked payload of the delta package (tar or cpio). */
export const DELTA_PAYLOAD_MAX_BYTES = 64 * 1024 * 1024;

/** A file of the fetched, verified delta package by its path inside the package, or why it is not there. */
export type PackageFiles = (path: string, maxBytes: number) => Buffer | string;

/**
 * Reconstructs the target from our base when the delta package has an entry for it. `open` fetches the
 * delta package (verified against the signed index by the caller's fetcher) and unpacks its payload.
 */
export async function tryDelta(ctx: FastPathContext, open: () => Promise<PackageFiles>): Promise<string | undefined> {
  const { deps, trace } = ctx;
  try {
    const files = await timed(ctx, 'deltaFetchMs', open);
    const manifest = parseDeltaManifest(required(files, MANIFEST_PATH, MANIFEST_MAX_BYTES), {
      version: expectedBinaryVersion(ctx.version),
      architecture: ctx.arch.deb,
    });
    const base = await timed(ctx, 'baseDigestMs', () => baseDigest(ctx));
    return await timed(ctx, 'reconstructMs', () => {
      const entry = deltaFor(manifest, base.sha256);
      if (!entry) throw deltaUnavailableError(`the delta package has no delta for our executable (sha256 ${base.sha256})`);
      const delta = required(files, `${DELTA_DIR}/${entry.file}`, DELTA_MAX_BYTES);
      const candidate = ctx.scratch.file('candidate');
      reconstructTarget(deps, manifest, entry, delta, deps.paths.bakedBinary, candidate, 0o700, () => timeLeft(ctx));
      trace.path = 'delta';
      deps.log.info('rebuilt the hotfix executable from a delta', {
        base: base.sha256,
        deltaBytes: delta.length,
        target: manifest.target.sha256,
      });
      return candidate;
    });
  } catch (error) {
    if (isAgentError(error) && error.step === INTEGRITY_STEP) {
      trace.path = 'delta';
      throw error;
    }
    deps.log.warn('delta hotfix unavailable, fetching the full package', { reason: errorMessage(error) });
    return undefined;
  }
}

/** A file the manifest promises: its absence from the verified package is an integrity failure. */
function required(files: PackageFiles, path: string, maxBytes: number): Buffer {
  const found = files(path, maxBytes);
  if (typeof found === 'string') throw integrityError(`delta package: ${found}`);
  return found;
}

/** The sha256 of our own base executable: the baked agent the launcher runs download-hotfix with. */
function baseDigest(ctx: FastPathContext) {
  try {
    return ctx.baseDigest ? ctx.baseDigest.result() : ctx.deps.fs.sha256OfFile(ctx.deps.paths.bakedBinary);
  } catch (error) {
    throw deltaUnavailableError(`reading our executable ${ctx.deps.paths.bakedBinary}: ${errorMessage(error)}`, error);
  }
}

// The repository fast path's entry (docs/hotfix.md): tried first once the version is resolved and gated.
// It answers in one of three ways: staged (the verified executable is in place), an integrity failure
// (thrown, final: download-hotfix reports `integrityFailed` and tries nothing else), or a reason to fall
// back to the package manager. It gets at most half of what is left of the D4 deadline (and 120 s), so
// the fallback always keeps time of its own.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage, isAgentError } from '../../platform/errors.ts';
import { packageManagerFor } from '../install.ts';
import type { Deadline } from '../retry.ts';
import { verifyAndPromote } from './candidate.ts';
import { type FastPathContext, nodeArch, timed } from './context.ts';
import { INTEGRITY_STEP, isUnavailable } from './errors.ts';
import type { Trace } from './fetcher.ts';
import { createScratch } from './scratch.ts';

const MAX_BUDGET_MS = 120_000;

export type FastPathResult = { staged: true } | { staged: false; reason: string };

export async function tryRepositoryFastPath(deps: Deps, version: string, deadline: Deadline, trace: Trace): Promise<FastPathResult> {
  const arch = nodeArch();
  if (!arch) return { staged: false, reason: `no fast path for architecture ${process.arch}` };
  let osRelease: string;
  let pm: string;
  try {
    osRelease = deps.fs.readText(deps.paths.osRelease, 'osRelease');
    pm = packageManagerFor(osRelease, true);
  } catch (error) {
    return { staged: false, reason: errorMessage(error) };
  }
  const budgetEnd = deps.clock.now().getTime() + Math.min(MAX_BUDGET_MS, deadline.remainingMs() / 2);
  let scratch;
  try {
    scratch = createScratch(deps);
  } catch (error) {
    return { staged: false, reason: `creating the scratch directory: ${errorMessage(error)}` };
  }
  // Which delta is ours depends on our executable's sha256: it is hashed while the metadata is fetched
  // and verified, and the full package's path stops it. Unreadable here: the delta step reports it.
  let baseDigest;
  try {
    baseDigest = deps.fs.backgroundSha256(deps.paths.bakedBinary);
  } catch {
    baseDigest = undefined;
  }
  const ctx: FastPathContext = { deps, scratch, version, arch, deadline, budgetEnd, trace, baseDigest };
  try {
    // Loaded only here: the streams, decoders and archive readers are not on any other command's start-up.
    const candidate =
      pm === 'apt-get'
        ? await (await import('./apt-path.ts')).fetchAptCandidate(ctx)
        : await (await import('./rpm-path.ts')).fetchRpmCandidate(ctx);
    await timed(ctx, 'verifyMs', () => verifyAndPromote(deps, candidate, version, deadline));
    if (trace.path !== 'delta') trace.path = 'repository';
    return { staged: true };
  } catch (error) {
    // Integrity, staging and health-gate failures are final; anything else (unavailable, or a fault of our own) leaves
    // the node to its package manager, which verifies on its own terms.
    // A health-gate failure is final too: the package manager would install the same verified bytes.
    if (isAgentError(error) && (error.step === INTEGRITY_STEP || error.step === 'stageFailed' || error.step === 'healthCheckFailed')) {
      if (trace.path !== 'delta') trace.path = 'repository';
      throw error;
    }
    return {
      staged: false,
      reason: isUnavailable(error) ? error.message : `repository fast path: unexpected error: ${errorMessage(error)}`,
    };
  } finally {
    baseDigest?.cancel();
    scratch.remove();
  }
}

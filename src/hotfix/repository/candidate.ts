// The last steps every verified source shares (the full package today, a delta tomorrow): write the
// extracted executable as a candidate in the scratch directory, prove it reports exactly the resolved
// version (D5), then rename it over the staged hotfix binary with the baked binary's mode. Until that
// rename nothing is visible at the staged path; on any failure the scratch directory is removed whole.
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage, isAgentError } from '../../platform/errors.ts';
import type { Deadline } from '../retry.ts';
import { verifyInstalledBinary } from '../stage.ts';
import { expectedBinaryVersion } from '../version.ts';
import { integrityError } from './errors.ts';
import type { Scratch } from './scratch.ts';

/** Writes the candidate executable (0700, fsynced) and returns its path. */
export function writeCandidate(deps: Deps, scratch: Scratch, binary: Uint8Array): string {
  const path = scratch.file('candidate');
  deps.fs.atomicWrite(path, binary, { mode: 0o700 });
  return path;
}

/** D5 on the candidate, then the atomic switch into paths.hotfixBinary. */
export async function verifyAndPromote(deps: Deps, candidate: string, resolvedVersion: string, deadline: Deadline): Promise<void> {
  try {
    await verifyInstalledBinary(deps, candidate, expectedBinaryVersion(resolvedVersion), deadline);
  } catch (error) {
    if (isAgentError(error) && error.step === 'verifyFailed') throw integrityError(errorMessage(error), error);
    throw error;
  }
  const { bakedBinary, hotfixBinary } = deps.paths;
  try {
    const baked = deps.fs.stat(bakedBinary);
    deps.fs.chmod(candidate, baked ? baked.mode & 0o777 : 0o755);
    deps.fs.rename(candidate, hotfixBinary);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: ${errorMessage(error)}`, { step: 'stageFailed', cause: error });
  }
}

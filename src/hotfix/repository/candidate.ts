// The last steps every verified source shares (the full package, a delta): write the extracted
// executable as a candidate in the scratch directory, then hand it to the health gate, which moves it to
// the pending name, proves it reports exactly the resolved version (D5) and passes its dry-run self-test,
// and renames it over the staged hotfix binary. Until that rename nothing is visible at the staged path.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage, isAgentError } from '../../platform/errors.ts';
import type { Deadline } from '../retry.ts';
import { promoteWithHealthGate } from '../switch/gate.ts';
import { expectedBinaryVersion } from '../../pointer/version.ts';
import { integrityError } from './errors.ts';
import type { Scratch } from './scratch.ts';

/** Writes the candidate executable (0700, fsynced) and returns its path. */
export function writeCandidate(deps: Deps, scratch: Scratch, binary: Uint8Array): string {
  const path = scratch.file('candidate');
  deps.fs.atomicWrite(path, binary, { mode: 0o700 });
  return path;
}

/**
 * The health gate on the candidate. A verified package whose binary reports another version is an
 * integrity failure (the repository vouched for the wrong bytes), not a fallback case.
 */
export async function verifyAndPromote(deps: Deps, candidate: string, resolvedVersion: string, deadline: Deadline): Promise<void> {
  try {
    await promoteWithHealthGate(deps, candidate, expectedBinaryVersion(resolvedVersion), deadline, { moveCandidate: true });
  } catch (error) {
    if (isAgentError(error) && error.step === 'verifyFailed') throw integrityError(errorMessage(error), error);
    throw error;
  }
}

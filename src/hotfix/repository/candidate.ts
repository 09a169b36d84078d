// The last steps every verified source shares (the full package, a delta): write the extracted
// executable as a candidate in the scratch directory, then hand it to the health gate, which moves it to
// the pending name, proves it reports exactly the resolved version (D5) and passes its dry-run self-test,
// and renames it over the staged hotfix binary. Until that rename nothing is visible at the staged path.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage, isAgentError } from '../../platform/errors.ts';
import type { Deadline } from '../retry.ts';
import { promoteWithHealthGate } from '../switch/gate.ts';
import { expectedBinaryVersion } from '../../pointer/version.ts';
import type { FileOut } from '../../formats/archive-stream.ts';
import { integrityError } from './errors.ts';
import type { Scratch } from './scratch.ts';

/**
 * Creates the candidate (0600 while it is written), lets `fill` stream the executable into it, then makes
 * it 0700; on any failure it is removed. Returns its path.
 */
export async function writeCandidate(deps: Deps, scratch: Scratch, fill: (out: FileOut) => Promise<void>): Promise<string> {
  const path = scratch.file('candidate');
  // The package's digest already vouches for these bytes: no second sha256 over 113 MB. No fsync here:
  // verifyAndPromote syncs the candidate while the health gate runs it.
  const writer = deps.fs.createHashingWriter(path, 0o600, { hash: false, durable: false });
  try {
    await fill(writer);
    writer.close();
    deps.fs.chmod(path, 0o700);
    return path;
  } catch (error) {
    writer.discard();
    throw error;
  }
}

/**
 * The health gate on the candidate (written without fsync). Its fsync runs on a worker thread while the
 * gate runs the candidate, and completes before the promoting rename: the 113 MB flush and the two
 * start-ups overlap instead of adding up. A verified package whose binary reports another version is an
 * integrity failure (the repository vouched for the wrong bytes), not a fallback case.
 */
export async function verifyAndPromote(deps: Deps, candidate: string, resolvedVersion: string, deadline: Deadline): Promise<void> {
  const durable = deps.fs.syncFile(candidate);
  durable.catch(() => undefined); // awaited by the gate; a failure before that point must not go unhandled
  try {
    await promoteWithHealthGate(deps, candidate, expectedBinaryVersion(resolvedVersion), deadline, { moveCandidate: true, durable });
  } catch (error) {
    if (isAgentError(error) && error.step === 'verifyFailed') throw integrityError(errorMessage(error), error);
    throw error;
  }
}

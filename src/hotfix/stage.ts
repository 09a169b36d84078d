// Staging a copy beside the baked binary (spec 6.5 copyBinaryAlongside); the health gate (switch/gate.ts)
// stages the candidate under the pending name with it. The baked binary is never modified.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { TEMP_PREFIX } from '../platform/temp-files.ts';

/** Bound of `<binary> version` (D5 proof, health gate, fallback). */
export const VERIFY_TIMEOUT_MS = 5_000;
export const STAGE_TEMP_PREFIX = TEMP_PREFIX.hotfixBinary;

/** Atomic copy of src to dst with ref's permission bits (spec 6.5). Errors: `stage hotfix binary: ...`. */
export function copyBinaryAlongside(deps: Deps, src: string, dst: string, ref: string): void {
  const fail = (message: string, cause: unknown): never => {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: ${message}`, { step: 'stageFailed', cause });
  };
  let isFile = false;
  try {
    isFile = deps.fs.stat(src)?.isFile === true;
  } catch (error) {
    fail(`reading ${src}: ${errorMessage(error)}`, error);
  }
  if (!isFile) fail(`reading ${src}: no such regular file`, undefined);
  let mode = 0;
  try {
    const stat = deps.fs.stat(ref);
    if (!stat) return fail(`stat ${ref}: no such file or directory`, undefined);
    mode = stat.mode & 0o777;
  } catch (error) {
    fail(`stat ${ref}: ${errorMessage(error)}`, error);
  }
  try {
    // Copied by the kernel, never read into memory whole (a 113 MB executable).
    deps.fs.atomicCopy(src, dst, { mode, tempPrefix: STAGE_TEMP_PREFIX });
  } catch (error) {
    fail(`writing ${dst}: ${errorMessage(error)}`, error);
  }
}

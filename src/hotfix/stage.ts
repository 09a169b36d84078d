// After the package manager: prove the installed binary is the requested hotfix (D5), then stage a copy
// beside the baked binary (spec 6.5 copyBinaryAlongside). The baked binary is never modified.
import type { Deps } from '../platform/deps.ts';
import { definedEnv } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { TEMP_PREFIX } from '../platform/temp-files.ts';
import type { Deadline } from './retry.ts';
import { describeRun } from './retry.ts';

export const VERIFY_TIMEOUT_MS = 5_000;
export const STAGE_TEMP_PREFIX = TEMP_PREFIX.hotfixBinary;

/** Runs `<binary> version` (5 s bound) and requires it to print exactly `expected`. */
export async function verifyInstalledBinary(deps: Deps, binary: string, expected: string, deadline: Deadline): Promise<void> {
  const fail = (message: string): never => {
    throw new AgentError('ANC_HOTFIX', `verify hotfix binary: ${message}`, { step: 'verifyFailed' });
  };
  if (!deps.fs.exists(binary)) fail(`${binary} does not exist after the install`);
  const timeoutMs = Math.min(VERIFY_TIMEOUT_MS, deadline.remainingMs());
  if (timeoutMs <= 0) fail(`no time left of the ${deadline.seconds}s deadline to run ${binary} version`);
  const result = await deps.proc.run({ program: binary, args: ['version'], env: definedEnv(deps.env), timeoutMs, captureLimit: 4096 });
  const failure = describeRun(result, binary);
  if (failure) fail(`running ${binary} version: ${failure.message}`);
  const printed = result.stdout.replace(/\r?\n$/, '');
  if (printed !== expected) fail(`${binary} reports version ${JSON.stringify(printed)}, expected ${JSON.stringify(expected)}`);
}

/** Atomic copy of src to dst with ref's permission bits (spec 6.5). Errors: `stage hotfix binary: ...`. */
export function copyBinaryAlongside(deps: Deps, src: string, dst: string, ref: string): void {
  const fail = (message: string, cause: unknown): never => {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: ${message}`, { step: 'stageFailed', cause });
  };
  let data: Uint8Array = new Uint8Array();
  try {
    data = deps.fs.readFile(src, 'binary');
  } catch (error) {
    fail(`reading ${src}: ${errorMessage(error)}`, error);
  }
  let mode = 0;
  try {
    const stat = deps.fs.stat(ref);
    if (!stat) return fail(`stat ${ref}: no such file or directory`, undefined);
    mode = stat.mode & 0o777;
  } catch (error) {
    fail(`stat ${ref}: ${errorMessage(error)}`, error);
  }
  try {
    deps.fs.atomicWrite(dst, data, { mode, tempPrefix: STAGE_TEMP_PREFIX });
  } catch (error) {
    fail(`writing ${dst}: ${errorMessage(error)}`, error);
  }
}

// provision-wait (spec 5, D10): wait for the provision.complete sentinel with inotify (deps.fs.watchDir;
// no polling), then read and evaluate provision.json. The watch is registered before the existence
// check, so a sentinel created in between is never missed; a sentinel renamed into place also counts.
import { basename } from 'node:path';
import type { Deps } from '../platform/deps.ts';
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { pathError } from '../platform/path-error.ts';
import { evaluateProvisionJson } from './status.ts';
import { goText } from '../platform/go/utf8.ts';

export interface WaitOutcome {
  /** provision.json as decoded text ('' when it could not be read or was never reached). */
  output: string;
  /** provision.json's bytes exactly as read (N14: printed as they are; absent when not read). */
  raw?: Uint8Array;
  /** undefined on success, else the spec 5 error text. */
  error?: string;
}

type WaitDeps = Pick<Deps, 'fs' | 'paths'>;

/** Resolves when the sentinel exists; rejects (with a message string) on setup/watch errors or timeout. */
function waitForSentinel(deps: WaitDeps, timeoutMs: number | undefined): Promise<void> {
  const { fs, paths } = deps;
  const dir = paths.containersDir;
  const sentinel = paths.provisionComplete;
  const name = basename(sentinel);
  return new Promise((resolve, reject) => {
    try {
      fs.mkdirp(dir, 0o755);
    } catch (error) {
      return reject(`failed to create directory ${dir}: ${pathError('mkdir', dir, error)}`);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop: (() => void) | undefined;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      stop?.();
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = () => {
      try {
        if (fs.exists(sentinel)) finish();
      } catch (error) {
        finish(`error watching file: ${(error as Error).message}`);
      }
    };
    try {
      stop = fs.watchDir(
        dir,
        (fileName) => {
          // inotify reports both a create and a rename-into-place as an event for the name.
          if (fileName === name) check();
        },
        (error) => finish(`error watching file: ${error.message}`),
      );
    } catch (error) {
      return finish(`failed to watch directory: ${pathError('watch', dir, error)}`);
    }
    if (timeoutMs !== undefined) {
      const seconds = timeoutMs / 1000;
      timer = setTimeout(
        () => finish(`context deadline exceeded waiting for provision complete: ${sentinel} did not appear within ${seconds}s (--timeout)`),
        timeoutMs,
      );
    }
    check(); // fast path, after the watch is in place
  });
}

/** Reads and evaluates provision.json once the sentinel exists (spec 5). */
export function readAndEvaluate(deps: WaitDeps): WaitOutcome {
  const file = deps.paths.provisionJson;
  let output: string;
  let raw: Uint8Array;
  try {
    raw = deps.fs.readFile(file, 'status');
    output = goText(raw); // N7: the reference decodes it with encoding/json
  } catch (error) {
    return {
      output: '',
      error: `failed to read provision.json: ${pathError('open', file, error)}. One reason could be that AKSNodeConfig is not properly set`,
    };
  }
  const error = evaluateProvisionJson(output);
  // An empty or cut-off file is a crash or a full disk at write time: say so, with the file.
  const problem = error?.startsWith('parse provision.json: unexpected end') ? jsonSyntaxProblem(output) : undefined;
  return { output, raw, error: problem ? `${error}: ${file} is ${problem} (its writer crashed or the disk was full)` : error };
}

export async function waitForProvision(deps: WaitDeps, options: { timeoutMs?: number } = {}): Promise<WaitOutcome> {
  try {
    await waitForSentinel(deps, options.timeoutMs);
  } catch (error) {
    return { output: '', error: typeof error === 'string' ? error : String(error) };
  }
  return readAndEvaluate(deps);
}

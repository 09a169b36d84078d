// Child processes: every call has its own timeout and runs in its own process group, so a timeout
// kills the whole tree (a script's grandchildren included), not just the direct child.
import { fs, path } from './builtins.ts';
import { stderr, stdout } from './stdio.ts';

export interface RunSpec {
  program: string;
  args: string[];
  /** The complete environment of the child (nothing is inherited implicitly). */
  env: Record<string, string>;
  cwd?: string;
  /** 0 or undefined: no timeout. */
  timeoutMs?: number;
  /** Copy the child's stdout/stderr to ours while capturing them. */
  passthrough?: boolean;
  /** Bytes kept per stream (the tail is kept); default 16 MiB. */
  captureLimit?: number;
  signal?: AbortSignal;
}

export interface RunResult {
  /** The exit status, or null when the child was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started at all. */
  spawnError?: Error;
}

export interface ProcessRunner {
  run(spec: RunSpec): Promise<RunResult>;
  /** Looks a program up on a PATH string; undefined when not found. */
  which(name: string, pathEnv: string | undefined): string | undefined;
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

/** SIGTERM -> SIGKILL grace when a caller aborts (provision forwards a signal: the scripts may clean up). */
const ABORT_KILL_GRACE_MS = 2000;
/** SIGTERM -> SIGKILL grace at a deadline: short, so a deadline is overrun by well under a second. */
export const DEADLINE_KILL_GRACE_MS = 500;
/**
 * After the child exits, how long its pipes may stay open. A grandchild that left the group (setsid) and
 * holds stdout would otherwise keep the agent waiting for ever; after this the pipes are closed on our side.
 */
export const PIPE_DRAIN_MS = 300;

export function runProcess(spec: RunSpec): Promise<RunResult> {
  return new Promise((resolve) => {
    const limit = spec.captureLimit ?? 16 * 1024 * 1024;
    const out = new TailBuffer(limit);
    const err = new TailBuffer(limit);
    let timedOut = false;
    let settled = false;
    // Loaded here, not at start-up: most commands never spawn (node:child_process costs ~2 ms to load).
    const child = process.getBuiltinModule('node:child_process').spawn(spec.program, spec.args, {
      env: spec.env,
      cwd: spec.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const stop = (graceMs: number) => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), graceMs).unref();
    };
    const timer = spec.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          stop(DEADLINE_KILL_GRACE_MS);
        }, spec.timeoutMs)
      : undefined;
    const onAbort = () => stop(ABORT_KILL_GRACE_MS);
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      out.push(chunk);
      if (spec.passthrough) stdout.writeQueued(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (spec.passthrough) stderr.writeQueued(chunk);
    });
    const finish = (result: Omit<RunResult, 'stdout' | 'stderr' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, stdout: out.text(), stderr: err.text(), timedOut });
    };
    child.on('error', (error) => finish({ exitCode: null, signal: null, spawnError: error }));
    child.on('exit', (code, signal) => {
      // The direct child is gone; make sure nothing it started outlives it after a timeout.
      if (timedOut) killGroup('SIGKILL');
      // Normally 'close' follows at once; when something else still holds the pipes, stop reading them.
      setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish({ exitCode: code, signal });
      }, PIPE_DRAIN_MS).unref();
    });
    child.on('close', (code, signal) => finish({ exitCode: code, signal }));
  });
}

export function which(name: string, pathEnv: string | undefined): string | undefined {
  if (name.includes('/')) return name;
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (!fs.statSync(candidate).isFile()) continue;
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function createRealProcessRunner(): ProcessRunner {
  return { run: runProcess, which };
}

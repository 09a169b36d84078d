// Child processes: every call has its own timeout and runs in its own process group, so a timeout
// kills the whole tree (a script's grandchildren included), not just the direct child.
import type { Readable, Writable } from 'node:stream';
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
  /** Piped into the child's stdin (a decoder tool's input); otherwise stdin is /dev/null. */
  stdin?: Readable;
  /**
   * Receives the child's stdout instead of the capture, counted: past `maxStdoutBytes` the whole group is
   * killed at once and `outputCapped` is set, so a tool never produces more than the cap.
   */
  stdoutSink?: Writable;
  maxStdoutBytes?: number;
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
  /** stdoutSink only: the child wrote more than maxStdoutBytes and was killed. */
  outputCapped?: boolean;
  /** stdoutSink only: the sink (or the stdin source) failed; the child was killed. */
  streamError?: Error;
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
      stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
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
    const streamed = spec.stdoutSink ? streamStdout(child.stdout!, spec, () => killGroup('SIGKILL')) : undefined;
    if (spec.stdin) feedStdin(spec.stdin, child.stdin!, streamed, () => killGroup('SIGKILL'));
    if (!streamed) {
      child.stdout!.on('data', (chunk: Buffer) => {
        out.push(chunk);
        if (spec.passthrough) stdout.writeQueued(chunk);
      });
    }
    child.stderr!.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (spec.passthrough) stderr.writeQueued(chunk);
    });
    const finish = (result: Omit<RunResult, 'stdout' | 'stderr' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      const done = () => resolve({ ...result, ...streamed?.state, stdout: out.text(), stderr: err.text(), timedOut });
      if (streamed) void streamed.done.then(done);
      else done();
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

interface StreamedStdout {
  done: Promise<void>;
  state: { outputCapped?: boolean; streamError?: Error };
}

/**
 * stdout -> byte counter -> sink, with backpressure (no stream library: this module is on every command's
 * start-up). Past the cap, or on a sink error, the group is killed; `done` settles once the sink has
 * finished or failed.
 */
function streamStdout(childOut: Readable, spec: RunSpec, kill: () => void): StreamedStdout {
  const state: StreamedStdout['state'] = {};
  const sink = spec.stdoutSink!;
  const max = spec.maxStdoutBytes ?? Number.POSITIVE_INFINITY;
  let bytes = 0;
  const done = new Promise<void>((resolve) => {
    let ended = false;
    const fail = (error: Error) => {
      if (!state.outputCapped && !state.streamError) state.streamError = error;
      kill();
      childOut.destroy();
      sink.destroy();
      resolve();
    };
    sink.on('error', fail);
    sink.on('finish', () => resolve());
    sink.on('close', () => resolve());
    childOut.on('data', (chunk: Buffer) => {
      if (ended) return;
      bytes += chunk.length;
      if (bytes > max) {
        ended = true;
        state.outputCapped = true;
        return fail(new RangeError(`${spec.program} wrote more than ${max} bytes`));
      }
      if (!sink.write(chunk)) {
        childOut.pause();
        sink.once('drain', () => childOut.resume());
      }
    });
    childOut.on('end', () => {
      if (ended) return;
      ended = true;
      sink.end();
    });
    childOut.on('close', () => {
      if (ended) return;
      ended = true;
      fail(new Error(`${spec.program}: stdout closed before its end`));
    });
    childOut.on('error', (error: Error) => {
      if (ended) return;
      ended = true;
      fail(error);
    });
  });
  return { done, state };
}

function feedStdin(source: Readable, stdin: Writable, streamed: StreamedStdout | undefined, kill: () => void): void {
  // A child that stops reading (it failed, or was killed at the cap) closes the pipe: not our fault.
  stdin.on('error', () => undefined);
  source.on('error', (error: Error) => {
    if (streamed && !streamed.state.streamError) streamed.state.streamError = error;
    kill();
  });
  source.pipe(stdin);
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

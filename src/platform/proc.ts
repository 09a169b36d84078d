// Child processes: every call has its own timeout and runs in its own process group, so a timeout
// kills the whole tree (a script's grandchildren included), not just the direct child.
import { fs, path } from './builtins.ts';
import { AgentError } from './errors.ts';
import { goText, MARSHAL_INVALID_BYTE } from './go/utf8.ts'; // N13
import { randomTempSuffix } from './fs.ts';
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
  goMarshalBytes?: boolean; // captured text marks invalid UTF-8 bytes for goJson's per-byte `\ufffd` (N13)
  signal?: AbortSignal;
  /**
   * An open file descriptor the child reads as its stdin from that descriptor's current offset (a package
   * member, no byte through JavaScript); otherwise stdin is /dev/null.
   */
  stdin?: number;
  /**
   * Receives the child's stdout instead of the capture. It arrives through a FIFO made (and unlinked at
   * once) in `fifoDir` and is read into one reused buffer, so a long stream allocates nothing per chunk
   * (a 113 MB executable streamed through pipe chunks left tens of MiB to the collector). Counted: past
   * `maxStdoutBytes` the whole group is killed at once and `outputCapped` is set.
   */
  stdoutSink?: ByteSink;
  /** A private directory for the stdout FIFO; required with stdoutSink. */
  fifoDir?: string;
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
  /** stdoutSink only: the sink failed; the child was killed. */
  streamError?: Error;
}

/** Takes a stream's bytes synchronously. `chunk` is valid only during the call: the buffer is reused. */
export interface ByteSink {
  write(chunk: Uint8Array): void;
  /** The stream ended whole (not called after a failure or at the cap). */
  end?(): void;
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
  text(goMarshalBytes = false): string {
    const all = Buffer.concat(this.chunks).subarray(-this.limit);
    return goMarshalBytes ? goText(all, MARSHAL_INVALID_BYTE) : all.toString('utf8');
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
    let fifo: Fifo | undefined;
    try {
      fifo = spec.stdoutSink ? openFifo(spec.fifoDir!) : undefined;
    } catch (error) {
      resolve({ exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: error as Error });
      return;
    }
    const stdin = spec.stdin ?? 'ignore';
    let child: import('node:child_process').ChildProcess;
    try {
      // Loaded here, not at start-up: most commands never spawn (node:child_process costs ~2 ms to load).
      child = process.getBuiltinModule('node:child_process').spawn(spec.program, spec.args, {
        env: spec.env,
        cwd: spec.cwd,
        stdio: [stdin, fifo ? fifo.write : 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      if (fifo) fs.closeSync(fifo.read);
      throw error;
    } finally {
      // The child holds its own copy: once every writer has exited, our reader sees the end.
      if (fifo) fs.closeSync(fifo.write);
    }
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
    const streamed = fifo ? pumpFifo(fifo.read, spec, () => killGroup('SIGKILL')) : undefined;
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
      const done = () =>
        resolve({ ...result, ...streamed?.state, stdout: out.text(spec.goMarshalBytes), stderr: err.text(spec.goMarshalBytes), timedOut });
      if (streamed) void streamed.done.then(done);
      else done();
    };
    child.on('error', (error) => finish({ exitCode: null, signal: null, spawnError: error }));
    child.on('exit', (code, signal) => {
      // The direct child is gone; make sure nothing it started outlives it after a timeout.
      if (timedOut) killGroup('SIGKILL');
      // Normally 'close' follows at once; when something else still holds the pipes, stop reading them.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr!.destroy();
        streamed?.abandon(`the output stayed open ${PIPE_DRAIN_MS} ms after ${spec.program} exited (a process it left holds it)`);
        finish({ exitCode: code, signal });
      }, PIPE_DRAIN_MS).unref();
    });
    child.on('close', (code, signal) => finish({ exitCode: code, signal }));
  });
}

/** The name of RunResult.streamError when the stream was abandoned after the child exited. */
export const STREAM_ABANDONED = 'StreamAbandoned';

interface StreamedStdout {
  done: Promise<void>;
  state: { outputCapped?: boolean; streamError?: Error };
  /** Stops waiting for the end of the stream (it stays incomplete). */
  abandon(why: string): void;
}

interface Fifo {
  read: number;
  write: number;
}

/** A FIFO's two ends, opened without waiting for each other; the name is gone before this returns. */
function openFifo(dir: string): Fifo {
  const file = path.join(dir, `stdout-${randomTempSuffix()}.fifo`);
  const made = process.getBuiltinModule('node:child_process').spawnSync('mkfifo', ['-m', '600', file], { stdio: 'ignore' });
  if (made.status !== 0)
    throw new AgentError('ANC_IO', `mkfifo ${file}: ${made.error?.message ?? `exit status ${made.status}`}`, { cause: made.error });
  try {
    const { O_RDONLY, O_WRONLY, O_NONBLOCK } = fs.constants;
    // A non-blocking reader first: then the blocking writer opens at once, and so does the blocking reader.
    const probe = fs.openSync(file, O_RDONLY | O_NONBLOCK);
    try {
      const write = fs.openSync(file, O_WRONLY);
      try {
        return { read: fs.openSync(file, O_RDONLY), write };
      } catch (error) {
        fs.closeSync(write);
        throw error;
      }
    } finally {
      fs.closeSync(probe);
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
}

// A FIFO holds 64 KiB (the pipe default): no read returns more.
const FIFO_READ_BYTES = 64 * 1024;

/**
 * FIFO -> byte counter -> sink, one buffer for the whole stream. Reads are asynchronous, so the timeout
 * still fires while a child is slow; past the cap, or when the sink throws, the group is killed. `done`
 * settles at the end of the stream (every writer gone) or at the first failure.
 */
function pumpFifo(fd: number, spec: RunSpec, kill: () => void): StreamedStdout {
  const state: StreamedStdout['state'] = {};
  const sink = spec.stdoutSink!;
  const max = spec.maxStdoutBytes ?? Number.POSITIVE_INFINITY;
  const buffer = Buffer.allocUnsafe(FIFO_READ_BYTES);
  // Once closed, the descriptor's number may belong to another file: never woken then.
  let [abandoned, closed] = [false, false];
  const read = () =>
    new Promise<number>((resolve, reject) =>
      fs.read(fd, buffer, 0, buffer.length, null, (error, n) => (error ? reject(error) : resolve(n))),
    );
  const done = (async () => {
    let bytes = 0;
    try {
      for (let n = await read(); n > 0 && !abandoned; n = await read()) {
        bytes += n;
        if (bytes > max) {
          state.outputCapped = true;
          kill();
          return;
        }
        sink.write(buffer.subarray(0, n));
      }
      if (!abandoned) sink.end?.();
    } catch (error) {
      state.streamError = error as Error;
      kill();
    } finally {
      closed = true;
      fs.closeSync(fd);
    }
  })();
  // Bounded like the pipes (R3-3): a process the child left holding the FIFO must not keep us waiting. The
  // stream stays incomplete (no end()); a blocked read is woken by one byte written through /proc/self/fd.
  const abandon = (why: string) => {
    if (abandoned || closed) return;
    abandoned = true;
    state.streamError ??= Object.assign(new Error(why), { name: STREAM_ABANDONED });
    try {
      const wake = fs.openSync(`/proc/self/fd/${fd}`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      fs.writeSync(wake, Buffer.from([0]));
      fs.closeSync(wake);
    } catch {} // no /proc: nothing to wake
  };
  return { done, state, abandon };
}

/** This process's peak resident memory so far, in KiB (getrusage: its children are not counted). */
export function ownPeakRssKiB(): number {
  return process.resourceUsage().maxRSS;
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

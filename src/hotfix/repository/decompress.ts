// Decompression as a stream with an output bound: compressed bytes in, every decoded byte through a
// counter into the caller's sink (a tar/cpio reader writing the executable, an index scanner, a bounded
// collector). Nothing is ever written whole to disk or held whole in memory before the cap is checked.
// Each format goes through its tool when it is on PATH (`gzip`, `zstd`, `xz`: on every node image): the
// tool reads the file in place and its output comes back through a FIFO into one buffer, so the agent
// neither loads node:zlib and node:stream (about 7 MiB resident in bun) nor makes garbage per chunk. A
// tool runs `-d -c`, killed at the cap and at min(its own bound, the time the caller has left). Without
// the tool: gzip in-process (node:zlib), zstd through bun's streaming decoder; xz needs its tool (no
// JavaScript runtime here ships LZMA). The `zstd` tool is also about twice as fast as bun's decoder on
// the 113 MB executable (docs/hotfix.md).
import type { Readable, Transform, Writable } from 'node:stream';
import { fs, path } from '../../platform/builtins.ts';
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { isAgentError } from '../../platform/errors.ts';
import { randomTempSuffix } from '../../platform/fs.ts';
import { openPositionalReader, readRange } from '../../platform/file-stream.ts';
import { type ByteSink, type RunResult, STREAM_ABANDONED } from '../../platform/proc.ts';
import { describeRun } from '../retry.ts';
import { integrityError, unavailableError } from './errors.ts';
import type { Compression } from '../../formats/release.ts';

/** A decoder tool's own bound; the caller's time left lowers it. */
export const TOOL_TIMEOUT_MS = 120_000;

type Zlib = typeof import('node:zlib') & { createZstdDecompress?: () => Transform };
/** node:zlib, loaded only when a format has to be decoded in-process. */
const zlib = () => process.getBuiltinModule('node:zlib') as Zlib;

/** Whether this runtime decodes zstd in-process (bun does; Node 20 does not). Loads node:zlib: ask last. */
export function hasInProcessZstd(): boolean {
  return typeof zlib().createZstdDecompress === 'function';
}

/** Whether zstd data can be read here at all: the tool, else the runtime. */
export function canReadZstd(deps: Deps): boolean {
  return deps.proc.which('zstd', deps.env.PATH) !== undefined || hasInProcessZstd();
}

/** The compression of a file name's suffix (`data.tar.zst`, `Packages.gz`, `primary.xml.zst`). */
export function compressionOf(name: string): Compression | undefined {
  if (name.endsWith('.zst') || name.endsWith('.zstd')) return 'zst';
  if (name.endsWith('.gz')) return 'gz';
  if (name.endsWith('.xz')) return 'xz';
  return /\.(tar|xml|cpio)$|Packages$/.test(name) ? 'none' : undefined;
}

class CapExceeded extends RangeError {}

/** Where the compressed bytes are: a range of a file, read in place. */
export interface DecodeInput {
  file: string;
  offset: number;
  length: number;
}

export interface DecodeSpec {
  compression: Compression;
  input: DecodeInput;
  sink: ByteSink;
  /** A private directory (the fast path's scratch): a decoder tool's output comes through a FIFO made there. */
  scratchDir: string;
  maxBytes: number;
  /** Names the data in errors (`data.tar`, `Packages.gz`). */
  what: string;
  /** What the caller has left (fast-path budget and deadline); a tool gets min(its bound, this). */
  timeoutMs: number;
}

export async function decode(deps: Deps, spec: DecodeSpec): Promise<void> {
  if (spec.timeoutMs <= 0) throw unavailableError(`no time left to unpack ${spec.what}`);
  if (spec.compression === 'none') return copyRange(spec.input, spec.sink, spec.maxBytes, spec.what);
  const tool = TOOLS[spec.compression];
  if (deps.proc.which(tool, deps.env.PATH)) return decodeWithTool(deps, tool, spec);
  if (spec.compression === 'xz') throw unavailableError(`xz: not found on PATH, cannot unpack ${spec.what}`);
  return decodeInProcess(spec);
}

const TOOLS = { gz: 'gzip', zst: 'zstd', xz: 'xz' } as const;
type Tool = (typeof TOOLS)[keyof typeof TOOLS];

/** gzip (node:zlib) or zstd (bun's decoder) in-process, for a node without the tool. */
async function decodeInProcess(spec: DecodeSpec): Promise<void> {
  const { compression, what, maxBytes } = spec;
  const { Transform, Writable } = process.getBuiltinModule('node:stream');
  const { pipeline } = process.getBuiltinModule('node:stream/promises');
  const decoder = compression === 'gz' ? zlib().createGunzip() : zlib().createZstdDecompress?.();
  if (!decoder) throw unavailableError(`zstd: not found on PATH and not in this runtime, cannot unpack ${what}`);
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      callback(seen > maxBytes ? new CapExceeded() : null, chunk);
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        spec.sink.write(chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    final(callback) {
      try {
        spec.sink.end?.();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  const input: Readable = readRange(spec.input.file, spec.input.offset, spec.input.length);
  try {
    await pipeline([input, decoder, counter, sink] as [Readable, Transform, Transform, Writable], {
      signal: AbortSignal.timeout(spec.timeoutMs),
    });
  } catch (error) {
    if (error instanceof CapExceeded) throw integrityError(`${what} unpacks to more than the ${maxBytes}-byte limit`);
    if (isAgentError(error)) throw error;
    if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError')
      throw unavailableError(`unpacking ${what}: no answer within the time left (${Math.round(spec.timeoutMs)} ms)`);
    throw integrityError(`${what}: unreadable ${compression} data (${(error as Error).message})`, error);
  }
}

/** An uncompressed range of a file, through one reused buffer. */
function copyRange(input: { file: string; offset: number; length: number }, sink: ByteSink, maxBytes: number, what: string): void {
  if (input.length > maxBytes) throw integrityError(`${what} is more than the ${maxBytes}-byte limit`);
  const reader = openPositionalReader(input.file);
  try {
    const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, input.length));
    for (let done = 0; done < input.length; ) {
      const n = Math.min(buffer.length, input.length - done);
      reader.readInto(buffer, 0, input.offset + done, n);
      sink.write(buffer.subarray(0, n));
      done += n;
    }
    sink.end?.();
  } finally {
    reader.close();
  }
}

const COPY_CHUNK = 1024 * 1024;

/**
 * A file range goes to the tool as its stdin descriptor, positioned at the range (no byte passes through
 * JavaScript); a range that stops short of the end of the file (a .deb member followed by ar padding) is
 * cut by `head -c` in front of the tool. Memory stays flat: the output comes back through a FIFO.
 */
async function decodeWithTool(deps: Deps, program: Tool, spec: DecodeSpec): Promise<void> {
  const { input } = spec;
  const fd = openAt(input.file, input.offset);
  try {
    // Found on PATH by the caller: behind `sh` a missing tool would look like a failed decode.
    const size = deps.fs.stat(input.file)?.size ?? 0;
    const command =
      input.offset + input.length < size
        ? { program: 'sh', args: ['-c', 'head -c "$0" | exec "$1" -d -c -q', String(input.length), program] }
        : { program, args: ['-d', '-c', '-q'] };
    const result = await deps.proc.run({
      ...command,
      env: definedEnv(deps.env),
      timeoutMs: Math.min(TOOL_TIMEOUT_MS, spec.timeoutMs),
      captureLimit: 16 * 1024,
      stdin: fd,
      stdoutSink: spec.sink,
      fifoDir: spec.scratchDir,
      maxStdoutBytes: spec.maxBytes,
    });
    judgeTool(program, spec, result);
  } finally {
    fs.closeSync(fd);
  }
}

function judgeTool(program: string, spec: DecodeSpec, result: RunResult): void {
  if (result.spawnError) throw unavailableError(`${program}: ${describeRun(result, program)!.message}`);
  if (result.outputCapped) throw integrityError(`${spec.what} unpacks to more than the ${spec.maxBytes}-byte limit`);
  if (result.streamError && isAgentError(result.streamError)) throw result.streamError;
  if (result.timedOut)
    throw unavailableError(
      `unpacking ${spec.what}: ${program} gave no answer within ${Math.round(Math.min(TOOL_TIMEOUT_MS, spec.timeoutMs))} ms`,
    );
  // Killed from outside (an OOM kill, a signal): a fault of this node, not of the signed bytes (R3-12).
  if (result.streamError?.name === STREAM_ABANDONED) throw unavailableError(`unpacking ${spec.what}: ${result.streamError.message}`);
  if (result.signal && result.signal !== 'SIGPIPE') {
    throw unavailableError(`unpacking ${spec.what}: ${program} was killed by ${result.signal} (a local fault, not the data)`);
  }
  const failure = describeRun(result, program);
  if (failure || result.streamError) {
    const detail = failure ? `${failure.message} ${result.stderr.trim()}` : result.streamError!.message;
    throw integrityError(`${spec.what}: ${program} -d failed: ${detail.trim()}`);
  }
}

/** A sink keeping a copy of everything it gets (callers bound it through `decode`'s cap). */
export function collector(): { sink: ByteSink; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return { sink: { write: (chunk) => void chunks.push(Buffer.from(chunk)) }, bytes: () => Buffer.concat(chunks) };
}

/** Where a decoder tool may make its FIFO, and the time the caller has left. */
export type ToolContext = Pick<DecodeSpec, 'scratchDir' | 'timeoutMs'>;

/**
 * Small verified data (a control.tar, a delta package's payload) decoded into memory, bounded. The bytes go
 * to a file in the scratch directory first, so they are decoded like any package member.
 */
export async function decodeBytes(deps: Deps, spec: Omit<DecodeSpec, 'input' | 'sink'> & { bytes: Uint8Array }): Promise<Buffer> {
  const { bytes, ...rest } = spec;
  const file = path.join(spec.scratchDir, `decode-${randomTempSuffix()}`);
  fs.writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
  try {
    const out = collector();
    await decode(deps, { ...rest, input: { file, offset: 0, length: bytes.length }, sink: out.sink });
    return out.bytes();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The file open for reading at `offset` (read forward to it: members start a few KiB into a package). */
function openAt(file: string, offset: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const skip = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(1, offset)));
    for (let left = offset; left > 0; ) {
      const n = fs.readSync(fd, skip, 0, Math.min(skip.length, left), null);
      if (n === 0) throw integrityError(`${file}: shorter than ${offset} bytes`);
      left -= n;
    }
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

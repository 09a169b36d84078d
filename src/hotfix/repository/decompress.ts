// Decompression as a stream with an output bound: compressed bytes in, every decoded byte through a
// counter into the caller's sink (a tar/cpio reader writing the executable, an index scanner, a bounded
// collector). Nothing is ever written whole to disk or held whole in memory before the cap is checked.
// zstd through the `zstd` tool when it is on PATH (about twice as fast as bun's in-process decoder on the
// 113 MB executable, docs/hotfix.md), else bun's streaming decoder. xz through the `xz` tool (no
// JavaScript runtime here ships LZMA). gzip in-process (node:zlib), a large file through `gzip`. A tool
// runs `-d -c` reading the file in place, its output through a FIFO, killed at the cap and at min(its own
// bound, the time the caller has left).
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { fs } from '../../platform/builtins.ts';
import type { Deps } from '../../platform/deps.ts';
import { openPositionalReader, readRange } from '../../platform/file-stream.ts';
import type { ByteSink, RunResult } from '../../platform/proc.ts';
import { definedEnv } from '../../platform/deps.ts';
import { isAgentError } from '../../platform/errors.ts';
import { describeRun } from '../retry.ts';
import { integrityError, unavailableError } from './errors.ts';
import type { Compression } from '../../formats/release.ts';

/** A decoder tool's own bound; the caller's time left lowers it. */
export const TOOL_TIMEOUT_MS = 120_000;

type ZstdStream = () => Transform;
const inProcessZstd = (zlib as unknown as { createZstdDecompress?: ZstdStream }).createZstdDecompress;

export const HAS_IN_PROCESS_ZSTD = typeof inProcessZstd === 'function';

/** The compression of a file name's suffix (`data.tar.zst`, `Packages.gz`, `primary.xml.zst`). */
export function compressionOf(name: string): Compression | undefined {
  if (name.endsWith('.zst') || name.endsWith('.zstd')) return 'zst';
  if (name.endsWith('.gz')) return 'gz';
  if (name.endsWith('.xz')) return 'xz';
  return /\.(tar|xml|cpio)$|Packages$/.test(name) ? 'none' : undefined;
}

class CapExceeded extends RangeError {}

/** Passes bytes through and fails the stream once more than `maxBytes` went by. */
function counter(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      callback(seen > maxBytes ? new CapExceeded() : null, chunk);
    },
  });
}

/** Where the compressed bytes are: a range of a file (read in place), or small data in memory. */
export type DecodeInput = { file: string; offset: number; length: number } | { bytes: Uint8Array };

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
  const { compression, what, maxBytes } = spec;
  if (spec.timeoutMs <= 0) throw unavailableError(`no time left to unpack ${what}`);
  if (toolFor(deps, spec)) return decodeWithTool(deps, toolFor(deps, spec)!, spec);
  if (compression === 'none' && 'file' in spec.input) return copyRange(spec.input, spec.sink, maxBytes, what);
  const decoder = compression === 'gz' ? zlib.createGunzip() : compression === 'zst' ? inProcessZstd!() : undefined;
  const input =
    'file' in spec.input
      ? readRange(spec.input.file, spec.input.offset, spec.input.length)
      : Readable.from([Buffer.from(spec.input.bytes)]);
  const stages: Array<Readable | Transform | Writable> = [input, ...(decoder ? [decoder] : []), counter(maxBytes), writableOf(spec.sink)];
  try {
    await pipeline(stages as [Readable, ...Transform[], Writable], { signal: AbortSignal.timeout(spec.timeoutMs) });
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

/** A stream stage around a ByteSink (the in-process decoders are Node streams). */
function writableOf(sink: ByteSink): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        sink.write(chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    final(callback) {
      try {
        sink.end?.();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

/**
 * A file range goes to the tool as its stdin descriptor, positioned at the range (no byte passes through
 * JavaScript); a range that stops short of the end of the file (a .deb member followed by ar padding) is
 * cut by `head -c` in front of the tool. Memory stays flat: the output comes back through a FIFO.
 */
/** A gzip file at least this large goes through the `gzip` tool too (a whole Packages.gz index). */
const LARGE_GZIP = 256 * 1024;

type Tool = 'xz' | 'zstd' | 'gzip';

/**
 * xz always through its tool; zstd through its tool when on PATH; gzip through its tool only for a large
 * file (node:zlib's stream chunks become garbage; a small hotfix index is cheaper in-process).
 */
function toolFor(deps: Deps, spec: DecodeSpec): Tool | undefined {
  const { compression, input } = spec;
  if (compression === 'xz') return 'xz';
  if (compression === 'zst' && (deps.proc.which('zstd', deps.env.PATH) || !inProcessZstd)) return 'zstd';
  if (compression === 'gz' && 'file' in input && input.length >= LARGE_GZIP && deps.proc.which('gzip', deps.env.PATH)) return 'gzip';
  return undefined;
}

async function decodeWithTool(deps: Deps, program: Tool, spec: DecodeSpec): Promise<void> {
  const { input } = spec;
  let fd: number | undefined;
  let command = { program: program as string, args: ['-d', '-c', '-q'] };
  // Checked here: behind `sh` a missing tool would look like a failed decode, not an unavailable one.
  if (!deps.proc.which(program, deps.env.PATH)) throw unavailableError(`${program}: not found on PATH, cannot unpack ${spec.what}`);
  try {
    if ('file' in input) {
      fd = openAt(input.file, input.offset);
      const size = deps.fs.stat(input.file)?.size ?? 0;
      if (input.offset + input.length < size)
        command = { program: 'sh', args: ['-c', 'head -c "$0" | exec "$1" -d -c -q', String(input.length), program] };
    }
    const result = await deps.proc.run({
      ...command,
      env: definedEnv(deps.env),
      timeoutMs: Math.min(TOOL_TIMEOUT_MS, spec.timeoutMs),
      captureLimit: 16 * 1024,
      stdin: fd ?? Readable.from([Buffer.from((input as { bytes: Uint8Array }).bytes)]),
      stdoutSink: spec.sink,
      fifoDir: spec.scratchDir,
      maxStdoutBytes: spec.maxBytes,
    });
    judgeTool(program, spec, result);
  } finally {
    if (fd !== undefined) closeFile(fd);
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

/** Small verified data (a control.tar, a delta package's payload) decoded into memory, bounded. */
export async function decodeBytes(deps: Deps, spec: Omit<DecodeSpec, 'input' | 'sink'> & { bytes: Uint8Array }): Promise<Buffer> {
  const out = collector();
  await decode(deps, { ...spec, input: { bytes: spec.bytes }, sink: out.sink });
  return out.bytes();
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

const closeFile = (fd: number) => fs.closeSync(fd);

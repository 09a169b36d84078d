// Decompression as a stream with an output bound: compressed bytes in, every decoded byte through a
// counter into the caller's sink (a tar/cpio reader writing the executable, an index scanner, a bounded
// collector). Nothing is ever written whole to disk or held whole in memory before the cap is checked.
// gzip in-process (node:zlib). zstd through the `zstd` tool when it is on PATH (about twice as fast as
// bun's in-process decoder on the 113 MB executable, docs/hotfix.md), else bun's streaming decoder.
// xz through the `xz` tool (no JavaScript runtime here ships LZMA). A tool runs `-dc` on pipes, killed at
// the cap and at min(its own bound, the time the caller has left).
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import type { Deps } from '../../platform/deps.ts';
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

export interface DecodeSpec {
  compression: Compression;
  input: () => Readable;
  sink: Writable;
  maxBytes: number;
  /** Names the data in errors (`data.tar`, `Packages.gz`). */
  what: string;
  /** What the caller has left (fast-path budget and deadline); a tool gets min(its bound, this). */
  timeoutMs: number;
}

export async function decode(deps: Deps, spec: DecodeSpec): Promise<void> {
  const { compression, what, maxBytes } = spec;
  if (spec.timeoutMs <= 0) throw unavailableError(`no time left to unpack ${what}`);
  const tool =
    compression === 'xz' ? 'xz' : compression === 'zst' && (deps.proc.which('zstd', deps.env.PATH) || !inProcessZstd) ? 'zstd' : '';
  if (tool) return decodeWithTool(deps, tool, spec);
  const decoder = compression === 'gz' ? zlib.createGunzip() : compression === 'zst' ? inProcessZstd!() : undefined;
  const stages: Array<Readable | Transform | Writable> = [spec.input(), ...(decoder ? [decoder] : []), counter(maxBytes), spec.sink];
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

async function decodeWithTool(deps: Deps, program: 'xz' | 'zstd', spec: DecodeSpec): Promise<void> {
  const result = await deps.proc.run({
    program,
    args: ['-d', '-c', '-q'],
    env: definedEnv(deps.env),
    timeoutMs: Math.min(TOOL_TIMEOUT_MS, spec.timeoutMs),
    captureLimit: 16 * 1024,
    stdin: spec.input(),
    stdoutSink: spec.sink,
    maxStdoutBytes: spec.maxBytes,
  });
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

/** A sink keeping everything it gets (callers bound it through `decode`'s cap). */
export function collector(): { sink: Writable; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

/** Small verified data (a control.tar, a delta package's payload) decoded into memory, bounded. */
export async function decodeBytes(
  deps: Deps,
  compression: Compression,
  data: Uint8Array,
  maxBytes: number,
  what: string,
  timeoutMs: number,
): Promise<Buffer> {
  const out = collector();
  await decode(deps, { compression, input: () => Readable.from([Buffer.from(data)]), sink: out.sink, maxBytes, what, timeoutMs });
  return out.bytes();
}

// Decompression with an output bound. gzip always in-process (node:zlib). zstd: a package payload goes
// through the `zstd` tool when it is on PATH (measured about twice as fast as bun's in-process zstd on
// the 113 MB executable, docs/hotfix.md), small inputs and nodes without the tool use bun's
// node:zlib.zstdDecompressSync (the compiled agent; Node 20 has none, so there the tool is required).
// xz always through the `xz` tool (no JavaScript runtime here ships LZMA).
import * as zlib from 'node:zlib';
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { describeRun } from '../retry.ts';
import { integrityError, unavailableError } from './errors.ts';
import type { Compression } from './release.ts';
import type { Scratch } from './scratch.ts';

const TOOL_TIMEOUT_MS = 120_000;
/** Above this input size the zstd tool (when present) beats the in-process decoder. */
const ZSTD_TOOL_THRESHOLD = 4 * 1024 * 1024;

type ZstdSync = (data: Uint8Array, options?: { maxOutputLength?: number }) => Buffer;
const inProcessZstd = (zlib as unknown as { zstdDecompressSync?: ZstdSync }).zstdDecompressSync;

export const HAS_IN_PROCESS_ZSTD = typeof inProcessZstd === 'function';

/** The compression of a file name's suffix (`data.tar.zst`, `Packages.gz`, `primary.xml.zst`). */
export function compressionOf(name: string): Compression | undefined {
  if (name.endsWith('.zst') || name.endsWith('.zstd')) return 'zst';
  if (name.endsWith('.gz')) return 'gz';
  if (name.endsWith('.xz')) return 'xz';
  return /\.(tar|xml|cpio)$|Packages$/.test(name) ? 'none' : undefined;
}

export async function decompress(
  deps: Deps,
  scratch: Scratch,
  compression: Compression,
  data: Uint8Array,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  const tooLarge = () => integrityError(`${what} unpacks to more than the ${maxBytes}-byte limit`);
  const corrupt = (error: unknown) => integrityError(`${what}: unreadable ${compression} data (${(error as Error).message})`, error);
  if (compression === 'none') {
    if (data.length > maxBytes) throw tooLarge();
    return Buffer.from(data.buffer, data.byteOffset, data.length);
  }
  const zstdTool = compression === 'zst' && data.length > ZSTD_TOOL_THRESHOLD && deps.proc.which('zstd', deps.env.PATH) !== undefined;
  if (compression === 'gz' || (compression === 'zst' && inProcessZstd && !zstdTool)) {
    try {
      return compression === 'gz'
        ? zlib.gunzipSync(data, { maxOutputLength: maxBytes })
        : inProcessZstd!(data, { maxOutputLength: maxBytes });
    } catch (error) {
      if (error instanceof RangeError || /maxOutputLength|too large|exceed/i.test((error as Error).message)) throw tooLarge();
      throw corrupt(error);
    }
  }
  return decompressWithTool(deps, scratch, compression, data, maxBytes, what);
}

async function decompressWithTool(
  deps: Deps,
  scratch: Scratch,
  compression: 'zst' | 'xz',
  data: Uint8Array,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  const program = compression === 'zst' ? 'zstd' : 'xz';
  const input = scratch.write(`unpack.${compression}`, data);
  const output = scratch.file('unpack.out');
  deps.fs.unlink(output);
  const args = compression === 'zst' ? ['-d', '-q', '-f', '-o', output, input] : ['-d', '-q', '-f', '-k', input];
  const result = await deps.proc.run({ program, args, env: definedEnv(deps.env), timeoutMs: TOOL_TIMEOUT_MS, captureLimit: 16 * 1024 });
  const produced = compression === 'xz' ? input.slice(0, -'.xz'.length) : output;
  try {
    if (result.spawnError) throw unavailableError(`${program}: ${describeRun(result, program)!.message}`);
    const failure = describeRun(result, program);
    if (failure) throw integrityError(`${what}: ${program} -d failed: ${failure.message} ${result.stderr.trim()}`);
    const size = deps.fs.stat(produced)?.size ?? 0;
    if (size > maxBytes) throw integrityError(`${what} unpacks to more than the ${maxBytes}-byte limit`);
    return deps.fs.readFile(produced, 'binary');
  } finally {
    deps.fs.unlink(produced);
    deps.fs.unlink(input);
  }
}

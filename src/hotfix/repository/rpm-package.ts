// The agent's executable out of a verified .rpm (RPM v4 file format): the package's own OpenPGP signature
// checked by the real `rpmkeys --checksig` against the repository key, in a throwaway rpm database in the
// scratch directory (never the node's), then the header must name our package, version, release and
// architecture, and only the one executable is unpacked from the cpio payload, with a size bound.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { describeRun } from '../retry.ts';
import type { FileOut } from '../../formats/archive-stream.ts';
import { type PackageIdentity, unpackExecutable } from './deb-package.ts';
import { decodeBytes, type ToolContext } from './decompress.ts';
import { integrityError, unavailableError } from './errors.ts';
import type { Compression } from '../../formats/release.ts';
import type { Scratch } from './scratch.ts';

const RPMKEYS_TIMEOUT_MS = 60_000;
const TAGS = { name: 1000, version: 1001, release: 1002, arch: 1022, payloadCompressor: 1125 } as const;

interface Header {
  strings: Map<number, string>;
  end: number;
}

type Read = (position: number, length: number) => Buffer;
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

function readHeader(read: Read, size: number, at: number): Header | string {
  if (size < at + 16) return `no RPM header at byte ${at}`;
  const intro = read(at, 16);
  if (intro.readUInt32BE(0) !== 0x8eade801) return `no RPM header at byte ${at}`;
  const count = intro.readUInt32BE(8);
  const storeSize = intro.readUInt32BE(12);
  const length = count * 16 + storeSize;
  if (count > 100_000 || length > MAX_HEADER_BYTES || at + 16 + length > size) return 'corrupt RPM header';
  const body = read(at + 16, length);
  const store = count * 16;
  const strings = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const entry = i * 16;
    const [tagId, type, offset] = [body.readUInt32BE(entry), body.readUInt32BE(entry + 4), body.readUInt32BE(entry + 8)];
    if ((type === 6 || type === 9) && offset < storeSize) {
      const from = store + offset;
      const nul = body.indexOf(0, from);
      strings.set(tagId, body.subarray(from, nul < 0 ? body.length : nul).toString('utf8'));
    }
  }
  return { strings, end: at + 16 + length };
}

/** rpmkeys --checksig with the repository key only: digests AND a signature must be OK. */
export async function verifyRpmSignature(
  deps: Deps,
  scratch: Scratch,
  rpmFile: string,
  keyFiles: string[],
  timeLeft: () => number,
): Promise<void> {
  const dbpath = scratch.file('rpmdb');
  deps.fs.mkdirp(dbpath, 0o700);
  const env = definedEnv(deps.env);
  const run = async (args: string[]) => {
    const timeoutMs = Math.round(Math.min(RPMKEYS_TIMEOUT_MS, timeLeft()));
    if (timeoutMs <= 0) throw unavailableError('no time left to check the package signature');
    const result = await deps.proc.run({
      program: 'rpmkeys',
      args: ['--dbpath', dbpath, ...args],
      env,
      timeoutMs,
      captureLimit: 64 * 1024,
    });
    if (result.timedOut) throw unavailableError(`rpmkeys ${args[0]}: no answer within ${timeoutMs} ms`);
    return result;
  };
  for (const key of keyFiles) {
    const imported = await run(['--import', key]);
    if (imported.spawnError) throw unavailableError(`rpmkeys: ${describeRun(imported, 'rpmkeys')!.message}`);
    if (describeRun(imported, 'rpmkeys'))
      throw unavailableError(`rpmkeys --import ${key}: ${imported.stderr.trim() || describeRun(imported, 'rpmkeys')!.message}`);
  }
  const checked = await run(['--define', '_pkgverify_level all', '--checksig', '--verbose', rpmFile]);
  const output = `${checked.stdout}${checked.stderr}`.trim();
  if (checked.spawnError) throw unavailableError(`rpmkeys: ${describeRun(checked, 'rpmkeys')!.message}`);
  if (describeRun(checked, 'rpmkeys') || !/Signature, key ID [0-9a-f]+: OK/i.test(output) || /BAD|NOKEY|NOTTRUSTED|NOT OK/.test(output)) {
    throw integrityError(`package signature not verified by the repository key: ${output.split('\n').slice(-4).join(' | ')}`);
  }
}

/** Streams the executable of the verified, signature-checked .rpm at `rpmFile` into `out`. */
export async function rpmBinary(
  deps: Deps,
  rpmFile: string,
  expected: PackageIdentity & { release: string },
  out: FileOut,
  timeoutMs: number,
): Promise<void> {
  const reader = deps.fs.openReader(rpmFile);
  let layout: { payload: number; compression: Compression };
  let size: number;
  try {
    size = reader.size;
    layout = rpmLayout((at, n) => reader.read(at, n), size, expected);
  } finally {
    reader.close();
  }
  if (size <= layout.payload) throw integrityError('package: no payload after the RPM header');
  const payload = { file: rpmFile, offset: layout.payload, length: size - layout.payload, compression: layout.compression };
  await unpackExecutable(deps, { ...payload, archive: 'cpio', what: 'rpm payload' }, out, timeoutMs);
}

/** The cpio payload of a small verified .rpm held in memory (the delta package). */
export async function rpmPayload(
  deps: Deps,
  rpm: Buffer,
  expected: PackageIdentity & { release: string },
  maxCpioBytes: number,
  tools: ToolContext,
): Promise<Buffer> {
  const layout = rpmLayout((at, n) => rpm.subarray(at, at + n), rpm.length, expected);
  const bytes = rpm.subarray(layout.payload);
  return decodeBytes(deps, { ...tools, compression: layout.compression, bytes, maxBytes: maxCpioBytes, what: 'rpm payload' });
}

/** Where the payload starts and how it is compressed, once the header names `expected`. */
function rpmLayout(
  read: Read,
  size: number,
  expected: PackageIdentity & { release: string },
): { payload: number; compression: Compression } {
  if (size < 96 || read(0, 4).readUInt32BE(0) !== 0xedabeedb) throw integrityError('package: not an RPM file');
  const signature = readHeader(read, size, 96);
  if (typeof signature === 'string') throw integrityError(`package: ${signature}`);
  const header = readHeader(read, size, Math.ceil(signature.end / 8) * 8);
  if (typeof header === 'string') throw integrityError(`package: ${header}`);
  const field = (t: number) => header.strings.get(t) ?? '';
  const actual = `${field(TAGS.name)} ${field(TAGS.version)}-${field(TAGS.release)} ${field(TAGS.arch)}`;
  if (actual !== `${expected.name} ${expected.version}-${expected.release} ${expected.arch}`) {
    throw integrityError(`package says ${actual}, expected ${expected.name} ${expected.version}-${expected.release} ${expected.arch}`);
  }
  const compressors: Record<string, Compression> = { zstd: 'zst', xz: 'xz', gzip: 'gz' };
  const compression = compressors[field(TAGS.payloadCompressor) || 'gzip'];
  if (!compression) throw unavailableError(`package payload compressor ${field(TAGS.payloadCompressor)} is not supported`);
  return { payload: header.end, compression };
}

// The agent's executable out of a verified .rpm (RPM v4 file format): the package's own OpenPGP signature
// checked by the real `rpmkeys --checksig` against the repository key, in a throwaway rpm database in the
// scratch directory (never the node's), then the header must name our package, version, release and
// architecture, and only the one executable is unpacked from the cpio payload, with a size bound.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { describeRun } from '../retry.ts';
import { cpioFile } from './archive.ts';
import { type PackageIdentity, PACKAGED_BINARY } from './deb-package.ts';
import { decompress } from './decompress.ts';
import { integrityError, unavailableError } from './errors.ts';
import { SIZE_CAPS } from './fetcher.ts';
import type { Compression } from './release.ts';
import type { Scratch } from './scratch.ts';

const RPMKEYS_TIMEOUT_MS = 60_000;
const TAGS = { name: 1000, version: 1001, release: 1002, arch: 1022, payloadCompressor: 1125 } as const;

interface Header {
  strings: Map<number, string>;
  end: number;
}

function readHeader(rpm: Buffer, at: number): Header | string {
  if (rpm.length < at + 16 || rpm.readUInt32BE(at) !== 0x8eade801) return `no RPM header at byte ${at}`;
  const count = rpm.readUInt32BE(at + 8);
  const storeSize = rpm.readUInt32BE(at + 12);
  const store = at + 16 + count * 16;
  if (count > 100_000 || store + storeSize > rpm.length) return 'corrupt RPM header';
  const strings = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const entry = at + 16 + i * 16;
    const [tagId, type, offset] = [rpm.readUInt32BE(entry), rpm.readUInt32BE(entry + 4), rpm.readUInt32BE(entry + 8)];
    if ((type === 6 || type === 9) && offset < storeSize) {
      const from = store + offset;
      strings.set(tagId, rpm.subarray(from, rpm.indexOf(0, from)).toString('utf8'));
    }
  }
  return { strings, end: store + storeSize };
}

/** rpmkeys --checksig with the repository key only: digests AND a signature must be OK. */
export async function verifyRpmSignature(deps: Deps, scratch: Scratch, rpmFile: string, keyFiles: string[]): Promise<void> {
  const dbpath = scratch.file('rpmdb');
  deps.fs.mkdirp(dbpath, 0o700);
  const env = definedEnv(deps.env);
  const run = (args: string[]) =>
    deps.proc.run({ program: 'rpmkeys', args: ['--dbpath', dbpath, ...args], env, timeoutMs: RPMKEYS_TIMEOUT_MS, captureLimit: 64 * 1024 });
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

export async function rpmBinary(
  deps: Deps,
  scratch: Scratch,
  rpm: Buffer,
  expected: PackageIdentity & { release: string },
): Promise<Buffer> {
  const cpio = await rpmPayload(deps, scratch, rpm, expected, SIZE_CAPS.binary + 16 * 1024 * 1024);
  const binary = cpioFile(cpio, PACKAGED_BINARY, SIZE_CAPS.binary);
  if (typeof binary === 'string') throw integrityError(`package: ${binary}`);
  return binary;
}

/** The cpio payload of a verified .rpm whose header names `expected` (the delta package reads it too). */
export async function rpmPayload(
  deps: Deps,
  scratch: Scratch,
  rpm: Buffer,
  expected: PackageIdentity & { release: string },
  maxCpioBytes: number,
): Promise<Buffer> {
  if (rpm.length < 96 || rpm.readUInt32BE(0) !== 0xedabeedb) throw integrityError('package: not an RPM file');
  const signature = readHeader(rpm, 96);
  if (typeof signature === 'string') throw integrityError(`package: ${signature}`);
  const header = readHeader(rpm, Math.ceil(signature.end / 8) * 8);
  if (typeof header === 'string') throw integrityError(`package: ${header}`);
  const field = (t: number) => header.strings.get(t) ?? '';
  const actual = `${field(TAGS.name)} ${field(TAGS.version)}-${field(TAGS.release)} ${field(TAGS.arch)}`;
  if (actual !== `${expected.name} ${expected.version}-${expected.release} ${expected.arch}`) {
    throw integrityError(`package says ${actual}, expected ${expected.name} ${expected.version}-${expected.release} ${expected.arch}`);
  }
  const compressors: Record<string, Compression> = { zstd: 'zst', xz: 'xz', gzip: 'gz' };
  const compression = compressors[field(TAGS.payloadCompressor) || 'gzip'];
  if (!compression) throw unavailableError(`package payload compressor ${field(TAGS.payloadCompressor)} is not supported`);
  return decompress(deps, scratch, compression, rpm.subarray(header.end), maxCpioBytes, 'rpm payload');
}

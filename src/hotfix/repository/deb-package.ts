// The agent's executable out of a verified .deb: the control file must name our package, the version and
// the architecture the signed index promised (a package that says otherwise is the wrong package), then
// only the one executable is streamed out of data.tar.{zst,xz,gz}, read in place from the package file,
// through the decoder and a tar reader into the candidate file, with a size bound.
import type { Deps } from '../../platform/deps.ts';
import { dirname } from 'node:path';
import { NODE_PATHS } from '../../platform/paths.ts';
import { type Member, type MemberRange, arLayout, arMembers, tarFile } from '../../formats/archive.ts';
import { cpioExtractor, tarExtractor, type FileOut } from '../../formats/archive-stream.ts';
import { compressionOf, decode, decodeBytes, type DecodeInput, type ToolContext } from './decompress.ts';
import { integrityError } from './errors.ts';
import { SIZE_CAPS } from './fetcher.ts';
import type { Compression } from '../../formats/release.ts';

/** The file inside the package (the package manager's install path, without a sandbox root). */
export const PACKAGED_BINARY = `.${NODE_PATHS.packageBinary}`;
const CONTROL_CAP = 1024 * 1024;

export interface PackageIdentity {
  name: string;
  version: string;
  arch: string;
}

/** Streams the executable of the verified .deb at `debFile` into `out`. */
export async function debBinary(deps: Deps, debFile: string, expected: PackageIdentity, out: FileOut, timeoutMs: number): Promise<void> {
  const reader = deps.fs.openReader(debFile);
  let members: MemberRange[] | string;
  let control: Buffer;
  try {
    members = arLayout((at, n) => reader.read(at, n), reader.size);
    if (typeof members === 'string') throw integrityError(`package: ${members}`);
    const found = memberOf(members, 'control.tar');
    if (found.member.size > CONTROL_CAP) throw integrityError(`package: control member of ${found.member.size} bytes`);
    control = reader.read(found.member.offset, found.member.size);
    checkDebian(reader.read(members[0]!.offset, Math.min(members[0]!.size, 16)), members[0]!.name);
    await checkControl(deps, found.compression, control, expected, { scratchDir: dirname(debFile), timeoutMs });
  } finally {
    reader.close();
  }
  const data = memberOf(members, 'data.tar');
  if (data.member.size === 0) throw integrityError('package: empty data.tar member');
  const payload = { file: debFile, offset: data.member.offset, length: data.member.size, compression: data.compression };
  await unpackExecutable(deps, { ...payload, archive: 'tar', what: 'data.tar' }, out, timeoutMs);
}

/** A verified package's compressed payload: a tar or cpio stream at a range of the package file. */
export interface PackagePayload extends DecodeInput {
  compression: Compression;
  archive: 'tar' | 'cpio';
  /** Names the payload in errors (`data.tar`, `rpm payload`). */
  what: string;
}

/**
 * Streams the executable out of a package's payload into `out` (decoded in place, bounded by the binary's
 * size cap); what the archive reader refused is an integrity failure. The .deb and the .rpm path share it.
 */
export async function unpackExecutable(deps: Deps, payload: PackagePayload, out: FileOut, timeoutMs: number): Promise<void> {
  const extractor = (payload.archive === 'tar' ? tarExtractor : cpioExtractor)(PACKAGED_BINARY, SIZE_CAPS.binary, out);
  await decode(deps, {
    compression: payload.compression,
    input: { file: payload.file, offset: payload.offset, length: payload.length },
    sink: extractor.sink,
    scratchDir: dirname(payload.file),
    maxBytes: SIZE_CAPS.binary + 16 * 1024 * 1024,
    what: payload.what,
    timeoutMs,
  });
  const problem = extractor.problem();
  if (problem) throw integrityError(`package: ${problem}`);
}

/** The data.tar of a small verified .deb held in memory (the delta package), after the control check. */
export async function debPayload(
  deps: Deps,
  deb: Buffer,
  expected: PackageIdentity,
  maxTarBytes: number,
  tools: ToolContext,
): Promise<Buffer> {
  const members = arMembers(deb);
  if (typeof members === 'string') throw integrityError(`package: ${members}`);
  checkDebian(members[0]?.data ?? Buffer.alloc(0), members[0]?.name);
  const control = memberOf(members, 'control.tar');
  await checkControl(deps, control.compression, control.member.data, expected, tools);
  const data = memberOf(members, 'data.tar');
  return decodeBytes(deps, { ...tools, compression: data.compression, bytes: data.member.data, maxBytes: maxTarBytes, what: 'data.tar' });
}

function checkDebian(first: Buffer, name: string | undefined): void {
  if (name !== 'debian-binary' || !first.toString('latin1').startsWith('2.')) {
    throw integrityError('package: not a Debian binary package (debian-binary 2.x first)');
  }
}

function memberOf<M extends Member | MemberRange>(members: M[], prefix: string): { member: M; compression: Compression } {
  const member = members.find((m) => m.name.startsWith(prefix));
  const compression = member && compressionOf(member.name);
  if (!member || !compression) throw integrityError(`package: no readable ${prefix}* member`);
  return { member, compression };
}

async function checkControl(deps: Deps, compression: Compression, packed: Uint8Array, expected: PackageIdentity, tools: ToolContext) {
  const controlTar = await decodeBytes(deps, { ...tools, compression, bytes: packed, maxBytes: CONTROL_CAP, what: 'control.tar' });
  const controlFile = tarFile(controlTar, './control', CONTROL_CAP);
  if (typeof controlFile === 'string') throw integrityError(`package: ${controlFile}`);
  const fields = new Map<string, string>();
  for (const line of controlFile.toString('utf8').split('\n')) {
    const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (m) fields.set(m[1]!.toLowerCase(), m[2]!.trim());
  }
  const actual = { name: fields.get('package'), version: fields.get('version'), arch: fields.get('architecture') };
  if (actual.name !== expected.name || actual.version !== expected.version || (actual.arch !== expected.arch && actual.arch !== 'all')) {
    throw integrityError(
      `package says ${actual.name} ${actual.version} ${actual.arch}, expected ${expected.name} ${expected.version} ${expected.arch}`,
    );
  }
}

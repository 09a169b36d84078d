// The agent's executable out of a verified .deb: the control file must name our package, the version and
// the architecture the signed index promised (a package that says otherwise is the wrong package), then
// only the one executable is unpacked from data.tar.{zst,xz,gz}, with a size bound.
import type { Deps } from '../../platform/deps.ts';
import { NODE_PATHS } from '../../platform/paths.ts';
import { arMembers, tarFile } from './archive.ts';
import { compressionOf, decompress } from './decompress.ts';
import { integrityError } from './errors.ts';
import { SIZE_CAPS } from './fetcher.ts';
import type { Scratch } from './scratch.ts';

/** The file inside the package (the package manager's install path, without a sandbox root). */
export const PACKAGED_BINARY = `.${NODE_PATHS.packageBinary}`;
const CONTROL_CAP = 1024 * 1024;

export interface PackageIdentity {
  name: string;
  version: string;
  arch: string;
}

export async function debBinary(deps: Deps, scratch: Scratch, deb: Buffer, expected: PackageIdentity): Promise<Buffer> {
  const tar = await debPayload(deps, scratch, deb, expected, SIZE_CAPS.binary + 16 * 1024 * 1024);
  const binary = tarFile(tar, PACKAGED_BINARY, SIZE_CAPS.binary);
  if (typeof binary === 'string') throw integrityError(`package: ${binary}`);
  return binary;
}

/** The data.tar of a verified .deb whose control file names `expected` (the delta package reads it too). */
export async function debPayload(
  deps: Deps,
  scratch: Scratch,
  deb: Buffer,
  expected: PackageIdentity,
  maxTarBytes: number,
): Promise<Buffer> {
  const members = arMembers(deb);
  if (typeof members === 'string') throw integrityError(`package: ${members}`);
  if (members[0]?.name !== 'debian-binary' || !members[0].data.toString('latin1').startsWith('2.')) {
    throw integrityError('package: not a Debian binary package (debian-binary 2.x first)');
  }
  const member = (prefix: string) => {
    const found = members.find((m) => m.name.startsWith(prefix));
    const compression = found && compressionOf(found.name);
    if (!found || !compression) throw integrityError(`package: no readable ${prefix}* member`);
    return { found, compression };
  };
  const control = member('control.tar');
  const controlTar = await decompress(deps, scratch, control.compression, control.found.data, CONTROL_CAP, 'control.tar');
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
  const data = member('data.tar');
  return decompress(deps, scratch, data.compression, data.found.data, maxTarBytes, 'data.tar');
}

// Archive readers (pure, over bytes already verified by digest): the ar container of a .deb, ustar/pax
// tar, and the cpio "newc" payload of an rpm. Each finds one member by name and bounds its size.

export interface Member {
  name: string;
  data: Buffer;
}

/** The members of an `!<arch>` archive (GNU/BSD-style names with a trailing `/` tolerated). */
export function arMembers(deb: Buffer): Member[] | string {
  if (deb.subarray(0, 8).toString('latin1') !== '!<arch>\n') return 'not an ar archive';
  const members: Member[] = [];
  for (let at = 8; at + 60 <= deb.length; ) {
    const header = deb.subarray(at, at + 60).toString('latin1');
    const name = header.slice(0, 16).trim().replace(/\/$/, '');
    const size = Number(header.slice(48, 58).trim());
    if (header.slice(58, 60) !== '`\n' || !Number.isSafeInteger(size) || at + 60 + size > deb.length)
      return `corrupt ar member at byte ${at}`;
    members.push({ name, data: deb.subarray(at + 60, at + 60 + size) });
    at += 60 + size + (size % 2);
  }
  return members;
}

/** Where each member of an `!<arch>` file lies, read through positional reads (no member is loaded). */
export function arLayout(read: (position: number, length: number) => Buffer, fileSize: number): MemberRange[] | string {
  if (fileSize < 8 || read(0, 8).toString('latin1') !== '!<arch>\n') return 'not an ar archive';
  const members: MemberRange[] = [];
  for (let at = 8; at + 60 <= fileSize && members.length < 64; ) {
    const header = read(at, 60).toString('latin1');
    const name = header.slice(0, 16).trim().replace(/\/$/, '');
    const size = Number(header.slice(48, 58).trim());
    if (header.slice(58, 60) !== '`\n' || !Number.isSafeInteger(size) || at + 60 + size > fileSize)
      return `corrupt ar member at byte ${at}`;
    members.push({ name, offset: at + 60, size });
    at += 60 + size + (size % 2);
  }
  return members;
}

export interface MemberRange {
  name: string;
  offset: number;
  size: number;
}

export function tarNumber(field: Buffer): number {
  if (field[0]! & 0x80) return field.subarray(1).reduce((n, b) => n * 256 + b, 0); // GNU base-256
  return parseInt(field.toString('latin1').replace(/\0.*$/s, '').trim() || '0', 8);
}

export function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  const text = data.toString('utf8');
  for (let at = 0; at < text.length; ) {
    const space = text.indexOf(' ', at);
    const length = Number(text.slice(at, space));
    if (space < 0 || !length) break;
    const record = text.slice(space + 1, at + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

const normalise = (name: string) => name.replace(/^\.\//, '').replace(/^\/+/, '');

/** A regular file `wanted` from a tar stream (pax and GNU long names honoured). */
export function tarFile(tar: Buffer, wanted: string, maxBytes: number): Buffer | string {
  let longName: string | undefined;
  let pax = new Map<string, string>();
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const type = String.fromCharCode(header[156]!);
    let size = tarNumber(header.subarray(124, 136));
    if (pax.has('size')) size = Number(pax.get('size'));
    const prefix = header.subarray(345, 500).toString('latin1').replace(/\0.*$/s, '');
    const base = header.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '');
    const name = pax.get('path') ?? longName ?? (prefix ? `${prefix}/${base}` : base);
    const body = at + 512;
    if (body + size > tar.length) return `truncated tar member ${name}`;
    const data = tar.subarray(body, body + size);
    at = body + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'L') {
      longName = data.toString('latin1').replace(/\0.*$/s, '');
      continue;
    }
    if (type === 'g') continue;
    longName = undefined;
    pax = new Map();
    if (normalise(name) !== normalise(wanted)) continue;
    if (type !== '0' && type !== '\0') return `${wanted} is not a regular file in the package (tar type ${JSON.stringify(type)})`;
    if (size > maxBytes) return `${wanted} is ${size} bytes, above the ${maxBytes}-byte limit`;
    return data;
  }
  return `${wanted} is not in the package`;
}

/** A regular file `wanted` from a cpio newc/crc stream (rpm payload). */
export function cpioFile(cpio: Buffer, wanted: string, maxBytes: number): Buffer | string {
  for (let at = 0; at + 110 <= cpio.length; ) {
    const magic = cpio.subarray(at, at + 6).toString('latin1');
    if (magic !== '070701' && magic !== '070702') return `corrupt cpio header at byte ${at}`;
    const hex = (i: number) => parseInt(cpio.subarray(at + 6 + i * 8, at + 14 + i * 8).toString('latin1'), 16);
    const mode = hex(1);
    const size = hex(6);
    const nameSize = hex(11);
    const name = cpio.subarray(at + 110, at + 110 + nameSize - 1).toString('utf8');
    const body = Math.ceil((at + 110 + nameSize) / 4) * 4;
    if (name === 'TRAILER!!!') break;
    if (body + size > cpio.length) return `truncated cpio member ${name}`;
    if (normalise(name) === normalise(wanted)) {
      if ((mode & 0o170000) !== 0o100000) return `${wanted} is not a regular file in the package`;
      if (size > maxBytes) return `${wanted} is ${size} bytes, above the ${maxBytes}-byte limit`;
      return cpio.subarray(body, body + size);
    }
    at = Math.ceil((body + size) / 4) * 4;
  }
  return `${wanted} is not in the package`;
}

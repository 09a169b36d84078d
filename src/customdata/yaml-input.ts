// The bytes of a YAML document as yaml.v3's reader takes them (N16), before any parsing: the encoding
// from its byte order mark (UTF-8 without one; UTF-16LE/BE with one), every character decoded strictly
// and printable (YAML 1.1's set: tab, LF, CR, U+0020-U+007E, U+0085, U+00A0-U+D7FF, U+E000-U+FFFD and
// above U+FFFF). Invalid UTF-8 or a raw NUL is an error in yaml.v3's words, so nothing is written from
// a document it would refuse. A second byte order mark right after the first is refused too (our call:
// the `yaml` library would read the rest as a scalar and write nothing, silently). Pure.

import { AgentError } from '../platform/errors.ts';

const fail = (problem: string): never => {
  throw new AgentError('ANC_NODE_CUSTOM_DATA', `yaml: ${problem}`);
};

function printable(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

function utf8CodePoints(b: Uint8Array, from: number): number[] {
  const out: number[] = [];
  for (let i = from; i < b.length; ) {
    const c = b[i]!;
    const width = (c & 0x80) === 0 ? 1 : (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0;
    if (width === 0) fail('invalid leading UTF-8 octet');
    if (i + width > b.length) fail('incomplete UTF-8 octet sequence');
    let value = width === 1 ? c : width === 2 ? c & 0x1f : width === 3 ? c & 0x0f : c & 0x07;
    for (let k = 1; k < width; k++) {
      const t = b[i + k]!;
      if ((t & 0xc0) !== 0x80) fail('invalid trailing UTF-8 octet');
      value = (value << 6) | (t & 0x3f);
    }
    const min = [0, 0, 0x80, 0x800, 0x10000][width]!;
    if (value < min) fail('invalid length of a UTF-8 sequence');
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) fail('invalid Unicode character');
    out.push(value);
    i += width;
  }
  return out;
}

function utf16CodePoints(b: Uint8Array, from: number, little: boolean): number[] {
  const out: number[] = [];
  const unit = (i: number) => (little ? b[i]! | (b[i + 1]! << 8) : (b[i]! << 8) | b[i + 1]!);
  for (let i = from; i < b.length; ) {
    if (i + 2 > b.length) fail('incomplete UTF-16 character');
    const u = unit(i);
    if ((u & 0xfc00) === 0xdc00) fail('unexpected low surrogate area');
    if ((u & 0xfc00) !== 0xd800) {
      out.push(u);
      i += 2;
      continue;
    }
    if (i + 4 > b.length) fail('incomplete UTF-16 surrogate pair');
    const low = unit(i + 2);
    if ((low & 0xfc00) !== 0xdc00) fail('expected low surrogate area');
    out.push(0x10000 + ((u & 0x3ff) << 10) + (low & 0x3ff));
    i += 4;
  }
  return out;
}

/** The document's text without its byte order mark; throws `yaml: <problem>` as yaml.v3's reader would. */
export function yamlDocumentText(bytes: Uint8Array): string {
  const starts = (...bom: number[]) => bom.every((v, k) => bytes[k] === v);
  const points = starts(0xff, 0xfe)
    ? utf16CodePoints(bytes, 2, true)
    : starts(0xfe, 0xff)
      ? utf16CodePoints(bytes, 2, false)
      : utf8CodePoints(bytes, starts(0xef, 0xbb, 0xbf) ? 3 : 0);
  if (points[0] === 0xfeff) fail('line 1: a second byte order mark after the first');
  for (const c of points) if (!printable(c)) fail('control characters are not allowed');
  let text = '';
  for (let i = 0; i < points.length; i += 8192) text += String.fromCodePoint(...points.slice(i, i + 8192));
  return text;
}

// Issue 32, N7: bytes as Go's encoding/json reads them (utf8.DecodeRune: one U+FFFD per invalid byte),
// where a WHATWG decoder replaces a maximal invalid subpart with one. Raw bytes in, the text Go sees out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goText } from '../../../src/platform/go/utf8.ts';
import { goPlain, goUnmarshal } from '../../../src/platform/go/unmarshal.ts';
import { COMPONENTS_GO_TYPE } from '../../../src/cse/env/gpu-components.ts';

const F = '\ufffd';
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

test('each invalid byte is one U+FFFD; valid sequences, BOMs and NULs pass as they are', () => {
  const table: Array<[string, Buffer, string]> = [
    ['valid ASCII and multibyte', bytes('a\u00e9\u20ac\u{1F600}'), 'a\u00e9\u20ac\u{1F600}'],
    ['a BOM is a character, not stripped', bytes([0xef, 0xbb, 0xbf], 'x'), '\ufeffx'],
    ['a cut 3-byte sequence E2 82: two', bytes('a', [0xe2, 0x82], 'b'), `a${F}${F}b`],
    ['a cut 4-byte sequence F0 9F 98: three', bytes('a', [0xf0, 0x9f, 0x98], 'b'), `a${F}${F}${F}b`],
    ['a cut 2-byte sequence at the end', bytes('a', [0xc3]), `a${F}`],
    ['a lone continuation byte', bytes([0x80], 'x'), `${F}x`],
    ['overlong C0 80: two', bytes([0xc0, 0x80]), `${F}${F}`],
    ['overlong E0 80 80: three', bytes([0xe0, 0x80, 0x80]), `${F}${F}${F}`],
    ['an encoded surrogate ED A0 80: three', bytes([0xed, 0xa0, 0x80]), `${F}${F}${F}`],
    ['past U+10FFFF F4 90 80 80: four', bytes([0xf4, 0x90, 0x80, 0x80]), `${F}${F}${F}${F}`],
    ['F5 and FF never start a sequence', bytes([0xf5, 0xff]), `${F}${F}`],
    ['invalid bytes between valid multibyte ones', bytes('\u00e9', [0xe2, 0x82], '\u20ac'), `\u00e9${F}${F}\u20ac`],
    ['C3 then a valid ASCII byte: one, then the byte', bytes([0xc3], '('), `${F}(`],
  ];
  for (const [name, input, want] of table) assert.is(goText(input), want, name);
  // Where the two rules differ: the WHATWG decoder says one for each cut sequence.
  assert.is(bytes('a', [0xe2, 0x82], 'b').toString('utf8'), `a${F}b`);
  assert.is(bytes('a', [0xf0, 0x9f, 0x98], 'b').toString('utf8'), `a${F}b`);
});

test('components.json with invalid UTF-8 in a string decodes as Go does (through goText)', () => {
  const raw = bytes(
    '{"GPUContainerImages":[{"downloadURL":"x',
    [0xf0, 0x9f, 0x98],
    '","gpuVersion":{"latestVersion":"1',
    [0xe2, 0x82],
    '-2"}}]}',
  );
  const decoded = goUnmarshal(goText(raw), COMPONENTS_GO_TYPE);
  const value = goPlain(decoded.value, COMPONENTS_GO_TYPE) as {
    GPUContainerImages: Array<{ downloadURL: string; gpuVersion: { latestVersion: string } }>;
  };
  assert.is(decoded.error, undefined);
  assert.is(value.GPUContainerImages[0]!.downloadURL, `x${F}${F}${F}`);
  assert.is(value.GPUContainerImages[0]!.gpuVersion.latestVersion, `1${F}${F}-2`);
});

test.run();

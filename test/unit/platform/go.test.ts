// Go semantics at the edges of number and text parsing (issue 11): each shared helper against a table of
// what Go does (strconv, strings, Masterminds semver v3, encoding/json string decoding).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareSemVer, isSemVerGe, parseSemVer } from '../../../src/platform/go/semver.ts';
import { goAtoi, goParseInt, goParseUint } from '../../../src/platform/go/strconv.ts';
import { goFields, goIsSpace, goToLower, goTrimSpace } from '../../../src/platform/go/strings.ts';
import { parseGoJson } from '../../../src/platform/json.ts';

// strconv.Atoi(s): [s, value or undefined for an error].
const ATOI: Array<[string, bigint | undefined]> = [
  ['0', 0n],
  ['42', 42n],
  ['+42', 42n],
  ['-42', -42n],
  ['007', 7n],
  ['9223372036854775807', 9223372036854775807n],
  ['-9223372036854775808', -9223372036854775808n],
  ['9223372036854775808', undefined],
  ['-9223372036854775809', undefined],
  ['99999999999999999999', undefined],
  ['', undefined],
  ['+', undefined],
  ['-', undefined],
  [' 1', undefined],
  ['1 ', undefined],
  ['1_000', undefined],
  ['0x10', undefined],
  ['1e3', undefined],
  ['1.0', undefined],
  ['++1', undefined],
  ['\u0661', undefined],
];

test('strconv.Atoi: int64 range, optional sign, ASCII digits only', () => {
  for (const [text, want] of ATOI) assert.is(goAtoi(text), want, JSON.stringify(text));
});

test('strconv.ParseInt / ParseUint with a base and a bit size', () => {
  assert.is(goParseInt('127', 10, 8), 127n);
  assert.is(goParseInt('128', 10, 8), undefined);
  assert.is(goParseInt('-128', 10, 8), -128n);
  assert.is(goParseUint('18446744073709551615'), 18446744073709551615n);
  assert.is(goParseUint('18446744073709551616'), undefined);
  assert.is(goParseUint('+1'), undefined, 'ParseUint takes no sign');
  assert.is(goParseUint('-0'), undefined);
  assert.is(goParseUint('644', 8, 32), 0o644n);
  assert.is(goParseUint('37777777777', 8, 32), 0xffffffffn);
  assert.is(goParseUint('40000000000', 8, 32), undefined);
  assert.is(goParseUint('8', 8, 32), undefined);
  assert.is(goParseUint('ff', 16, 8), 255n);
});

test('unicode.IsSpace is Unicode White_Space: U+0085 and U+00A0 are space, U+FEFF and U+200B are not', () => {
  const space = [
    '\t',
    '\n',
    '\v',
    '\f',
    '\r',
    ' ',
    '\u0085',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
  ];
  const notSpace = ['\uFEFF', '\u200b', '\u180e', 'x', '\u0000', '\u001c'];
  for (const c of space) assert.ok(goIsSpace(c), `U+${c.charCodeAt(0).toString(16)}`);
  for (const c of notSpace) assert.not.ok(goIsSpace(c), `U+${c.charCodeAt(0).toString(16)}`);
});

test('strings.TrimSpace and strings.Fields', () => {
  assert.is(goTrimSpace('\u0085 x \u3000'), 'x');
  assert.is(goTrimSpace('\uFEFFx\uFEFF'), '\uFEFFx\uFEFF');
  assert.is(goTrimSpace(' \t\n'), '');
  assert.equal(goFields('  a \u0085b\u00a0\u00a0c\n'), ['a', 'b', 'c']);
  assert.equal(goFields('a\uFEFFb c'), ['a\uFEFFb', 'c']);
  assert.equal(goFields(' \u2028 '), []);
  assert.equal(goFields(''), []);
});

test('strings.ToLower maps code point by code point (no two-code-point or final-sigma forms)', () => {
  assert.is(goToLower('CH\u0130NA'), 'china');
  assert.is(goToLower('\u039f\u0394\u039f\u03a3'), '\u03bf\u03b4\u03bf\u03c3');
  assert.is(goToLower('\u212a'), 'k');
  assert.is(goToLower('USGov Virginia'), 'usgov virginia');
});

// Masterminds semver v3 NewVersion (coerce mode): [text, parses].
const PARSES: Array<[string, boolean]> = [
  ['1.34.0', true],
  ['v1.34', true],
  ['2', true],
  ['01.034.0', true],
  ['1.0.0-rc.1+b.2', true],
  ['18446744073709551615.18446744073709551615.18446744073709551615', true],
  ['18446744073709551616.0.0', false],
  ['1.18446744073709551616', false],
  ['1.2.18446744073709551616', false],
  ['1.0.0-99999999999999999999', true],
  ['1.0.0-01', false],
  ['1.0.0-rc..1', false],
  ['V1.0.0', false],
  [' 1.0.0', false],
  ['1.0.0.0', false],
  ['', false],
  ['1.0.0+', false],
];

test('semver NewVersion: uint64 parts, prerelease rules', () => {
  for (const [text, ok] of PARSES) assert.is(parseSemVer(text).ok, ok, text);
  const v = parseSemVer('v1.2.3-rc.1+meta');
  assert.equal(v, { ok: true, value: { major: 1n, minor: 2n, patch: 3n, prerelease: 'rc.1', metadata: 'meta' } });
});

// Masterminds Compare: [a, b, sign].
const COMPARE: Array<[string, string, number]> = [
  ['1.2.3', '1.2.3+x', 0],
  ['1.2.3', '1.2.4', -1],
  ['1.10.0', '1.9.0', 1],
  ['1.0.0-alpha', '1.0.0', -1],
  ['1.0.0-alpha', '1.0.0-alpha.1', -1],
  ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
  ['1.0.0-2', '1.0.0-10', -1],
  ['1.0.0-a', '1.0.0-10', 1],
  ['1.0.0-rc.1', '1.0.0-rc.1', 0],
  // Beyond uint64 a numeric identifier is text: byte order, and text sorts after numbers.
  ['1.0.0-100000000000000000000', '1.0.0-99999999999999999999', -1],
  ['1.0.0-18446744073709551616', '1.0.0-9', 1],
  ['1.0.0-18446744073709551615', '1.0.0-9', 1],
  ['1.0.0-18446744073709551616', '1.0.0-alpha', -1],
];

test('semver Compare: numeric parts, prerelease identifiers, uint64 edge', () => {
  for (const [a, b, want] of COMPARE) {
    const x = parseSemVer(a);
    const y = parseSemVer(b);
    assert.ok(x.ok && y.ok, `${a} ${b}`);
    if (x.ok && y.ok) {
      assert.is(compareSemVer(x.value, y.value), want, `${a} vs ${b}`);
      assert.is(compareSemVer(y.value, x.value), -want, `${b} vs ${a}`);
    }
  }
  assert.not.ok(isSemVerGe('18446744073709551616.0.0', '1.0.0'));
  assert.not.ok(isSemVerGe('1.0.0', '18446744073709551616.0.0'));
});

// encoding/json string decoding: [JSON text, decoded value].
const STRINGS: Array<[string, unknown]> = [
  ['"\\ud800"', '\uFFFD'],
  ['"\\udc00"', '\uFFFD'],
  ['"\\uD83D\\uDE00"', '\u{1F600}'],
  ['"\\ud800\\u0041"', '\uFFFDA'],
  ['"\\ud800\\ud800\\udc00"', '\uFFFD\u{10000}'],
  ['"\\udc00\\ud800"', '\uFFFD\uFFFD'],
  ['"x\\ud800"', 'x\uFFFD'],
  ['"\\\\ud800"', '\\ud800'],
  ['"\\\\\\ud800"', '\\\uFFFD'],
  ['"\\u00e9\\n"', '\u00e9\n'],
  ['{"k\\udbff":"v"}', { 'k\uFFFD': 'v' }],
  ['{"\\ud800":"x","\\udbff":"y"}', { '\uFFFD': 'y' }],
  ['["\\ud800",{"a":["\\udfff"]}]', ['\uFFFD', { a: ['\uFFFD'] }]],
];

test('encoding/json: a lone surrogate escape (value or key, any depth) decodes to U+FFFD', () => {
  for (const [text, want] of STRINGS) assert.equal(parseGoJson(text), want, text);
});

test('encoding/json: a JSON document inside a string keeps the rule at both levels', () => {
  // The outer escape decodes to a raw lone surrogate in JavaScript; Go has U+FFFD there already.
  const outer = parseGoJson('{"data":{"hotfixes.json":"{\\"hotfixes\\":{\\"a\\":\\"x\\ud800\\"}}"}}') as { data: Record<string, string> };
  assert.equal(parseGoJson(outer.data['hotfixes.json']!), { hotfixes: { a: 'x\uFFFD' } });
  const inner = parseGoJson('"{\\"a\\":\\"\\\\ud800\\"}"') as string;
  assert.is(inner, '{"a":"\\ud800"}');
  assert.equal(parseGoJson(inner), { a: '\uFFFD' });
  assert.equal(parseGoJson('"a\uD800b"'), 'a\uFFFDb', 'a raw lone surrogate in the text is invalid UTF-8 to Go');
});

test('encoding/json: syntax errors still throw, at the same offsets', () => {
  assert.throws(() => parseGoJson('{"a":"\\ud800",}'));
  assert.throws(() => parseGoJson('"\\ud80"'));
  let message = '';
  try {
    parseGoJson('{"a":"\\ud800"} x');
  } catch (error) {
    message = (error as Error).message;
  }
  let plain = '';
  try {
    JSON.parse('{"a":"\\ufffd"} x');
  } catch (error) {
    plain = (error as Error).message;
  }
  assert.is(message, plain);
});

test.run();

// Formatting primitives (config-contract 3.1) and semver (3.3.7).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareCodePoints, goFloat } from '../../../src/cse/env/format.ts';
import { containerdVersionFromOutput, isVersionGe } from '../../../src/cse/semver.ts';

const FLOATS: Array<[number, string]> = [
  [0, '0'],
  [10, '10'],
  [2.5, '2.5'],
  [0.1, '0.1'],
  [0.0001, '0.0001'],
  [0.00001, '1e-05'],
  [1.5e-7, '1.5e-07'],
  [123456, '123456'],
  [999999.5, '999999.5'],
  [1e6, '1e+06'],
  [1234567.5, '1.2345675e+06'],
  [123456789, '1.23456789e+08'],
  [1e20, '1e+20'],
  [1e100, '1e+100'],
  [12345678901234567890, '1.2345678901234567e+19'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [5e-324, '5e-324'],
  [1.5, '1.5'],
  [-2.25, '-2.25'],
  [-1e6, '-1e+06'],
  [NaN, 'NaN'],
  [Infinity, '+Inf'],
  [-Infinity, '-Inf'],
  [-0, '-0'],
  [3.2, '3.2'],
  [100, '100'],
];

test('Go %v float formatting', () => {
  for (const [value, expected] of FLOATS) assert.is(goFloat(value), expected, String(value));
});

test('code-point order differs from UTF-16 order for astral characters', () => {
  const keys = ['\u{1F600}', '\uFFFD', 'a', 'B'];
  assert.equal([...keys].sort(compareCodePoints), ['B', 'a', '\uFFFD', '\u{1F600}']);
  assert.is(compareCodePoints('ab', 'a'), 1);
  assert.is(compareCodePoints('a', 'a'), 0);
});

const GE_134: Array<[string, boolean]> = [
  ['1.34.0', true],
  ['1.34', true],
  ['v1.34.0', true],
  ['V1.34.0', false],
  ['1.34.0-rc.1', false],
  ['1.34.0+build', true],
  ['1.34.1-alpha', true],
  ['1.33.99', false],
  ['', false],
  ['latest', false],
  [' 1.34.0', false],
  ['1.34.0 ', false],
  ['01.34.0', true],
  ['1.034.0', true],
  ['1.34.0.1', false],
  ['2', true],
  ['1.34.0-01', false],
];

test('kubernetes version >= 1.34.0 (verified table)', () => {
  for (const [v, expected] of GE_134) assert.is(isVersionGe(v, '1.34.0'), expected, JSON.stringify(v));
});

test('kubernetes version >= 1.22.0 and prerelease ordering', () => {
  assert.ok(isVersionGe('1.22', '1.22.0'));
  assert.not.ok(isVersionGe('1.21.9', '1.22.0'));
  assert.not.ok(isVersionGe('1.22.0-beta.0', '1.22.0'));
  assert.ok(isVersionGe('v1.22.1', '1.22.0'));
  assert.ok(isVersionGe('1.0.0-alpha.1', '1.0.0-alpha'));
  assert.ok(isVersionGe('1.0.0-beta', '1.0.0-alpha.1'));
  assert.not.ok(isVersionGe('1.0.0-2', '1.0.0-10'));
  assert.ok(isVersionGe('1.0.0-a', '1.0.0-10'));
  assert.not.ok(isVersionGe('1.0.0-rc..1', '0.0.1'));
});

test('a version part beyond uint64 does not parse: every kubernetesVersion gate is false', () => {
  for (const v of ['18446744073709551616.0.0', '1.18446744073709551616.0', '1.34.99999999999999999999', 'v99999999999999999999']) {
    assert.not.ok(isVersionGe(v, '1.22.0'), v);
    assert.not.ok(isVersionGe(v, '0.0.0'), v);
  }
  assert.ok(isVersionGe('18446744073709551615.0.0', '1.34.0'), 'the largest uint64 still parses');
  // A numeric prerelease identifier beyond uint64 compares as text (ParseUint fails there): "1..." < "9...".
  assert.not.ok(isVersionGe('1.0.0-100000000000000000000', '1.0.0-99999999999999999999'));
});

test('containerd --version extraction', () => {
  assert.is(containerdVersionFromOutput('containerd containerd.io 1.7.22 c814c75'), '1.7.22');
  assert.is(containerdVersionFromOutput('containerd github.com/containerd/containerd/v2 2.3.2-1 fff'), '2.3.2');
  assert.is(containerdVersionFromOutput('containerd x v2.1.0-rc.2 abc\n'), '2.1.0');
  assert.is(containerdVersionFromOutput('not a valid output'), '');
  assert.is(containerdVersionFromOutput('a b'), '');
  assert.is(containerdVersionFromOutput('a b 1.7'), '');
  assert.is(containerdVersionFromOutput('a b -1.7.0'), '');
});

test('containerd --version is split with Go strings.Fields: U+0085 separates, U+FEFF does not', () => {
  assert.is(containerdVersionFromOutput('containerd\u0085containerd.io\u00851.7.22\u0085c814c75'), '1.7.22');
  assert.is(containerdVersionFromOutput('\u3000containerd x\u20092.0.1 y\u2028'), '2.0.1');
  assert.is(containerdVersionFromOutput('containerd\uFEFFcontainerd.io 1.7.22 c814c75'), '', 'U+FEFF is part of the first field');
  assert.is(containerdVersionFromOutput('containerd x \uFEFF2.0.0 y'), '', 'a U+FEFF-prefixed field is no version');
});

test('a detected containerd version beyond uint64 selects the v1 templates (the >= 2.0.0 gate is false)', () => {
  const version = containerdVersionFromOutput('containerd x 99999999999999999999.0.0 y');
  assert.is(version, '99999999999999999999.0.0');
  assert.not.ok(isVersionGe(version, '2.0.0'));
});

test.run();

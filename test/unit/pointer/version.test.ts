import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  expectedBinaryVersion,
  hotfixBaseFromVersion,
  isSafeHotfixVersion,
  parseSemVer,
  shouldUpgradeToHotfix,
} from '../../../src/pointer/version.ts';

// TestHotfixBaseFromVersion (spec 12.2)
for (const [input, base] of [
  ['202604.01.1', '202604.01'],
  ['202604.01.0', '202604.01'], // leading-zero day kept
  ['202605.30.2', '202605.30'],
  ['  202604.01.1 \n', '202604.01'], // whitespace trimmed
  ['202604.01.1.2', '202604.01'], // 4 segments: third part is "1.2"
] as const) {
  test(`base of ${JSON.stringify(input)} is ${base}`, () => {
    assert.equal(hotfixBaseFromVersion(input), { ok: true, value: base });
  });
}
for (const input of ['202604.01', '202604.01.', 'dev', '', '.01.1', '202604..1']) {
  test(`base of ${JSON.stringify(input)} is an error`, () => {
    const r = hotfixBaseFromVersion(input);
    assert.is(r.ok, false);
    if (!r.ok) assert.match(r.error, 'expected YYYYMM.DD.PATCH');
  });
}

// TestShouldUpgradeToHotfix (spec 12.2, HEAD delta included)
for (const [current, target] of [
  ['202604.01.0', '202604.01.1'],
  ['202604.01.0', '202604.01.2'],
  ['202604.01.1', '202604.01.2'],
  ['202604.01.0', '202604.01.1-1'],
  ['202604.1.0', '202604.01.1'], // minor compared numerically
  [' 202604.01.0 ', '\t202604.01.1\n'],
  ['202604.01.0', '202604.01.1+build.5'],
] as const) {
  test(`upgrade ${current} -> ${target}`, () => {
    assert.equal(shouldUpgradeToHotfix(current, target), { ok: true, value: true });
  });
}
for (const [current, target, why] of [
  ['202604.01.1', '202604.01.1', 'same version'],
  ['202604.01.0', '202603.01.1', 'older month'],
  ['202604.01.0', '202605.01.1', 'newer month'],
  ['202604.01.0', '202604.02.1', 'different day'],
  ['202604.01.2', '202604.01.1', 'current patch higher'],
] as const) {
  test(`no upgrade: ${why}`, () => {
    assert.equal(shouldUpgradeToHotfix(current, target), { ok: true, value: false });
  });
}
for (const [current, target] of [
  ['dev', '202604.01.1'],
  ['202604.01.0', 'dev'],
  ['dev', 'dev'],
  ['', '202604.01.1'],
  ['202604.01.0', ''],
  ['202604.01.0', '202604.01.1.2'],
  ['202604.01.0', '202604.01.1 --reinstall'],
  ['202604.01.0', '$(reboot)'],
  ['202604.01.0', '202604.01.1-01'],
] as const) {
  test(`gate error for ${JSON.stringify(current)} -> ${JSON.stringify(target)}`, () => {
    assert.is(shouldUpgradeToHotfix(current, target).ok, false);
  });
}

test('semver coercion: v prefix, missing parts, leading zeros', () => {
  assert.equal(parseSemVer('v1'), { ok: true, value: { major: 1n, minor: 0n, patch: 0n, prerelease: '', metadata: '' } });
  assert.equal(parseSemVer('202604.01.007-rc.1+x'), {
    ok: true,
    value: { major: 202604n, minor: 1n, patch: 7n, prerelease: 'rc.1', metadata: 'x' },
  });
  assert.is(parseSemVer('99999999999999999999.1.1').ok, false);
});

test('D5 strict version shape', () => {
  for (const ok of ['202604.01.1', '202604.01.1-1', '202612.31.123-45']) assert.ok(isSafeHotfixVersion(ok), ok);
  for (const bad of [
    '202604.01.1 --reinstall',
    '$(reboot)',
    '202604.1.1',
    '202604.01.1-rc1',
    'v202604.01.1',
    '202604.01.1\n',
    '202604.01.1-',
  ]) {
    assert.not.ok(isSafeHotfixVersion(bad), bad);
  }
});

test('expected binary version drops the package revision only', () => {
  assert.is(expectedBinaryVersion('202604.01.1-1'), '202604.01.1');
  assert.is(expectedBinaryVersion('202604.01.1'), '202604.01.1');
});

test('version text is trimmed with Go strings.TrimSpace: U+0085 is space, U+FEFF is not', () => {
  assert.equal(hotfixBaseFromVersion('\u0085202604.01.0\u3000'), { ok: true, value: '202604.01' });
  assert.equal(hotfixBaseFromVersion('\uFEFF202604.01.0'), { ok: true, value: '\uFEFF202604.01' });
  assert.equal(shouldUpgradeToHotfix('\u0085202604.01.0', '202604.01.1\u00a0'), { ok: true, value: true });
  assert.is(shouldUpgradeToHotfix('\uFEFF202604.01.0', '202604.01.1').ok, false);
  assert.is(shouldUpgradeToHotfix('202604.01.0', '202604.01.18446744073709551616').ok, false, 'patch beyond uint64');
});

test.run();

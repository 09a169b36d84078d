import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyPointer, type HotfixPointer } from '../../../src/pointer/document.ts';
import { decideHotfix, type HOTFIX_REASONS, resolveVersion } from '../../../src/pointer/resolve.ts';

const ptr = (p: Partial<HotfixPointer>): HotfixPointer => ({ ...emptyPointer(), ...p });

// TestHotfixConfigResolveVersion (spec 12.2)
test('empty map falls back to legacy Version field', () => {
  assert.is(resolveVersion(ptr({ version: ' 202604.01.1 ' }), '202604.01.0').resolved, '202604.01.1');
});
test('empty config resolves to empty', () => {
  assert.is(resolveVersion(emptyPointer(), '202604.01.0').resolved, '');
});
test('map hit returns matching base entry', () => {
  const p = ptr({ hotfixes: { '202604.01': ' 202604.01.1 ', '202605.30': '202605.30.2' } });
  assert.equal(resolveVersion(p, '202604.01.0'), { resolved: '202604.01.1', source: 'map' });
});
test('map miss returns empty (default deny for unlisted base)', () => {
  assert.is(resolveVersion(ptr({ hotfixes: { '202605.30': '202605.30.2' } }), '202604.01.0').resolved, '');
});
test('map preserves leading-zero day matching', () => {
  assert.is(resolveVersion(ptr({ hotfixes: { '202604.1': '202604.01.1' } }), '202604.01.0').resolved, '');
  assert.is(resolveVersion(ptr({ hotfixes: { '202604.01': '202604.01.1' } }), '202604.01.0').resolved, '202604.01.1');
});
test('map takes precedence over legacy Version field', () => {
  const p = ptr({ version: '202604.01.5', hotfixes: { '202605.30': '202605.30.2' } });
  assert.is(resolveVersion(p, '202604.01.0').resolved, '');
});
test('unparseable current version with map returns empty (fail-open)', () => {
  const r = resolveVersion(ptr({ hotfixes: { '202604.01': '202604.01.1' } }), 'dev');
  assert.is(r.resolved, '');
  assert.ok(r.baseError);
});
test('map lookup is exact and case-sensitive, never inherited', () => {
  assert.is(resolveVersion(ptr({ hotfixes: { x: 'y' } }), 'constructor.x.1').resolved, '');
});

// decisions (what `hotfix explain` prints)
const cases: Array<[string, HotfixPointer, string, keyof typeof HOTFIX_REASONS, string]> = [
  ['no pointer', emptyPointer(), '202604.01.0', 'no-request', ''],
  ['dev with map', ptr({ hotfixes: { '202604.01': '202604.01.1' } }), 'dev', 'base-unknown', ''],
  ['dev with legacy', ptr({ version: '202604.01.1' }), 'dev', 'compare-failed', '202604.01.1'],
  ['other base', ptr({ hotfixes: { '202605.01': '202605.01.1' } }), '202604.01.0', 'not-listed', ''],
  ['other base legacy', ptr({ version: '202605.01.1' }), '202604.01.0', 'not-newer', '202605.01.1'],
  ['same patch', ptr({ hotfixes: { '202604.01': '202604.01.1' } }), '202604.01.1', 'not-newer', '202604.01.1'],
  ['lower patch', ptr({ hotfixes: { '202604.01': '202604.01.1' } }), '202604.01.2', 'not-newer', '202604.01.1'],
  ['misconfigured value base', ptr({ hotfixes: { '202604.01': '202605.30.2' } }), '202604.01.0', 'not-newer', '202605.30.2'],
  ['malformed', ptr({ version: 'latest' }), '202604.01.0', 'compare-failed', 'latest'],
  ['injection flag', ptr({ version: '202604.01.1 --reinstall' }), '202604.01.0', 'compare-failed', '202604.01.1 --reinstall'],
  ['injection shell', ptr({ hotfixes: { '202604.01': '$(reboot)' } }), '202604.01.0', 'compare-failed', '$(reboot)'],
  ['prerelease passes gate but not D5', ptr({ version: '202604.01.1-rc1' }), '202604.01.0', 'unsafe-version', '202604.01.1-rc1'],
  ['legacy upgrade', ptr({ version: '202604.01.1' }), '202604.01.0', 'upgrade', '202604.01.1'],
  ['map upgrade with revision', ptr({ hotfixes: { '202604.01': '202604.01.1-1' } }), '202604.01.0', 'upgrade', '202604.01.1-1'],
];
for (const [name, pointer, current, reason, resolved] of cases) {
  test(`decision: ${name} -> ${reason}`, () => {
    const d = decideHotfix(pointer, current);
    assert.is(d.reason, reason);
    assert.is(d.resolved, resolved);
    assert.is(d.upgrade, reason === 'upgrade');
    assert.is(d.current, current);
  });
}
test('decision carries the base as text, null when underivable', () => {
  assert.is(decideHotfix(emptyPointer(), '202604.01.0').base, '202604.01');
  assert.is(decideHotfix(emptyPointer(), 'dev').base, null);
});

test.run();

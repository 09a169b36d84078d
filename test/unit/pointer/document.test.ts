import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyPointer, mergePointer, parsePointer, serializePointer, type HotfixPointer } from '../../../src/pointer/document.ts';
import { AgentError } from '../../../src/platform/errors.ts';

const P = '/opt/azure/containers/aks-node-controller-hotfix.json';

function parseError(text: string): AgentError {
  try {
    parsePointer(text, P);
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new assert.Assertion({ message: `expected ${JSON.stringify(text)} to fail`, operator: 'throws', expects: 'error', actual: 'ok' });
}

// TestReadHotfixConfig (spec 12.2)
test('file does not exist returns zero config', () => {
  assert.equal(parsePointer(null, P), emptyPointer());
});
test('empty file returns zero config', () => {
  for (const t of ['', '   \n\t', 'null', ' null \n']) assert.equal(parsePointer(t, P), emptyPointer(), JSON.stringify(t));
});
test('parses legacy version field', () => {
  assert.equal(parsePointer('{"version":"202604.01.1"}', P), { ...emptyPointer(), version: '202604.01.1' });
});
test('parses base->version map', () => {
  const p = parsePointer('{"hotfixes":{"202604.01":"202604.01.1","202605.30":"202605.30.2"},"scripts_version":"s1"}', P);
  assert.equal(p, { version: '', scriptsVersion: 's1', hotfixes: { '202604.01': '202604.01.1', '202605.30': '202605.30.2' } });
});
test('invalid JSON errors', () => {
  const err = parseError('not json');
  assert.match(err.message, `parsing hotfix config ${P}: `);
  assert.is(err.code, 'ANC_HOTFIX');
});
test('ignores extra fields (forward compat)', () => {
  assert.equal(parsePointer('{"version":"202604.01.1","future":{"x":[1,2]},"n":5}', P).version, '202604.01.1');
});
test('keys match case-insensitively; every matching key decodes in document order (Go), the last one wins', () => {
  assert.equal(parsePointer('{"VERSION":"a","Hotfixes":{"b":"c"},"Scripts_Version":"s"}', P), {
    version: 'a',
    scriptsVersion: 's',
    hotfixes: { b: 'c' },
  });
  assert.is(parsePointer('{"Version":"upper","version":"exact"}', P).version, 'exact');
  assert.is(parsePointer('{"version":"exact","VERSION":"upper"}', P).version, 'upper');
  assert.is(parsePointer('{"version":"exact","VERSION":null}', P).version, 'exact');
  assert.is(parsePointer('{"\u017fcripts_version":"longs"}', P).scriptsVersion, 'longs');
});
test('null values leave fields empty; null map entry is empty string', () => {
  assert.equal(parsePointer('{"version":null,"hotfixes":null}', P), emptyPointer());
  assert.equal(parsePointer('{"hotfixes":{"202604.01":null}}', P).hotfixes, { '202604.01': '' });
});
test('wrong value types are errors', () => {
  for (const t of [
    '{"version":5}',
    '{"version":true}',
    '{"hotfixes":[]}',
    '{"hotfixes":"x"}',
    '{"hotfixes":{"a":1}}',
    '[]',
    '"x"',
    '5',
    '{"scripts_version":{}}',
  ]) {
    assert.match(parseError(t).message, `parsing hotfix config ${P}: `, t);
  }
});
test('__proto__ map key is an ordinary entry', () => {
  const p = parsePointer('{"hotfixes":{"__proto__":"x"}}', P);
  assert.equal(Object.keys(p.hotfixes), ['__proto__']);
  assert.is(Object.getPrototypeOf(p.hotfixes), Object.prototype);
});

// D2 read-modify-write
test('merge keeps version and scripts_version, replaces hotfixes', () => {
  const existing = { version: '202604.01.1', scriptsVersion: 's1', hotfixes: { old: '1' } };
  assert.equal(mergePointer(existing, { '202604.01': '202604.01.2' }), {
    version: '202604.01.1',
    scriptsVersion: 's1',
    hotfixes: { '202604.01': '202604.01.2' },
  });
  assert.equal(existing.hotfixes, { old: '1' }, 'input untouched');
});
test('merge stages a served legacy version; empty legacy keeps the existing one', () => {
  const existing = { version: 'old', scriptsVersion: '', hotfixes: {} };
  assert.is(mergePointer(existing, {}, '202604.01.3').version, '202604.01.3');
  assert.is(mergePointer(existing, {}, '  ').version, 'old');
  assert.is(mergePointer(existing, {}).version, 'old');
});
test('serialize omits an empty version and scripts_version (reference omitempty), keeps non-empty ones', () => {
  const cases: [string, Partial<HotfixPointer>, string][] = [
    ['empty map', {}, '{"hotfixes":{}}'],
    ['map only', { hotfixes: { '202604.01': '202604.01.2' } }, '{"hotfixes":{"202604.01":"202604.01.2"}}'],
    ['legacy version kept (D2)', { version: '202604.01.1' }, '{"version":"202604.01.1","hotfixes":{}}'],
    ['scripts_version only', { scriptsVersion: 's1', hotfixes: { a: 'b' } }, '{"scripts_version":"s1","hotfixes":{"a":"b"}}'],
    ['both', { version: 'v', scriptsVersion: 's' }, '{"version":"v","scripts_version":"s","hotfixes":{}}'],
  ];
  for (const [what, p, want] of cases) assert.is(serializePointer({ ...emptyPointer(), ...p }), want, what);
});
test('serialize: key order, sorted map, HTML-safe', () => {
  assert.is(
    serializePointer({
      version: '<a&b>',
      scriptsVersion: 's',
      hotfixes: { '202605.30': 'x', '202604': 'y', '202604.01': 'z', B: '1', a: '2' },
    }),
    '{"version":"\\u003ca\\u0026b\\u003e","scripts_version":"s","hotfixes":{"202604":"y","202604.01":"z","202605.30":"x","B":"1","a":"2"}}',
  );
});
test('serialize sorts by code point (Go byte order), not UTF-16 units', () => {
  const out = serializePointer({ version: '', scriptsVersion: '', hotfixes: { '\u{1F600}': '1', '\uFF21': '2' } });
  assert.is(out, '{"hotfixes":{"\uFF21":"2","\u{1F600}":"1"}}');
});
test('serialize then parse round-trips', () => {
  const p = { version: '202604.01.1', scriptsVersion: 'v9', hotfixes: { '202604.01': '202604.01.2', '202605.30': '202605.30.1' } };
  assert.equal(parsePointer(serializePointer(p), P), p);
});

test('pointer text: Go whitespace is "no pointer"; a lone surrogate escape becomes U+FFFD and is written as such', () => {
  assert.equal(parsePointer('\u0085 \u3000', P), emptyPointer());
  assert.throws(() => parsePointer('\uFEFF', P), /parsing hotfix config/);
  const p = parsePointer('{"version":"v\\ud800","hotfixes":{"202604.01\\udc00":"202604.01.2"}}', P);
  assert.equal(p, { version: 'v\uFFFD', scriptsVersion: '', hotfixes: { '202604.01\uFFFD': '202604.01.2' } });
  assert.is(serializePointer(p), '{"version":"v\uFFFD","hotfixes":{"202604.01\uFFFD":"202604.01.2"}}');
  assert.is(mergePointer({ ...emptyPointer(), version: 'old' }, {}, '\u0085').version, 'old', 'a Go-whitespace legacy version is empty');
});

test.run();

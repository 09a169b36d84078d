// The `rollout` member of the hotfix pointer: parsing (one parser for the file and the ConfigMap),
// serialising (absent when empty: older pointers stay byte-identical), and check-hotfix staging it with
// the map (D2 read-modify-write).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCheckHotfix } from '../../../src/pointer/check.ts';
import { emptyPointer, mergePointer, parsePointer, serializePointer } from '../../../src/pointer/document.ts';
import { errorMessage } from '../../../src/platform/errors.ts';
import { fakeDeps } from '../../fakes/deps.ts';

const P = '/p.json';
const WAVED = '{"hotfixes":{"202604.01":"202604.01.1"},"rollout":{"202604.01":{"percent":10,"salt":"wave-1"}}}';
const failure = (text: string) => {
  try {
    parsePointer(text, P);
  } catch (error) {
    return errorMessage(error);
  }
  return 'no error';
};

test('parse: rollout beside hotfixes; keys fold like the other fields; absent = no member', () => {
  assert.equal(parsePointer(WAVED, P).rollout, { '202604.01': { percent: 10, salt: 'wave-1' } });
  assert.equal(parsePointer('{"Rollout":{"b":{"Percent":12.5,"SALT":"s"}}}', P).rollout, { b: { percent: 12.5, salt: 's' } });
  assert.equal(parsePointer('{"rollout":{"b":{"percent":0}}}', P).rollout, { b: { percent: 0, salt: '' } });
  assert.equal(parsePointer('{"hotfixes":{"a":"b"}}', P), { ...emptyPointer(), hotfixes: { a: 'b' } });
  assert.is('rollout' in parsePointer('{"rollout":null}', P), false);
});

test('parse: a malformed wave is an error naming the field (download-hotfix then installs nothing)', () => {
  assert.match(failure('{"rollout":[]}'), 'cannot unmarshal array into field rollout');
  assert.match(failure('{"rollout":{"b":5}}'), 'cannot unmarshal number into field rollout["b"]');
  assert.match(failure('{"rollout":{"b":{"percent":101,"salt":"s"}}}'), 'rollout["b"].percent: expected a number from 0 to 100, got 101');
  assert.match(failure('{"rollout":{"b":{"percent":-1}}}'), 'got -1');
  assert.match(failure('{"rollout":{"b":{"percent":"10"}}}'), 'got "10"');
  assert.match(failure('{"rollout":{"b":{"salt":"s"}}}'), 'got null');
  assert.match(failure('{"rollout":{"b":{"percent":5,"salt":7}}}'), 'into field rollout["b"].salt of type string');
});

test('serialize: rollout after hotfixes, keys sorted, omitted when empty; round trip', () => {
  const p = parsePointer(WAVED, P);
  assert.is(serializePointer(p), WAVED);
  assert.equal(parsePointer(serializePointer(p), P), p);
  assert.is(serializePointer({ ...emptyPointer(), rollout: {} }), '{"hotfixes":{}}');
  const two = serializePointer({ ...emptyPointer(), rollout: { z: { percent: 1, salt: '<' }, a: { percent: 33.5, salt: '' } } });
  assert.is(two, '{"hotfixes":{},"rollout":{"a":{"percent":33.5,"salt":""},"z":{"percent":1,"salt":"\\u003c"}}}');
});

test('merge (D2): the waves are replaced together with the map; no served waves = none kept', () => {
  const existing = parsePointer('{"version":"v","scripts_version":"s","hotfixes":{"a":"1"},"rollout":{"a":{"percent":5,"salt":"x"}}}', P);
  assert.equal(mergePointer(existing, { b: '2' }, undefined, { b: { percent: 50, salt: 'y' } }), {
    version: 'v',
    scriptsVersion: 's',
    hotfixes: { b: '2' },
    rollout: { b: { percent: 50, salt: 'y' } },
  });
  assert.equal(mergePointer(existing, { b: '2' }), { version: 'v', scriptsVersion: 's', hotfixes: { b: '2' } });
});

test('check-hotfix stages the served rollout with the map; an older ConfigMap without one keeps working', async () => {
  const d = fakeDeps();
  try {
    const served = { hotfixes: { '202604.01': '202604.01.1' }, rollout: { '202604.01': { percent: 10, salt: 'wave-1' } } };
    const body = (doc: unknown) => async () => JSON.stringify({ data: { 'hotfixes.json': JSON.stringify(doc) } });
    mkdirSync(dirname(d.paths.hotfixPointer), { recursive: true });
    writeFileSync(d.paths.hotfixPointer, '{"version":"old","scripts_version":"s7","hotfixes":{}}');
    assert.is(await runCheckHotfix(d, { args: [], fetchConfigMap: body(served) }), 0);
    assert.match(d.emitted[0]!.message, 'outcome=configMapRead');
    assert.is(
      readFileSync(d.paths.hotfixPointer, 'utf8'),
      '{"version":"old","scripts_version":"s7","hotfixes":{"202604.01":"202604.01.1"},"rollout":{"202604.01":{"percent":10,"salt":"wave-1"}}}',
    );
    await runCheckHotfix(d, { args: [], fetchConfigMap: body({ hotfixes: served.hotfixes }) });
    assert.is(
      readFileSync(d.paths.hotfixPointer, 'utf8'),
      '{"version":"old","scripts_version":"s7","hotfixes":{"202604.01":"202604.01.1"}}',
    );
  } finally {
    d.cleanup();
  }
});

test.run();

// Property tests (seeded, reproducible): the loader never throws, its output always has the
// Configuration shape, and a bad value never costs a valid sibling.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import { marshalConfiguration } from '../../../src/config/marshal.ts';
import { checkConfigurationShape } from '../../../src/config/schema.ts';
import { MESSAGES } from '../../../src/config/types.ts';
import type { FieldInfo, MessageName } from '../../../src/config/types.ts';
import { badValue, int, message, mulberry32, pick, shuffleKeys } from './gen.ts';

const SEED = Number(process.env.ANC_PROPERTY_SEED ?? 20261121);
const ITERATIONS = 3000;
const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '"',
  '"version"',
  '"v1"',
  'null',
  'true',
  'fals',
  '-',
  '1e400',
  '0',
  '01',
  '"\\u',
  '\\',
  '\uFEFF',
  ' ',
  '\n',
  '"vm_size"',
  '"vmSize"',
  '"clusterConfig"',
  '"\\ud800"',
  '1.5',
  '"NaN"',
];

function mutate(rng: () => number, text: string): string {
  const chars = [...text];
  for (let i = 0, n = int(rng, 1, 4); i < n; i++) {
    const at = int(rng, 0, chars.length);
    const op = rng();
    if (op < 0.35) chars.splice(at, int(rng, 1, 5));
    else if (op < 0.7) chars.splice(at, 0, pick(rng, TOKENS));
    else chars.length = Math.min(chars.length, at);
  }
  return chars.join('');
}

test(`loadConfiguration never throws and always returns a well-shaped config (${ITERATIONS} inputs, seed ${SEED})`, () => {
  const rng = mulberry32(SEED);
  for (let i = 0; i < ITERATIONS; i++) {
    const [doc] = message(rng, 'Configuration');
    const base = JSON.stringify(rng() < 0.5 ? { version: 'v1', ...doc } : doc);
    const text = rng() < 0.2 ? Array.from({ length: int(rng, 0, 30) }, () => pick(rng, TOKENS)).join('') : mutate(rng, base);
    let result: ReturnType<typeof loadConfiguration> | undefined;
    try {
      result = loadConfiguration(text);
    } catch (e) {
      assert.unreachable(`threw on input #${i} ${JSON.stringify(text).slice(0, 200)}: ${String(e)}`);
    }
    assert.type(result?.config, 'object');
    assert.ok(Array.isArray(result?.issues));
    const shape = checkConfigurationShape(result?.config);
    assert.equal(shape, [], `input #${i}: ${JSON.stringify(text).slice(0, 200)}`);
    for (const issue of result?.issues ?? []) {
      assert.ok(issue.path.startsWith('$') && typeof issue.message === 'string', JSON.stringify(issue));
    }
  }
});

test('loadConfiguration survives pathological inputs', () => {
  const deep = '['.repeat(100000) + ']'.repeat(100000);
  const deepObj = '{"a":'.repeat(50000) + '1' + '}'.repeat(50000);
  for (const text of [deep, deepObj, '"' + 'x'.repeat(1e6), '{"version":"v1","x":' + deep + '}', '\u0000', '{"\ud800":1}']) {
    const r = loadConfiguration(text);
    assert.type(r.config, 'object');
    assert.ok(r.issues.length > 0);
  }
  assert.equal(loadConfiguration('{"version":"v1","x":' + deep + '}').config, { version: 'v1' });
  // Not a string at all (a JS caller ignoring the types): still no throw.
  assert.type(loadConfiguration(undefined as unknown as string).config, 'object');
});

test(`a bad value never loses a valid sibling: every bad field reported at its own path (${ITERATIONS / 3} configs)`, () => {
  const rng = mulberry32(SEED + 1);
  for (let i = 0; i < ITERATIONS / 3; i++) {
    const [input, stored] = message(rng, 'Configuration');
    const want = { ...stored, version: 'v1' } as Record<string, unknown>;
    const doc: Record<string, unknown> = { ...input, version: 'v1' };
    // Replace 1-3 top-level fields (new or existing) with wrongly typed values.
    const badPaths = new Map<string, string>();
    for (let k = 0, n = int(rng, 1, 3); k < n; k++) {
      const field = pick(
        rng,
        MESSAGES.Configuration.fields.filter((f) => f.json !== 'version'),
      );
      delete doc[field.json];
      delete doc[field.proto];
      delete want[field.json];
      const key = rng() < 0.5 ? field.json : field.proto;
      doc[key] = badValue(rng, field);
      badPaths.set(field.proto, `$.${key}`);
    }
    const r = loadConfiguration(JSON.stringify(shuffleKeys(rng, doc)));
    assert.equal(r.config, want, `case ${i}`);
    const errorPaths = r.issues.filter((x) => x.severity === 'error').map((x) => x.path);
    assert.equal(new Set(errorPaths), new Set(badPaths.values()), `case ${i}: ${JSON.stringify(r.issues)}`);
  }
});

type Obj = Record<string, unknown>;

/** Replaces one field somewhere down the message tree of `input` with a bad value; mirrors it in `stored`. */
function injectNested(rng: () => number, input: Obj, stored: Obj): string {
  let msg: MessageName = 'Configuration';
  let inObj = input;
  let stObj = stored;
  let path = '$';
  for (;;) {
    const subs = Object.keys(inObj)
      .map((k) => [k, MESSAGES[msg].fields.find((f) => f.json === k || f.proto === k)] as const)
      .filter((e): e is readonly [string, FieldInfo] => e[1]?.message !== undefined && !e[1].repeated);
    if (subs.length === 0 || rng() < 0.25) break;
    const [k, f] = pick(rng, subs);
    inObj = inObj[k] as Obj;
    stObj = stObj[f.json] as Obj;
    msg = f.message as MessageName;
    path += `.${k}`;
  }
  const field = pick(
    rng,
    MESSAGES[msg].fields.filter((f) => f.json !== 'version'),
  );
  delete inObj[field.json];
  delete inObj[field.proto];
  delete stObj[field.json];
  const key = rng() < 0.5 ? field.json : field.proto;
  inObj[key] = badValue(rng, field);
  return `${path}.${key}`;
}

test(`a bad value deep in the tree costs only itself (${ITERATIONS / 3} configs)`, () => {
  const rng = mulberry32(SEED + 3);
  for (let i = 0; i < ITERATIONS / 3; i++) {
    const [input, stored] = message(rng, 'Configuration');
    input.version = 'v1';
    stored.version = 'v1';
    const badPath = injectNested(rng, input, stored);
    const r = loadConfiguration(JSON.stringify(shuffleKeys(rng, input)));
    assert.equal(r.config, stored, `case ${i}: ${badPath}`);
    assert.equal(
      r.issues.filter((x) => x.severity === 'error').map((x) => x.path),
      [badPath],
      `case ${i}`,
    );
  }
});

test(`marshal round trip and key-order independence (${ITERATIONS / 3} configs)`, () => {
  const rng = mulberry32(SEED + 2);
  for (let i = 0; i < ITERATIONS / 3; i++) {
    const [input, stored] = message(rng, 'Configuration');
    const loaded = loadConfiguration(JSON.stringify(input));
    assert.equal(loaded.config, stored, `case ${i}`);
    const text = marshalConfiguration(loaded.config);
    const again = loadConfiguration(text);
    assert.equal(again.config, loaded.config, `case ${i}`);
    assert.equal(
      again.issues.filter((x) => x.kind !== 'version'),
      [],
    );
    const shuffled = loadConfiguration(JSON.stringify(shuffleKeys(rng, input))).config;
    assert.is(marshalConfiguration(shuffled), text, `case ${i}`);
    assert.is(marshalConfiguration(shuffled, { indent: 0 }), marshalConfiguration(loaded.config, { indent: 0 }));
  }
});

test.run();

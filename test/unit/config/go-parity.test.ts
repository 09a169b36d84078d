// Issue 24, classes 1 and 4 at the config loader: every int32 and double field at any depth (map values
// included) takes protojson's numeric strings, and every map drops (and reports) an entry whose KEY holds
// a lone surrogate escape. The fields are walked from the generated catalogue, so a new field is covered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MESSAGES, ROOT_MESSAGE } from '../../../src/config/generated/catalog.ts';
import type { FieldInfo } from '../../../src/config/generated/catalog.ts';
import type { MessageName } from '../../../src/config/generated/types.ts';
import { childPath } from '../../../src/config/issues.ts';
import { loadConfiguration } from '../../../src/config/load.ts';

interface Site {
  /** JSON path segments from the root to the field (a map-valued message goes through key "k"). */
  segments: string[];
  field: FieldInfo;
}

/** Every field reachable from Configuration, with the path that reaches it. */
function sites(message: MessageName = ROOT_MESSAGE, segments: string[] = [], seen = new Set<MessageName>()): Site[] {
  if (seen.has(message)) return [];
  const inner = new Set(seen).add(message);
  return MESSAGES[message].fields.flatMap((field) => {
    const here = [...segments, field.json];
    const nested = field.message
      ? sites(field.message, here, inner)
      : field.mapValueMessage
        ? sites(field.mapValueMessage, [...here, 'k'], inner)
        : [];
    return [{ segments: here, field }, ...nested];
  });
}

/** The config text with `raw` (JSON text) at the path, next to a version so it loads. */
function configWith(segments: string[], raw: string): string {
  let value = raw;
  for (const segment of [...segments].reverse()) value = `{${JSON.stringify(segment)}:${value}}`;
  return `{"version":"v1",${value.slice(1)}`;
}

function valueAt(config: unknown, segments: string[]): unknown {
  return segments.reduce<unknown>((o, s) => (o as Record<string, unknown> | undefined)?.[s], config);
}

const ALL = sites();
const NUMERIC = ALL.filter((s) => !s.field.map && !s.field.repeated && (s.field.type === 'int32' || s.field.type === 'double'));
const MAPS = ALL.filter((s) => s.field.map);

test('the walk reaches the numbers and maps the issue names', () => {
  const names = NUMERIC.map((s) => s.segments.join('.'));
  assert.ok(names.includes('localDnsProfile.vnetDnsOverrides.k.maxConcurrent'), names.join(' '));
  assert.ok(names.includes('cseTimeout'));
  assert.ok(NUMERIC.some((s) => s.field.type === 'double'));
  const maps = MAPS.map((s) => s.field.json);
  for (const name of [
    'kubeletFlags',
    'kubeletNodeLabels',
    'evictionHard',
    'systemReserved',
    'kubeReserved',
    'featureGates',
    'vnetDnsOverrides',
    'kubeDnsOverrides',
  ])
    assert.ok(maps.includes(name), name);
});

test('protojson numeric strings at every int32 and double field (any depth, map values included)', () => {
  // [JSON text, value, warned]; undefined: a bad value, dropped and reported at that path. Text after
  // the number is what the reference ignores too: the value is kept, and a warning says so (--strict fails).
  const table: Array<[string, number | undefined, boolean]> = [
    ['"600"', 600, false],
    ['"600 seconds"', 600, true],
    ['"1,2"', 1, true],
    ['"8:00"', 8, true],
    ['"7 x"', 7, true],
    ['"1 "', undefined, false],
    ['"2x"', undefined, false],
    ['"1e3x"', undefined, false],
    ['""', undefined, false],
  ];
  for (const site of NUMERIC) {
    const path = `$.${site.segments.join('.')}`;
    for (const [raw, want, warned] of table) {
      const r = loadConfiguration(configWith(site.segments, raw));
      const label = `${site.segments.join('.')} = ${raw}`;
      assert.is(valueAt(r.config, site.segments), want, label);
      const of = (severity: string) => r.issues.filter((i) => i.severity === severity).map((i) => i.path);
      assert.equal(of('error'), want === undefined ? [path] : [], label);
      assert.equal(of('warning'), warned ? [path] : [], label);
    }
    // The dangling exponent: 1 for an integer field, an error for a floating-point one.
    const dangling = valueAt(loadConfiguration(configWith(site.segments, '"1e x"')).config, site.segments);
    assert.is(dangling, site.field.type === 'int32' ? 1 : undefined, `${site.segments.join('.')} = "1e x"`);
  }
});

test('N5: a numeric string with a lone surrogate escape after the number is dropped and reported, at every int32 and double field', () => {
  // protojson's tokenizer rejects such a string whole (the reference fails the document); D7: the field
  // alone is dropped, with the issue at its path. Never the leading number.
  const cases = ['"600\\ud800"', '"600\\udc00"', '"1.5\\udbff"', '"7 \\ud800"', '"600 seconds\\udfff"', '"8\\ud800x"'];
  for (const site of NUMERIC) {
    const path = `$.${site.segments.join('.')}`;
    for (const raw of cases) {
      const label = `${site.segments.join('.')} = ${raw}`;
      const r = loadConfiguration(configWith(site.segments, raw));
      assert.is(valueAt(r.config, site.segments), undefined, label);
      assert.equal(
        r.issues.map((i) => [i.path, i.kind, i.severity]),
        [[path, 'bad-value', 'error']],
        label,
      );
      assert.match(r.issues[0]!.message, 'lone surrogate', label);
    }
    // A well-formed pair after the number is text the reference ignores: the number, with a warning.
    const pair = loadConfiguration(configWith(site.segments, '"600\\ud83d\\ude00"'));
    assert.is(valueAt(pair.config, site.segments), 600, site.segments.join('.'));
    assert.equal(
      pair.issues.map((i) => i.severity),
      ['warning'],
    );
  }
});

test('a lone surrogate escape in a map KEY drops that entry alone and reports it, in every map', () => {
  const sample = (f: FieldInfo) => (f.mapValueMessage ? '{}' : f.mapValue === 'bool' ? 'true' : '"v"');
  for (const site of MAPS) {
    const v = sample(site.field);
    const text = configWith(site.segments, `{"ok":${v},"bad\\ud800":${v},"\\udc00":${v}}`);
    const r = loadConfiguration(text);
    const map = valueAt(r.config, site.segments) as Record<string, unknown>;
    const label = site.segments.join('.');
    assert.equal(Object.keys(map), ['ok'], label);
    const reported = r.issues.filter((i) => i.kind === 'bad-value' && i.severity === 'error');
    assert.equal(
      reported.map((i) => i.path),
      [childPath(`$.${label}`, 'bad\ud800'), childPath(`$.${label}`, '\udc00')],
      label,
    );
    assert.match(reported[0]!.message, 'lone surrogate');
  }
});

test('the PR #9576 fields (spec 1.2.14, wire numbers inferred) load like their neighbours; a repeated message keeps {}', () => {
  const r = loadConfiguration(
    '{"version":"v1","kubeletConfig":{"kubeletConfigFileConfig":{"enableServer":false,"maxPods":3,"register_with_taints":[{"key":"a","time_added":"t"},{}]}}}',
  );
  assert.equal(r.config.kubeletConfig?.kubeletConfigFileConfig, {
    enableServer: false,
    maxPods: 3,
    registerWithTaints: [{ key: 'a', timeAdded: 't' }, {}],
  });
  assert.equal(r.issues, []);
  const bad = loadConfiguration(
    '{"version":"v1","kubeletConfig":{"kubeletConfigFileConfig":{"registerWithTaints":[{"key":"a"},"b",{"bogus":1}]}}}',
  );
  assert.equal(bad.config.kubeletConfig?.kubeletConfigFileConfig, { registerWithTaints: [{ key: 'a' }, {}] });
  assert.equal(
    bad.issues.map((i) => [i.path, i.kind, i.severity]),
    [
      ['$.kubeletConfig.kubeletConfigFileConfig.registerWithTaints[1]', 'bad-value', 'error'],
      ['$.kubeletConfig.kubeletConfigFileConfig.registerWithTaints[2].bogus', 'unknown-field', 'warning'],
    ],
  );
});

test.run();

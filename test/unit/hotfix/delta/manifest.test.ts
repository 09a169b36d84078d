import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deltaFor, DeltaManifestError, MANIFEST_SCHEMA, parseDeltaManifest } from '../../../../src/hotfix/delta/manifest.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const T = 'c'.repeat(64);
const EXPECTED = { version: '202604.01.1', architecture: 'amd64' };

function manifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: MANIFEST_SCHEMA,
    package: 'aks-node-controller',
    version: '202604.01.1',
    architecture: 'amd64',
    format: 'vcdiff',
    target: { sha256: T, size: 1000 },
    deltas: [{ base: { sha256: A, size: 900 }, file: `${A}.vcdiff`, sha256: B, size: 42 }],
    ...overrides,
  };
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

function rejects(value: unknown, kind: 'invalid' | 'unsupported', pattern: RegExp): void {
  try {
    parseDeltaManifest(typeof value === 'string' ? new TextEncoder().encode(value) : bytes(value), EXPECTED);
  } catch (error) {
    assert.instance(error, DeltaManifestError);
    assert.is((error as DeltaManifestError).kind, kind);
    assert.is((error as DeltaManifestError).step, kind === 'invalid' ? 'integrityFailed' : 'deltaUnavailable');
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(value)}`);
}

test('parses a manifest and finds the entry for a base sha256', () => {
  const m = parseDeltaManifest(bytes(manifest()), EXPECTED);
  assert.equal(m.target, { sha256: T, size: 1000 });
  assert.is(deltaFor(m, A)?.file, `${A}.vcdiff`);
  assert.is(deltaFor(m, B), undefined);
});

test('every sha256 must be lowercase hex: the target, each base and each delta', () => {
  rejects(manifest({ target: { sha256: T.toUpperCase(), size: 1 } }), 'invalid', /manifest\.target\.sha256 must be 64 lowercase hex/);
  rejects(
    manifest({ deltas: [{ base: { sha256: 'A'.repeat(64), size: 1 }, file: 'x', sha256: B, size: 1 }] }),
    'invalid',
    /deltas\[0\]\.base\.sha256/,
  );
  rejects(
    manifest({ deltas: [{ base: { sha256: A, size: 1 }, file: `${A}.vcdiff`, sha256: B.slice(1), size: 1 }] }),
    'invalid',
    /deltas\[0\]\.sha256/,
  );
});

test('file names are derived from the base (no path tricks), bases are unique, sizes positive', () => {
  rejects(manifest({ deltas: [{ base: { sha256: A, size: 1 }, file: `../${A}.vcdiff`, sha256: B, size: 1 }] }), 'invalid', /file must be/);
  const one = { base: { sha256: A, size: 1 }, file: `${A}.vcdiff`, sha256: B, size: 1 };
  rejects(manifest({ deltas: [one, one] }), 'invalid', /listed twice/);
  rejects(manifest({ target: { sha256: T, size: 0 } }), 'invalid', /target\.size must be a positive integer/);
});

test('version, architecture and package must be the ones resolved', () => {
  rejects(manifest({ version: '202604.01.2' }), 'invalid', /version 202604\.01\.2 is not the resolved 202604\.01\.1/);
  rejects(manifest({ architecture: 'arm64' }), 'invalid', /architecture arm64 is not amd64/);
  rejects(manifest({ package: 'other' }), 'invalid', /package is "other"/);
});

test('a newer schema or another format is unsupported (the node falls back), broken JSON is invalid', () => {
  rejects(manifest({ schema: 'aks-node-controller-delta/2' }), 'unsupported', /schema/);
  rejects(manifest({ format: 'zstd-patch' }), 'unsupported', /format "zstd-patch"/);
  rejects('{"schema":', 'invalid', /not UTF-8 JSON/);
  rejects('[]', 'invalid', /manifest must be an object/);
  rejects(' '.repeat(300 * 1024), 'invalid', /above the 262144-byte limit/);
});

test.run();

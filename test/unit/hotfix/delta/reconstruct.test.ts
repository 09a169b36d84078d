// The streaming reconstruction against real files: xdelta3 deltas, the real file system in a temp root.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeltaManifest } from '../../../../src/hotfix/delta/manifest.ts';
import { MANIFEST_SCHEMA } from '../../../../src/hotfix/delta/manifest.ts';
import { reconstructTarget } from '../../../../src/hotfix/delta/reconstruct.ts';
import { isAgentError } from '../../../../src/platform/errors.ts';
import { fakeDeps } from '../../../fakes/deps.ts';
import { encode, pair } from './xdelta.ts';

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

function setup(seed = 11) {
  const deps = fakeDeps();
  const { base, target } = pair(seed, 2_000_000);
  const delta = encode(base, target);
  const baseFile = join(deps.cwd, 'base');
  writeFileSync(baseFile, base);
  const entry = { base: { sha256: sha(base), size: base.length }, file: `${sha(base)}.vcdiff`, sha256: sha(delta), size: delta.length };
  const manifest: DeltaManifest = {
    schema: MANIFEST_SCHEMA,
    package: 'aks-node-controller',
    version: '202604.01.1',
    architecture: 'amd64',
    format: 'vcdiff',
    target: { sha256: sha(target), size: target.length },
    deltas: [entry],
  };
  const out = join(deps.cwd, 'candidate');
  return { deps, base, target, delta, baseFile, entry, manifest, out };
}

function failure(run: () => unknown): { step: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    assert.ok(isAgentError(error), String(error));
    return { step: error.step, message: error.message };
  }
  assert.unreachable('reconstruction succeeded');
  return { step: '', message: '' };
}

test('rebuilds the target file, hashing as it writes, with the requested mode', () => {
  const s = setup();
  const written = reconstructTarget(s.deps, s.manifest, s.entry, s.delta, s.baseFile, s.out, 0o700);
  assert.equal(written, { size: s.target.length, sha256: sha(s.target) });
  assert.ok(readFileSync(s.out).equals(s.target));
  assert.is(statSync(s.out).mode & 0o777, 0o700, 'executable only once verified');
  s.deps.cleanup();
});

test('the deadline stops a reconstruction before its next window: deltaUnavailable, the partial file removed', () => {
  const s = setup();
  const delta = encode(readFileSync(s.baseFile), s.target, ['-9', '-S', 'none', '-A', '-n', '-W', '65536']);
  const entry = { ...s.entry, sha256: sha(delta), size: delta.length };
  let checks = 0;
  const f = failure(() => reconstructTarget(s.deps, s.manifest, entry, delta, s.baseFile, s.out, 0o700, () => (checks++ === 0 ? 1000 : 0)));
  assert.is(f.step, 'deltaUnavailable');
  assert.match(f.message, /no time left to reconstruct \(stopped after \d+ bytes\)/);
  assert.not.ok(existsSync(s.out));
  s.deps.cleanup();
});

test('a corrupted delta fails its manifest digest: integrity, nothing written', () => {
  const s = setup();
  const corrupt = Buffer.from(s.delta);
  corrupt[corrupt.length - 10]! ^= 1;
  const f = failure(() => reconstructTarget(s.deps, s.manifest, s.entry, corrupt, s.baseFile, s.out, 0o700));
  assert.is(f.step, 'integrityFailed');
  assert.match(f.message, /has sha256 [0-9a-f]{64}, the manifest says/);
  assert.not.ok(existsSync(s.out));
  s.deps.cleanup();
});

test('a reconstruction that does not match the manifest target: integrity, the partial file is removed', () => {
  const s = setup();
  const wrong = { ...s.manifest, target: { ...s.manifest.target, sha256: 'f'.repeat(64) } };
  const f = failure(() => reconstructTarget(s.deps, wrong, s.entry, s.delta, s.baseFile, s.out, 0o700));
  assert.is(f.step, 'integrityFailed');
  assert.match(f.message, /does not match the manifest's target/);
  const shorter = { ...s.manifest, target: { ...s.manifest.target, size: s.target.length - 1 } };
  assert.is(failure(() => reconstructTarget(s.deps, shorter, s.entry, s.delta, s.baseFile, s.out, 0o700)).step, 'integrityFailed');
  assert.equal(readdirSync(s.deps.cwd).sort(), ['base']);
  s.deps.cleanup();
});

test('a base that is not the one the delta was made from: the result cannot match (integrity)', () => {
  const s = setup();
  const other = Buffer.from(s.base);
  other[12345]! ^= 0xff;
  writeFileSync(s.baseFile, other);
  assert.is(failure(() => reconstructTarget(s.deps, s.manifest, s.entry, s.delta, s.baseFile, s.out, 0o700)).step, 'integrityFailed');
  assert.not.ok(existsSync(s.out));
  s.deps.cleanup();
});

test('an undecodable delta that matches its digest, or a missing base: unavailable (fall back)', () => {
  const s = setup();
  const junk = Buffer.from('not a vcdiff at all');
  const junkEntry = { ...s.entry, sha256: sha(junk), size: junk.length };
  const f = failure(() => reconstructTarget(s.deps, s.manifest, junkEntry, junk, s.baseFile, s.out, 0o700));
  assert.is(f.step, 'deltaUnavailable');
  assert.match(f.message, /bad magic/);
  assert.not.ok(existsSync(s.out));
  const g = failure(() => reconstructTarget(s.deps, s.manifest, s.entry, s.delta, join(s.deps.cwd, 'nope'), s.out, 0o700));
  assert.is(g.step, 'deltaUnavailable');
  assert.match(g.message, /reading the base executable/);
  s.deps.cleanup();
});

test('an existing file at the output path is never overwritten', () => {
  const s = setup();
  writeFileSync(s.out, 'someone else');
  const f = failure(() => reconstructTarget(s.deps, s.manifest, s.entry, s.delta, s.baseFile, s.out, 0o700));
  assert.is(f.step, 'deltaUnavailable');
  assert.is(readFileSync(s.out, 'utf8'), 'someone else');
  s.deps.cleanup();
});

test.run();

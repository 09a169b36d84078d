// The rollout library as a consumer sees it: scripts/build-lib.mjs bundles src/config/rollout.ts into one
// dependency-free ES module; a plain `node` process (no TypeScript loader) imports it and gets the same
// hashes and decisions as the agent's own code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configHashes, diffConfigurations } from '../../../src/config/rollout.ts';
import { mulberry32, mutate, randomConfiguration } from '../../unit/rollout/gen.ts';

const outdir = mkdtempSync(join(tmpdir(), 'anc-rollout-lib-'));
const bundle = join(outdir, 'rollout.mjs');

test.before(() => {
  const r = spawnSync(process.execPath, ['scripts/build-lib.mjs', '--outdir', outdir], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /built .*rollout\.mjs \(\d+ bytes\)/);
});

test('the bundle is one self-contained ES module without node: or require dependencies', () => {
  const text = readFileSync(bundle, 'utf8');
  assert.not.match(text, /from\s*["']node:|require\(|import\(["']/);
  assert.match(text, /^export \{/m);
});

test('a plain node consumer imports it and classifies a token rotation and a version bump', () => {
  const script = `
    import { loadConfiguration, configHashes, diffConfigurations, classifyField, rolloutHash, payloadHash, FIELD_CLASSES } from ${JSON.stringify(pathToFileURL(bundle).href)};
    const a = loadConfiguration('{"version":"v1","kubernetesVersion":"1.30.0","bootstrappingConfig":{"tlsBootstrappingToken":"t1"}}').config;
    const b = loadConfiguration('{"version":"v1","kubernetes_version":"1.30.0","bootstrapping_config":{"tls_bootstrapping_token":"t2"}}').config;
    const c = { ...a, kubernetesVersion: '1.31.0' };
    console.log(JSON.stringify({
      drift: diffConfigurations(a, b), roll: diffConfigurations(a, c).decision, hashes: configHashes(a),
      same: rolloutHash(a) === rolloutHash(b) && payloadHash(a) !== payloadHash(b),
      cls: [classifyField('kubeletConfig.kubeletFlags'), classifyField('bootstrappingConfig.tlsBootstrappingToken')],
      rows: Object.keys(FIELD_CLASSES).length,
    }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  assert.is(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.is(out.drift.decision, 'management-drift');
  assert.equal(out.drift.condition, { type: 'ConfigUpdatePending', reason: 'ManagementConfigDrift' });
  assert.is(out.roll, 'rollout');
  assert.ok(out.same);
  assert.equal(out.cls, ['rollout', 'payload-only']);
  assert.is(out.rows, 268);
  assert.equal(
    out.hashes,
    configHashes({ version: 'v1', kubernetesVersion: '1.30.0', bootstrappingConfig: { tlsBootstrappingToken: 't1' } }),
  );
});

test('a TypeScript consumer type-checks against rollout.d.mts (strict, nodenext), and misuse is rejected', () => {
  const good = `import { configHashes, diffConfigurations, loadConfiguration, type ConfigDiff, type FieldClass } from './rollout.mjs';
    const c = loadConfiguration('{"version":"v1"}').config;
    const d: ConfigDiff = diffConfigurations(c, { ...c, kubernetesVersion: '1.31.0' });
    const decision: 'rollout' | 'management-drift' | 'none' = d.decision;
    const h: string = configHashes(c).rolloutHash;
    const k: FieldClass | undefined = undefined;
    export { decision, h, k };\n`;
  const bad = `import { diffConfigurations } from './rollout.mjs';\nexport const x: number = diffConfigurations({}, {}).decision;\n`;
  const tsc = (name: string, text: string) => {
    writeFileSync(join(outdir, name), text);
    return spawnSync(
      process.execPath,
      [
        join(process.cwd(), 'node_modules/typescript/bin/tsc'),
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        join(outdir, name),
      ],
      { encoding: 'utf8' },
    );
  };
  const ok = tsc('consumer.mts', good);
  assert.is(ok.status, 0, ok.stdout + ok.stderr);
  const wrong = tsc('misuse.mts', bad);
  assert.is.not(wrong.status, 0);
  assert.match(wrong.stdout, /misuse\.mts.*not assignable to type 'number'/);
});

test('the bundle and the source agree on 300 seeded configuration pairs', async () => {
  const lib = await import(pathToFileURL(bundle).href);
  const rng = mulberry32(7);
  for (let i = 0; i < 300; i++) {
    const a = randomConfiguration(rng);
    const b = mutate(rng, a);
    assert.equal(lib.configHashes(a), configHashes(a), `hashes ${i}`);
    assert.equal(lib.diffConfigurations(a, b), diffConfigurations(a, b), `diff ${i}`);
  }
});

test.after(() => rmSync(outdir, { recursive: true, force: true }));
test.run();

// `config hash` / `config diff` (D12) on the compiled binary: JSON and --human output, agreement with the
// library, secrets never printed, clear errors naming the file. Also: custom data for two documents
// with the same payload hash (key order, spelling) is byte-identical (D11).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import { configHashes } from '../../../src/config/rollout.ts';
import { makeSandbox, runAnc } from '../harness.ts';

const sandbox = makeSandbox('anc-e2e-rollout-');
const file = (name: string, doc: unknown) => sandbox.write(`/in/${name}`, typeof doc === 'string' ? doc : JSON.stringify(doc));
const anc = (args: string[]) => runAnc(args, { root: sandbox.root });

const TOKEN = 'abcdef.canary0123456789';
const BASE = {
  version: 'v1',
  kubernetesVersion: '1.30.4',
  bootstrappingConfig: { tlsBootstrappingToken: TOKEN },
  kubeletConfig: { kubeletFlags: { '--max-pods': '110', '--node-status-update-frequency': '10s' } },
};
// Same node, other spelling, other key order, explicit defaults, an unknown field.
const SAME = `{"kubelet_config":{"kubelet_flags":{"--node-status-update-frequency":"10s","--max-pods":"110"}},
  "bootstrapping_config":{"tls_bootstrapping_token":"${TOKEN}"},"isVhd":true,"cseTimeout":900,"fromTheFuture":[1],
  "kubernetes_version":"1.30.4","version":"v1"}`;
const ROTATED = { ...BASE, bootstrappingConfig: { tlsBootstrappingToken: 'zzzzzz.rotated9876543210' } };
const BUMPED = { ...BASE, kubernetesVersion: '1.31.2' };

test('config hash -o json prints both sha256 hashes, equal to the library result', async () => {
  const r = await anc(['config', 'hash', '-o', 'json', file('base.json', BASE)]);
  assert.is(r.exitCode, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(Object.keys(out), ['rolloutHash', 'payloadHash']);
  assert.match(out.rolloutHash, /^[0-9a-f]{64}$/);
  assert.match(out.payloadHash, /^[0-9a-f]{64}$/);
  assert.equal(out, configHashes(loadConfiguration(JSON.stringify(BASE)).config));
  assert.not.ok(r.stdout.includes(TOKEN) || r.stderr.includes(TOKEN));
});

test('key order, spelling, explicit defaults and unknown fields change neither hash', async () => {
  const a = JSON.parse((await anc(['config', 'hash', '-o', 'json', file('base.json', BASE)])).stdout);
  const r = await anc(['config', 'hash', '-o', 'json', file('same.json', SAME)]);
  assert.is(r.exitCode, 0);
  assert.equal(JSON.parse(r.stdout), a);
  assert.match(r.stderr, /fromTheFuture/, 'the unknown field is reported as a warning');
});

test('config diff: token rotation is management drift with the ConfigUpdatePending condition', async () => {
  const r = await anc(['config', 'diff', '-o', 'json', file('base.json', BASE), file('rotated.json', ROTATED)]);
  assert.is(r.exitCode, 2, r.stderr);
  assert.equal(JSON.parse(r.stdout), {
    decision: 'management-drift',
    rolloutFields: [],
    payloadFields: ['bootstrappingConfig.tlsBootstrappingToken'],
    condition: { type: 'ConfigUpdatePending', reason: 'ManagementConfigDrift' },
    changes: [{ path: 'bootstrappingConfig.tlsBootstrappingToken', before: '<redacted>', after: '<redacted>', redacted: true }],
  });
  assert.not.ok(r.stdout.includes('rotated9876543210') || r.stdout.includes(TOKEN), 'no secret values');
});

test('config diff: a Kubernetes version bump is a rollout naming the field', async () => {
  // `-ojson`: the short flag joined to its value, as kubectl users type it.
  const r = await anc(['config', 'diff', '-ojson', file('base.json', BASE), file('bumped.json', BUMPED)]);
  assert.is(r.exitCode, 3);
  assert.equal(JSON.parse(r.stdout), {
    decision: 'rollout',
    rolloutFields: ['kubernetesVersion'],
    payloadFields: [],
    // The values as they are, encoded once (issue 31: not `"\"1.30.4\""`).
    changes: [{ path: 'kubernetesVersion', before: '1.30.4', after: '1.31.2' }],
  });
});

test('config diff: equivalent documents are none', async () => {
  const r = await anc(['config', 'diff', '-o', 'json', file('base.json', BASE), file('same.json', SAME)]);
  assert.is(r.exitCode, 0);
  assert.equal(JSON.parse(r.stdout), { decision: 'none', rolloutFields: [], payloadFields: [], changes: [] });
});

test('config diff (text) prints a readable summary with old -> new values', async () => {
  const drift = await anc(['config', 'diff', file('base.json', BASE), file('rotated.json', ROTATED)]);
  assert.is(drift.exitCode, 2);
  assert.match(drift.stdout, /^decision: management-drift: /);
  assert.match(drift.stdout, /ConfigUpdatePending \(reason ManagementConfigDrift\)/);
  assert.match(
    drift.stdout,
    /payload-only fields \(platform-managed\) \(1\):\n  bootstrappingConfig\.tlsBootstrappingToken: <redacted> -> <redacted>\n/,
  );
  assert.not.ok(drift.stdout.includes(TOKEN));
  const roll = await anc(['config', 'diff', file('base.json', BASE), file('bumped.json', BUMPED), '-o', 'text']);
  assert.match(
    roll.stdout,
    /^decision: rollout: .*\nrollout fields \(customer intent\) \(1\):\n  kubernetesVersion: "1\.30\.4" -> "1\.31\.2"\n$/,
  );
  const none = await anc(['config', 'diff', '--output=text', file('base.json', BASE), file('same.json', SAME)]);
  assert.match(none.stdout, /^decision: none: /);
});

test('unreadable file and invalid JSON: exit 1 with an error naming the file', async () => {
  const missing = await anc(['config', 'hash', sandbox.path('/in/missing.json')]);
  assert.is(missing.exitCode, 1);
  assert.match(missing.stderr, /cannot read configuration file .*missing\.json/);
  const bad = file('bad.json', '{"version": "v1", "kubernetesVersion": ');
  const invalid = await anc(['config', 'diff', file('base.json', BASE), bad]);
  assert.is(invalid.exitCode, 1);
  assert.is(invalid.stdout, '');
  assert.match(invalid.stderr, /bad\.json is not a usable configuration: invalid JSON/);
  const notObject = await anc(['config', 'hash', file('array.json', '[1,2]')]);
  assert.is(notObject.exitCode, 1);
  assert.match(notObject.stderr, /array\.json/);
  const usage = await anc(['config', 'diff', file('base.json', BASE)]);
  assert.is(usage.exitCode, 1);
  assert.match(usage.stderr, /two configuration files/);
});

test('custom data is byte-identical for two documents with the same payload hash (key order, spelling)', async () => {
  const reordered = `{"kubelet_config":{"kubelet_flags":{"--node-status-update-frequency":"10s","--max-pods":"110"}},
    "bootstrapping_config":{"tls_bootstrapping_token":"${TOKEN}"},"kubernetes_version":"1.30.4","version":"v1"}`;
  const a = file('base.json', BASE);
  const b = file('reordered.json', reordered);
  const ha = JSON.parse((await anc(['config', 'hash', '-o', 'json', a])).stdout);
  assert.equal(JSON.parse((await anc(['config', 'hash', '-o', 'json', b])).stdout), ha);
  for (const format of ['mime', 'cloud-config', 'ignition']) {
    const ca = await anc(['custom-data', '--format', format, a]);
    const cb = await anc(['custom-data', '--format', format, b]);
    assert.is(ca.exitCode, 0, ca.stderr);
    assert.ok(ca.stdout.length > 100);
    assert.is(cb.stdout, ca.stdout, format);
  }
});

test('custom data is byte-identical when the only difference is explicit default values', async () => {
  const withDefaults = { ...BASE, isVhd: true, cseTimeout: 900, linuxAdminUsername: 'azureuser' };
  const a = file('base.json', BASE);
  const b = file('explicit-defaults.json', JSON.stringify(withDefaults));
  assert.equal(
    JSON.parse((await anc(['config', 'hash', '-o', 'json', b])).stdout),
    JSON.parse((await anc(['config', 'hash', '-o', 'json', a])).stdout),
  );
  for (const format of ['mime', 'cloud-config', 'ignition']) {
    const ca = await anc(['custom-data', '--format', format, a]);
    const cb = await anc(['custom-data', '--format', format, b]);
    assert.is(cb.exitCode, 0, cb.stderr);
    assert.is(cb.stdout, ca.stdout, format);
  }
});

test.after(() => sandbox.cleanup());
test.run();

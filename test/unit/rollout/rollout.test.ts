// Rollout decisions (D12): token rotation is drift, a Kubernetes bump is a rollout, equivalent documents
// are `none`, and (property) the decision always agrees with the two hashes and the listed fields.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import { configHashes, diffConfigurations, payloadHash, rolloutHash, sha256Hex } from '../../../src/config/rollout.ts';
import type { Configuration } from '../../../src/config/types.ts';
import { sha256Hex as platformSha256 } from '../../../src/platform/hash.ts';
import { mulberry32, mutate, randomConfiguration } from './gen.ts';

const load = (text: string): Configuration => loadConfiguration(text).config;
const BASE = {
  version: 'v1',
  kubernetesVersion: '1.30.4',
  vmSize: 'Standard_D4s_v5',
  bootstrappingConfig: { tlsBootstrappingToken: 'abcdef.0123456789abcdef' },
  kubeBinaryConfig: { kubeBinaryUrl: 'https://mirror/kube-1.30.4.tar.gz', podInfraContainerImageUrl: 'mcr/pause@sha256:aa' },
  kubeletConfig: { kubeletFlags: { '--max-pods': '110' }, kubeletNodeLabels: { team: 'a' } },
};
const withChange = (patch: (c: any) => void): Configuration => {
  const c = structuredClone(BASE) as any;
  patch(c);
  return c as Configuration;
};

test('sha256 matches node:crypto (and platform/hash) on edge lengths and non-ASCII text', () => {
  for (const s of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'a'.repeat(1000), 'ünï😀\u2028'.repeat(37)]) {
    const expected = createHash('sha256').update(s, 'utf8').digest('hex');
    assert.is(sha256Hex(s), expected, `length ${s.length}`);
    assert.is(platformSha256(s), expected);
  }
});

test('bootstrap token rotation is management drift, with the ConfigUpdatePending condition', () => {
  const rotated = withChange((c) => (c.bootstrappingConfig.tlsBootstrappingToken = 'zzzzzz.9999999999999999'));
  assert.is(rolloutHash(rotated), rolloutHash(BASE as Configuration));
  assert.is.not(payloadHash(rotated), payloadHash(BASE as Configuration));
  const diff = diffConfigurations(BASE as Configuration, rotated);
  assert.equal(diff, {
    decision: 'management-drift',
    rolloutFields: [],
    payloadFields: ['bootstrappingConfig.tlsBootstrappingToken'],
    condition: { type: 'ConfigUpdatePending', reason: 'ManagementConfigDrift' },
  });
  assert.not.ok(JSON.stringify(diff).includes('zzzzzz'), 'never prints values');
});

test('a platform image digest / mirror change is drift, not a rollout', () => {
  const d = diffConfigurations(
    BASE as Configuration,
    withChange((c) => {
      c.kubeBinaryConfig.podInfraContainerImageUrl = 'mcr/pause@sha256:bb';
      c.kubeBinaryConfig.kubeBinaryUrl = 'https://other-mirror/kube.tar.gz';
      c.cseTimeout = 1200;
    }),
  );
  assert.is(d.decision, 'management-drift');
  assert.equal(d.payloadFields, ['cseTimeout', 'kubeBinaryConfig.kubeBinaryUrl', 'kubeBinaryConfig.podInfraContainerImageUrl']);
});

test('a Kubernetes version bump is a rollout naming the field; payload changes are listed beside it', () => {
  const d = diffConfigurations(
    BASE as Configuration,
    withChange((c) => {
      c.kubernetesVersion = '1.31.1';
      c.bootstrappingConfig.tlsBootstrappingToken = 'new.token';
    }),
  );
  assert.equal(d, {
    decision: 'rollout',
    rolloutFields: ['kubernetesVersion'],
    payloadFields: ['bootstrappingConfig.tlsBootstrappingToken'],
  });
  assert.is.not(rolloutHash(BASE as Configuration), rolloutHash(withChange((c) => (c.kubernetesVersion = '1.31.1'))));
});

test('map changes name the entry; message-valued map entries appear and disappear as intent', () => {
  const d = diffConfigurations(
    BASE as Configuration,
    withChange((c) => {
      c.kubeletConfig.kubeletFlags['--max-pods'] = '50';
      c.kubeletConfig.kubeletNodeLabels.env = 'prod';
      c.localDnsProfile = { vnetDnsOverrides: { '.': {} } };
    }),
  );
  assert.is(d.decision, 'rollout');
  assert.equal(d.rolloutFields, [
    'kubeletConfig.kubeletFlags["--max-pods"]',
    'kubeletConfig.kubeletNodeLabels["env"]',
    'localDnsProfile.vnetDnsOverrides["."]',
  ]);
});

test('equivalent documents (spelling, order, explicit defaults, unknown fields) diff as none', () => {
  const a = load(
    '{"version":"v1","kubernetesVersion":"1.30.4","isVhd":true,"clusterConfig":{"loadBalancerConfig":{"maxLoadBalancerRuleCount":148}}}',
  );
  const b = load('{"kubernetes_version":"1.30.4","version":"v1","cse_timeout":0,"futureField":{"x":1}}');
  assert.equal(diffConfigurations(a, b), { decision: 'none', rolloutFields: [], payloadFields: [] });
  assert.equal(configHashes(a), configHashes(b));
});

test('presence of kubeletConfig is intent (it decides whether a kubelet config file is written)', () => {
  const d = diffConfigurations(load('{"version":"v1"}'), load('{"version":"v1","kubeletConfig":{}}'));
  assert.equal(d, { decision: 'rollout', rolloutFields: ['kubeletConfig'], payloadFields: [] });
  const auth = diffConfigurations(
    load('{"version":"v1","kubeletConfig":{"kubeletConfigFileConfig":{"maxPods":30}}}'),
    load('{"version":"v1","kubeletConfig":{"kubeletConfigFileConfig":{"maxPods":30,"authentication":{}}}}'),
  );
  assert.equal(auth.decision, 'management-drift');
  assert.equal(auth.payloadFields, ['kubeletConfig.kubeletConfigFileConfig.authentication']);
});

test('PR #9576 fields: a taint change is a rollout, the runtime endpoint is drift, an empty taint counts', () => {
  const taints = (list: unknown[]) =>
    withChange((c) => (c.kubeletConfig.kubeletConfigFileConfig = { cgroupDriver: 'systemd', registerWithTaints: list }));
  const one = taints([{ key: 'workload', value: 'batch', effect: 'NoSchedule' }]);
  const two = taints([{ key: 'workload', value: 'batch', effect: 'NoSchedule' }, {}]);
  assert.equal(diffConfigurations(one, two).rolloutFields, ['kubeletConfig.kubeletConfigFileConfig.registerWithTaints']);
  assert.is(diffConfigurations(one, two).decision, 'rollout');
  const endpoint = withChange((c) => {
    c.kubeletConfig.kubeletConfigFileConfig = {
      cgroupDriver: 'systemd',
      registerWithTaints: [{ key: 'workload', value: 'batch', effect: 'NoSchedule' }],
    };
    c.kubeletConfig.kubeletConfigFileConfig.containerRuntimeEndpoint = 'unix:///run/containerd/containerd.sock';
  });
  const drift = diffConfigurations(one, endpoint);
  assert.is(drift.decision, 'management-drift');
  assert.equal(drift.payloadFields, ['kubeletConfig.kubeletConfigFileConfig.containerRuntimeEndpoint']);
});

test('property: decision is none exactly when payload hashes match; rollout implies different rollout hashes (2000 pairs)', () => {
  const rng = mulberry32(20260421);
  const seen = { rollout: 0, 'management-drift': 0, none: 0 };
  for (let i = 0; i < 2000; i++) {
    const a = randomConfiguration(rng);
    const b = i % 10 === 0 ? randomConfiguration(rng) : mutate(rng, a);
    const ha = configHashes(a);
    const hb = configHashes(b);
    const d = diffConfigurations(a, b);
    seen[d.decision]++;
    const where = `pair ${i}`;
    assert.is(d.decision === 'none', ha.payloadHash === hb.payloadHash, where);
    if (d.decision === 'rollout') assert.is.not(ha.rolloutHash, hb.rolloutHash, where);
    else assert.is(ha.rolloutHash, hb.rolloutHash, where);
    assert.is(d.rolloutFields.length > 0, d.decision === 'rollout', `${where}: rollout fields`);
    if (d.decision === 'management-drift') assert.ok(d.payloadFields.length > 0, where);
    if (d.decision === 'none') assert.is(d.payloadFields.length, 0, where);
    assert.is(d.condition !== undefined, d.decision === 'management-drift', where);
    assert.equal(diffConfigurations(b, a).decision, d.decision, `${where}: symmetric`);
  }
  for (const [decision, count] of Object.entries(seen)) assert.ok(count >= 100, `${decision} occurred only ${count} times`);
});

test.run();

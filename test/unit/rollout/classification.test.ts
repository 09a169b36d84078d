// D12: the classification table covers exactly the catalogue, every row has a reason, containers are
// consistent with their children, and credentials can never cause a rollout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PRESENCE_SIGNIFICANT } from '../../../src/config/canonical.ts';
import { FIELD_CLASSES } from '../../../src/config/classification.ts';
import { classifyField } from '../../../src/config/rollout.ts';
import { MESSAGES } from '../../../src/config/types.ts';
import type { MessageName } from '../../../src/config/types.ts';

const catalogueKeys = Object.values(MESSAGES).flatMap((m) => m.fields.map((f) => `${m.name}.${f.proto}`));

test('the table covers exactly the 268 catalogue fields', () => {
  assert.is(catalogueKeys.length, 268);
  assert.equal(Object.keys(FIELD_CLASSES).sort(), [...catalogueKeys].sort());
});

test('every row is rollout or payload-only with a one-line reason', () => {
  for (const [key, [cls, reason]] of Object.entries(FIELD_CLASSES)) {
    assert.ok(cls === 'rollout' || cls === 'payload-only', key);
    assert.ok(reason.trim().length >= 5 && !reason.includes('\n'), `${key}: reason`);
  }
});

test('both classes are used, with customer intent and platform fields where the issue puts them', () => {
  const rollout = [
    'Configuration.kubernetes_version',
    'KubeletConfig.kubelet_flags',
    'KubeletConfig.kubelet_node_labels',
    'Configuration.custom_ca_certs',
    'HttpProxyConfig.http_proxy',
    'NetworkConfig.network_plugin',
    'NetworkConfig.network_policy',
    'SysctlConfig.vm_max_map_count',
    'GpuConfig.mig_strategy',
    'KubeletConfigFileConfig.max_pods',
  ];
  const payload = [
    'BootstrappingConfig.tls_bootstrapping_token',
    'KubeBinaryConfig.kube_binary_url',
    'KubeBinaryConfig.pod_infra_container_image_url',
    'Configuration.cse_timeout',
    'CustomCloudConfig.repo_depot_endpoint',
    'Configuration.bootstrap_profile_container_registry_server',
    'ContainerdConfig.containerd_version',
    'Configuration.enabled_features',
  ];
  for (const k of rollout) assert.is(FIELD_CLASSES[k]![0], 'rollout', k);
  for (const k of payload) assert.is(FIELD_CLASSES[k]![0], 'payload-only', k);
});

test('credentials (catalogue secret fields) are payload-only: a rotation never rolls nodes', () => {
  const secrets = Object.values(MESSAGES).flatMap((m) => m.fields.filter((f) => f.secret).map((f) => `${m.name}.${f.proto}`));
  assert.is(secrets.length, 4);
  for (const k of secrets) assert.is(FIELD_CLASSES[k]![0], 'payload-only', k);
});

function descendants(message: MessageName): string[] {
  return MESSAGES[message].fields.flatMap((f) => {
    const own = `${message}.${f.proto}`;
    const child = f.message ?? f.mapValueMessage;
    return child ? [own, ...descendants(child)] : [own];
  });
}

test('containers: presence-free ones are rollout iff a descendant is; payload-only ones hold only payload-only fields', () => {
  for (const m of Object.values(MESSAGES)) {
    for (const f of m.fields) {
      const child = f.message ?? f.mapValueMessage;
      if (!child) continue;
      const key = `${m.name}.${f.proto}`;
      const below = descendants(child).map((k) => FIELD_CLASSES[k]![0]);
      if (FIELD_CLASSES[key]![0] === 'payload-only')
        assert.ok(
          below.every((c) => c === 'payload-only'),
          key,
        );
      if (!PRESENCE_SIGNIFICANT.has(key) && !f.mapValueMessage) {
        assert.is(FIELD_CLASSES[key]![0], below.includes('rollout') ? 'rollout' : 'payload-only', key);
      }
    }
  }
});

test('classifyField accepts table keys and json / proto / map-entry paths', () => {
  assert.is(classifyField('KubeletConfig.kubelet_flags'), 'rollout');
  assert.is(classifyField('kubernetesVersion'), 'rollout');
  assert.is(classifyField('kubernetes_version'), 'rollout');
  assert.is(classifyField('$.bootstrappingConfig.tlsBootstrappingToken'), 'payload-only');
  assert.is(classifyField('bootstrapping_config.tls_bootstrapping_token'), 'payload-only');
  assert.is(classifyField('kubeletConfig.kubeletFlags["--max-pods"]'), 'rollout');
  assert.is(classifyField('customCaCerts[1]'), 'rollout');
  assert.is(classifyField('localDnsProfile.vnetDnsOverrides["."].queryLogging'), 'rollout');
  assert.is(classifyField('localDnsProfile.vnetDnsOverrides.*.healthCheck.duration'), 'payload-only');
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.authentication.x509.clientCAFile'), 'payload-only');
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.clusterDNS'), 'rollout');
  assert.is(classifyField('clusterConfig'), 'rollout');
  // PR #9576: node pool taints are customer intent; the runtime plumbing next to them is the platform's.
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.registerWithTaints[2].effect'), 'rollout');
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.registerWithTaints'), 'rollout');
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.containerRuntimeEndpoint'), 'payload-only');
  assert.is(classifyField('kubeletConfig.kubeletConfigFileConfig.enableServer'), 'payload-only');
  assert.is(classifyField('nope'), undefined);
  assert.is(classifyField('kubernetesVersion.extra'), undefined);
  assert.is(classifyField('VmSize'), undefined);
});

test('every catalogue path classifies to its own row', () => {
  const walk = (message: MessageName, prefix: string) => {
    for (const f of MESSAGES[message].fields) {
      const path = prefix ? `${prefix}.${f.json}` : f.json;
      assert.is(classifyField(path), FIELD_CLASSES[`${message}.${f.proto}`]![0], path);
      if (f.message) walk(f.message, path);
      if (f.mapValueMessage) walk(f.mapValueMessage, `${path}["k"]`);
    }
  };
  walk('Configuration', '');
});

test.run();

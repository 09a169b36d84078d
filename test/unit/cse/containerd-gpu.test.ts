// containerd templates (3.3.10) and GPU / SGX (3.3.8). Rendered templates are pinned by golden files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentError } from '../../../src/platform/errors.ts';
import { parseGpuComponents } from '../../../src/cse/env/gpu-components.ts';
import type { MachineFacts } from '../../../src/cse/facts.ts';
import { UPSTREAM_COMPONENTS, decode, envOf, golden } from './support.ts';

const V1: MachineFacts = { containerdVersion: undefined, components: {} };
const V2: MachineFacts = { containerdVersion: '2.3.2', components: {} };
const ALL = {
  kubernetesVersion: '1.30.1',
  isKata: true,
  enableArtifactStreaming: true,
  needsCgroupv2: true,
  gpuConfig: { enableNvidia: true },
  networkConfig: { networkPlugin: 'NETWORK_PLUGIN_KUBENET' },
  kubeletConfig: { containerDataDir: '/mnt/containerd' },
  kubeBinaryConfig: { podInfraContainerImageUrl: 'mcr.microsoft.com/oss/kubernetes/pause:3.6' },
};

test('v1 and v2 base renderings (PAUSE placeholder) match the spec', () => {
  const pause = { kubeBinaryConfig: { podInfraContainerImageUrl: 'PAUSE' } };
  const v1 = envOf(pause, V1);
  golden('containerd-v1-gpu-base.toml', decode(v1.CONTAINERD_CONFIG_CONTENT!));
  golden('containerd-v1-nogpu-base.toml', decode(v1.CONTAINERD_CONFIG_NO_GPU_CONTENT!));
  assert.is(decode(v1.CONTAINERD_CONFIG_CONTENT!).replace('  enable_cdi = true\n', ''), decode(v1.CONTAINERD_CONFIG_NO_GPU_CONTENT!));
  const v2 = envOf(pause, V2);
  golden('containerd-v2-base.toml', decode(v2.CONTAINERD_CONFIG_CONTENT!));
  assert.is(v2.CONTAINERD_CONFIG_CONTENT, v2.CONTAINERD_CONFIG_NO_GPU_CONTENT);
});

test('every predicate on, all four templates (golden)', () => {
  const v1 = envOf(ALL, V1);
  const v2 = envOf(ALL, V2);
  golden('containerd-v1-gpu-all.toml', decode(v1.CONTAINERD_CONFIG_CONTENT!));
  golden('containerd-v1-nogpu-all.toml', decode(v1.CONTAINERD_CONFIG_NO_GPU_CONTENT!));
  golden('containerd-v2-gpu-all.toml', decode(v2.CONTAINERD_CONFIG_CONTENT!));
  golden('containerd-v2-nogpu-all.toml', decode(v2.CONTAINERD_CONFIG_NO_GPU_CONTENT!));
  const gpu2 = decode(v2.CONTAINERD_CONFIG_CONTENT!);
  assert.ok(gpu2.includes('runtimes.kata-cc]'));
  assert.not.ok(decode(v2.CONTAINERD_CONFIG_NO_GPU_CONTENT!).includes('runtimes.kata-cc]'));
  assert.not.ok(gpu2.includes('katacli'));
  assert.ok(decode(v1.CONTAINERD_CONFIG_NO_GPU_CONTENT!).includes('katacli'));
  assert.not.ok(decode(v1.CONTAINERD_CONFIG_NO_GPU_CONTENT!).includes('nvidia'));
});

test('predicates one by one on the v1 GPU template', () => {
  const text = (extra: object, facts = V1) => decode(envOf(extra, facts).CONTAINERD_CONFIG_CONTENT!);
  assert.ok(text({ kubeletConfig: { containerDataDir: '/d' } }).startsWith('version = 2\noom_score = -999\nroot = "/d"\n[plugins'));
  assert.ok(
    text({ needsCgroupv2: true }).includes(
      '      BinaryName = "/usr/bin/runc"\n      SystemdCgroup = true\n    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.untrusted]',
    ),
  );
  assert.ok(
    text({ kubernetesVersion: '1.22.0' }).includes(
      '  [plugins."io.containerd.grpc.v1.cri".registry]\n    config_path = "/etc/containerd/certs.d"\n  [plugins."io.containerd.grpc.v1.cri".registry.headers]',
    ),
  );
  assert.not.ok(text({ kubernetesVersion: '1.21.9' }).includes('config_path'));
  assert.not.ok(
    text({ networkConfig: { networkPlugin: 'NETWORK_PLUGIN_KUBENET', networkPolicy: 'NETWORK_POLICY_CALICO' } }).includes('.cni]'),
  );
  assert.ok(
    text({ networkConfig: { networkPlugin: 'NETWORK_PLUGIN_KUBENET' } }).includes(
      'conf_template = "/etc/containerd/kubenet_template.conf"\n  [plugins."io.containerd.grpc.v1.cri".registry.headers]',
    ),
  );
  assert.ok(
    text({ enableArtifactStreaming: true }).endsWith(
      '  address = "0.0.0.0:10257"\n[proxy_plugins]\n  [proxy_plugins.overlaybd]\n    type = "snapshot"\n    address = "/run/overlaybd-snapshotter/overlaybd.sock"\n',
    ),
  );
  assert.ok(
    text({ enableArtifactStreaming: true }, V2).includes(
      '[plugins."io.containerd.cri.v1.images"]\n  snapshotter = "overlaybd"\n  disable_snapshot_annotations = false\n',
    ),
  );
});

test('GPU_NODE and the nvidia runtime only when enableNvidia is present and true (checklist 20)', () => {
  const off = envOf({ vmSize: 'Standard_NC24ads_A100_v4', gpuConfig: { enableNvidia: false } });
  assert.is(off.GPU_NODE, 'false');
  assert.not.ok(decode(off.CONTAINERD_CONFIG_CONTENT!).includes('nvidia'));
  assert.is(envOf({ vmSize: 'Standard_NC24ads_A100_v4' }).GPU_NODE, 'false');
  const on = envOf({ gpuConfig: { enableNvidia: true } });
  assert.is(on.GPU_NODE, 'true');
  const gpuText = decode(on.CONTAINERD_CONFIG_CONTENT!);
  assert.ok(gpuText.includes('default_runtime_name = "nvidia-container-runtime"'));
  assert.is(gpuText.split('BinaryName = "/usr/bin/nvidia-container-runtime"').length, 3);
  assert.not.ok(decode(on.CONTAINERD_CONFIG_NO_GPU_CONTENT!).includes('nvidia'));
});

test('containerd generation follows the detected version, not CONTAINERD_VERSION', () => {
  const e = envOf({ containerdConfig: { containerdVersion: '2.0.0' } }, V1);
  assert.is(e.CONTAINERD_VERSION, '2.0.0');
  assert.ok(decode(e.CONTAINERD_CONFIG_CONTENT!).includes('io.containerd.grpc.v1.cri'));
  assert.ok(decode(envOf({}, { containerdVersion: '1.7.22', components: {} }).CONTAINERD_CONFIG_CONTENT!).includes('grpc.v1.cri"]'));
  assert.ok(decode(envOf({}, { containerdVersion: '2.0.0', components: {} }).CONTAINERD_CONFIG_CONTENT!).includes('cri.v1.images'));
});

test('GPU SKU classes with the upstream components.json (3.3.8 verified)', () => {
  const facts = { containerdVersion: undefined, components: UPSTREAM_COMPONENTS };
  const pick = (vmSize: string) => {
    const e = envOf({ vmSize }, facts);
    return [e.GPU_DRIVER_TYPE, e.GPU_DRIVER_VERSION, e.GPU_IMAGE_SHA];
  };
  assert.equal(pick('Standard_DS1_v2'), ['cuda-lts', '580.159.04', '20260629214430']);
  assert.equal(pick('standard_nc6'), ['cuda', 'cuda-470.82.01', '20260629214430']);
  assert.equal(pick('Standard_NV36ads_A10_v5'), ['grid', '570.211.01', '20260522192315']);
  assert.equal(pick('Standard_NC24lds_xl_RTXPRO6000BSE_v6'), ['grid-v20', '595.58.03', '20260609172331']);
  assert.equal(pick(''), ['cuda-lts', '580.159.04', '20260629214430']);
  assert.is(envOf({ vmSize: 'Standard_ND96asr_v4' }).GPU_NEEDS_FABRIC_MANAGER, 'true');
  assert.is(envOf({ vmSize: 'standard_nc24ads_a100_v4' }).GPU_NEEDS_FABRIC_MANAGER, 'false');
  assert.is(envOf({ vmSize: 'STANDARD_ND96\u0130SR_H100_V5' }).GPU_NEEDS_FABRIC_MANAGER, 'true', 'Go strings.ToLower maps U+0130 to i');
  assert.equal(pick('Standard_NV6ads_A10_v5').slice(0, 1), ['grid']);
  const none = envOf({ vmSize: 'Standard_NV36ads_A10_v5' });
  assert.equal([none.GPU_DRIVER_TYPE, none.GPU_DRIVER_VERSION, none.GPU_IMAGE_SHA], ['grid', '', '']);
});

test('SGX, MIG and the other GPU flags (checklist 19)', () => {
  assert.is(envOf({ vmSize: 'Standard_DC2s' }).SGX_NODE, 'true');
  assert.is(envOf({ vmSize: 'standard_dc2s' }).SGX_NODE, 'false');
  const mig = envOf({ gpuConfig: { migProfileLayout: ['MIG3g', 'MIG2g', 'MIG1g', 'MIG1g'] } });
  assert.equal([mig.NVIDIA_MIG_PROFILE_LAYOUT, mig.MIG_NODE], ['MIG3g,MIG2g,MIG1g,MIG1g', 'false']);
  const e = envOf({
    gpuConfig: {
      gpuInstanceProfile: 'MIG7g',
      migStrategy: 'Mixed',
      configGpuDriver: true,
      gpuDevicePlugin: true,
      managedGpuExperienceAfecEnabled: true,
      enableManagedGpu: true,
      enableManagedGpuDra: true,
    },
  });
  assert.equal([e.MIG_NODE, e.GPU_INSTANCE_PROFILE, e.NVIDIA_MIG_STRATEGY], ['true', 'MIG7g', 'Mixed']);
  assert.equal(
    [
      e.CONFIG_GPU_DRIVER_IF_NEEDED,
      e.ENABLE_GPU_DEVICE_PLUGIN_IF_NEEDED,
      e.MANAGED_GPU_EXPERIENCE_AFEC_ENABLED,
      e.ENABLE_MANAGED_GPU,
      e.ENABLE_MANAGED_GPU_DRA,
    ],
    ['true', 'true', 'true', 'true', 'true'],
  );
});

test('components.json decoding: case-insensitive keys, skips, type errors', () => {
  const d = parseGpuComponents(
    {
      gpucontainerimages: [
        null,
        { DOWNLOADURL: 'x/aks-gpu-grid:tag', GpuVersion: { LatestVersion: '1.2-3' } },
        { downloadURL: 'x/aks-gpu-cuda-lts', gpuVersion: { latestVersion: 'a-b-c' } },
        { downloadURL: 'x/other', gpuVersion: { latestVersion: '9-9' } },
      ],
    },
    '/c.json',
  );
  assert.equal(d, { grid: { driver: '1.2', suffix: '3' } });
  assert.equal(parseGpuComponents(null, '/c.json'), {});
  const err = (() => {
    try {
      parseGpuComponents({ GPUContainerImages: [{ downloadURL: 5 }] }, '/c.json');
    } catch (e) {
      return e;
    }
  })();
  assert.instance(err, AgentError);
  assert.match(
    (err as AgentError).message,
    /^failed to load GPU config: parse \/c.json: failed to unmarshal components.json: json: cannot unmarshal number/,
  );
  assert.is((err as AgentError).code, 'ANC_COMPONENTS');
});

test.run();

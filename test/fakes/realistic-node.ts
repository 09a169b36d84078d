// Synthetic Node objects the size real ones are (issue 38): kubelet's image list, AKS's labels,
// conditions, managedFields and our report, about `kib` KiB each in JSON, for fleets of thousands in the
// apiserver stand-in (the 5,000-node tests and bench/fleet). Deterministic per index.
import { createHash } from 'node:crypto';
import { BAKED, HOTFIX, nodeReport, REPORT_ANNOTATION } from './node-report.ts';

export { BAKED, BASE, HOTFIX, REPORT_ANNOTATION } from './node-report.ts';

export const VERSION_LABEL = 'kubernetes.azure.com/aks-node-controller-version';
export const STATE_LABEL = 'kubernetes.azure.com/aks-node-controller-state';

export type SyntheticState = 'baked' | 'notInWave' | 'hotfix' | 'fellback' | 'failed' | 'none';

/** The mix the benchmark serves: mostly healthy, a few of each kind of trouble. */
export function mixedState(i: number): SyntheticState {
  const r = i % 100;
  return r < 40 ? 'notInWave' : r < 75 ? 'hotfix' : r < 93 ? 'baked' : r < 96 ? 'none' : r < 98 ? 'fellback' : 'failed';
}

export const nodeName = (i: number) =>
  `aks-nodepool${1 + (i % 4)}-${String(10_000_000 + i).slice(1)}-vmss${(i * 7919).toString(36).padStart(6, '0').slice(-6)}`;

/** The report a node in this state sends (report-status's shape: docs/operators.md "What a node writes"). */
export function syntheticReport(state: Exclude<SyntheticState, 'none'>, bootId: string, exit?: { code: number; name: string }): string {
  const onHotfix = state === 'hotfix' || state === 'failed';
  return JSON.stringify(
    nodeReport({
      bootId,
      path: onHotfix ? 'hotfix' : state === 'fellback' ? 'fallback' : 'baked',
      requested: state === 'baked' ? '' : HOTFIX,
      decision: state === 'notInWave' ? 'notInWave' : state === 'baked' ? 'no-request' : 'upgrade',
      quarantine: state === 'fellback' ? { version: HOTFIX, reason: 'exited with status 1 before the provisioning scripts started' } : null,
      wave: state === 'baked' ? null : { percent: 25, ...(state === 'notInWave' ? { joinsAt: '2099-01-01T00:00:00Z' } : {}) },
      exitCode: state === 'failed' ? (exit?.code ?? 31) : 0,
      name: state === 'failed' ? (exit?.name ?? 'ERR_KUBELET_START_FAIL') : undefined,
    }),
  );
}

const hex = (i: number, n: number) => createHash('sha256').update(String(i)).digest('hex').slice(0, n);

function image(i: number, k: number) {
  const repo = [
    'mcr.microsoft.com/oss/kubernetes/kube-proxy',
    'mcr.microsoft.com/containernetworking/azure-cns',
    'mcr.microsoft.com/oss/calico/node',
    'mcr.microsoft.com/oss/kubernetes-csi/azuredisk-csi',
    'mcr.microsoft.com/aks/command/runtime',
  ][k % 5]!;
  const tag = `v1.${k % 33}.${(i + k) % 9}`;
  return { names: [`${repo}@sha256:${hex(k * 31 + 7, 64)}`, `${repo}:${tag}-${k}`], sizeBytes: 10_000_000 + k * 123_457 };
}

/** A Node of about `kib` KiB (JSON), with a report in `state` unless 'none'. */
export function realisticNode(i: number, kib: number, state: SyntheticState): Record<string, unknown> {
  const name = nodeName(i);
  const bootId = `${hex(i, 8)}-${hex(i + 1, 4)}-${hex(i + 2, 4)}-${hex(i + 3, 4)}-${hex(i + 4, 12)}`;
  const labels: Record<string, string> = {
    agentpool: `nodepool${1 + (i % 4)}`,
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/instance-type': 'Standard_D4ds_v5',
    'beta.kubernetes.io/os': 'linux',
    'failure-domain.beta.kubernetes.io/region': 'eastus',
    'failure-domain.beta.kubernetes.io/zone': `eastus-${1 + (i % 3)}`,
    'kubernetes.azure.com/agentpool': `nodepool${1 + (i % 4)}`,
    'kubernetes.azure.com/cluster': 'MC_rg_aks-scale_eastus',
    'kubernetes.azure.com/consolidated-additional-properties': hex(i, 40),
    'kubernetes.azure.com/kubelet-identity-client-id': hex(i + 9, 32),
    'kubernetes.azure.com/mode': 'user',
    'kubernetes.azure.com/node-image-version': 'AKSUbuntu-2204gen2containerd-202604.01.0',
    'kubernetes.azure.com/nodepool-type': 'VirtualMachineScaleSets',
    'kubernetes.azure.com/os-sku': 'Ubuntu',
    'kubernetes.azure.com/role': 'agent',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': 'Standard_D4ds_v5',
    storageprofile: 'managed',
    storagetier: 'Premium_LRS',
    'topology.disk.csi.azure.com/zone': `eastus-${1 + (i % 3)}`,
    'topology.kubernetes.io/region': 'eastus',
    'topology.kubernetes.io/zone': `eastus-${1 + (i % 3)}`,
  };
  const annotations: Record<string, string> = {
    'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'disk.csi.azure.com': name, 'file.csi.azure.com': name }),
    'node.alpha.kubernetes.io/ttl': '0',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  };
  if (state !== 'none') {
    annotations[REPORT_ANNOTATION] = syntheticReport(state, bootId);
    labels[VERSION_LABEL] = state === 'hotfix' || state === 'failed' ? HOTFIX : BAKED;
    labels[STATE_LABEL] = state === 'notInWave' ? 'baked' : state;
  }
  const fields = (keys: string[]) => Object.fromEntries(keys.map((k) => [`f:${k}`, {}]));
  const managedFields = [
    {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-27T04:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:annotations': fields(Object.keys(annotations)), 'f:labels': fields(Object.keys(labels)) } },
    },
    {
      manager: 'cloud-node-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-27T04:00:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:providerID': {} }, 'f:status': { 'f:addresses': fields(['InternalIP', 'Hostname']) } },
    },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-27T04:01:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:podCIDR': {}, 'f:podCIDRs': { '.': {}, [`v:"10.244.${i % 256}.0/24"`]: {} } } },
      subresource: 'status',
    },
    {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-27T05:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:status': {
          'f:conditions': fields(['DiskPressure', 'MemoryPressure', 'PIDPressure', 'Ready']),
          'f:images': {},
          'f:nodeInfo': fields(['bootID']),
        },
      },
      subresource: 'status',
    },
  ];
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: '2026-11-27T05:00:00Z',
    lastTransitionTime: '2026-11-27T04:00:00Z',
    reason,
    message,
  });
  const node = {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: {
      name,
      uid: `${hex(i, 8)}-0000-4000-8000-${hex(i, 12)}`,
      resourceVersion: '1',
      creationTimestamp: '2026-11-27T04:00:00Z',
      labels,
      annotations,
      managedFields,
    },
    spec: {
      podCIDR: `10.244.${i % 256}.0/24`,
      podCIDRs: [`10.244.${i % 256}.0/24`],
      providerID: `azure:///subscriptions/${hex(1, 8)}/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/${name}/virtualMachines/${i}`,
    },
    status: {
      capacity: {
        cpu: '4',
        'ephemeral-storage': '129886128Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: '16375568Ki',
        pods: '110',
      },
      allocatable: {
        cpu: '3860m',
        'ephemeral-storage': '119703055367',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: '12618512Ki',
        pods: '110',
      },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.224.${(i >> 8) % 256}.${i % 256}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: hex(i, 32),
        systemUUID: hex(i + 5, 32),
        bootID: bootId,
        kernelVersion: '5.15.0-1075-azure',
        osImage: 'Ubuntu 22.04.5 LTS',
        containerRuntimeVersion: 'containerd://1.7.25-1',
        kubeletVersion: 'v1.32.4',
        kubeProxyVersion: 'v1.32.4',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [] as unknown[],
    },
  };
  // kubelet reports up to 50 images; past that, more managedFields history makes up the size.
  const target = kib * 1024;
  let size = JSON.stringify(node).length;
  for (let k = 0; size < target && k < 50; k++) {
    const img = image(i, k);
    node.status.images.push(img);
    size += JSON.stringify(img).length + 1;
  }
  for (let k = 0; size < target; k++) {
    const entry = { ...managedFields[3]!, time: `2026-11-27T05:${String(k % 60).padStart(2, '0')}:00Z`, manager: `kubelet-${k}` };
    managedFields.push(entry);
    size += JSON.stringify(entry).length + 1;
  }
  return node;
}

// Kubelet flags, labels and config file (config-contract 3.2.15, 3.3.9). Unlike the reference, the
// Kubernetes >= 1.34.0 removal of the streaming-connection-idle-timeout works on copies: the input
// configuration is never mutated.
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { isVersionGe } from '../semver.ts';
import { renderKubeletConfigFile } from '../templates/kubelet-config.ts';
import { base64, bool, joinSortedPairs, secret, type EnvPart } from './format.ts';

const STREAMING_FLAG = '--streaming-connection-idle-timeout';
const KUBELET_DISK_TEMP_DISK = 2;

export function kubeletEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const kubelet = config.kubeletConfig;
  const k = kubelet ?? {};
  const k134 = isVersionGe(config.kubernetesVersion, '1.34.0');
  const flags = { ...(k.kubeletFlags ?? {}) };
  if (k134) delete flags[STREAMING_FLAG];
  const fileContent = kubelet === undefined ? '' : base64(renderKubeletConfigFile(k.kubeletConfigFileConfig, k134));
  return {
    KUBELET_FLAGS: joinSortedPairs(flags, ' '),
    KUBELET_NODE_LABELS: joinSortedPairs(k.kubeletNodeLabels, ','),
    HAS_KUBELET_DISK_TYPE: bool(enumNumber('KubeletDisk', k.kubeletDiskType) === KUBELET_DISK_TEMP_DISK),
    KUBELET_CONFIG_FILE_ENABLED: bool(k.enableKubeletConfigFile),
    KUBELET_CONFIG_FILE_CONTENT: fileContent,
    ENABLE_KUBELET_SERVING_CERTIFICATE_ROTATION: bool(k.kubeletConfigFileConfig?.serverTLSBootstrap),
    KUBELET_CLIENT_CONTENT: secret(k.kubeletClientKey),
    KUBELET_CLIENT_CERT_CONTENT: k.kubeletClientCertContent ?? '',
  };
}

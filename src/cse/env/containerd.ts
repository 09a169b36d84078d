// Container runtime (config-contract 3.2.8, 3.3.10). The template generation (v1 / v2) follows the
// DETECTED containerd version (a machine fact), never CONTAINERD_VERSION from the config.
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { isVersionGe } from '../semver.ts';
import { renderContainerdV1, renderContainerdV2, type ContainerdInputs } from '../templates/containerd.ts';
import { base64, bool, type EnvPart } from './format.ts';
import { isKubenetWithoutCalico } from './network.ts';

export function containerdInputs(config: Configuration): ContainerdInputs {
  return {
    pauseImage: config.kubeBinaryConfig?.podInfraContainerImageUrl ?? '',
    dataDir: config.kubeletConfig?.containerDataDir ?? '',
    kata: config.isKata === true,
    artifactStreaming: config.enableArtifactStreaming === true,
    nvidia: config.gpuConfig?.enableNvidia === true,
    cgroupV2: config.needsCgroupv2 === true,
    kubenet: isKubenetWithoutCalico(config),
    k8s122: isVersionGe(config.kubernetesVersion, '1.22.0'),
  };
}

/** v2 templates iff the detected version is non-empty and >= 2.0.0. */
export function usesContainerdV2(facts: MachineFacts): boolean {
  return !!facts.containerdVersion && isVersionGe(facts.containerdVersion, '2.0.0');
}

export function containerdEnv(config: Configuration, facts: MachineFacts, _paths: NodePaths): EnvPart {
  const inputs = containerdInputs(config);
  const render = usesContainerdV2(facts) ? renderContainerdV2 : renderContainerdV1;
  return {
    CONTAINERD_DOWNLOAD_URL_BASE: config.containerdConfig?.containerdDownloadUrlBase ?? '',
    CONTAINERD_VERSION: config.containerdConfig?.containerdVersion ?? '',
    CONTAINERD_PACKAGE_URL: config.containerdConfig?.containerdPackageUrl ?? '',
    RUNC_VERSION: config.runcConfig?.runcVersion ?? '',
    RUNC_PACKAGE_URL: config.runcConfig?.runcPackageUrl ?? '',
    CONTAINERD_CONFIG_CONTENT: base64(render(inputs, true)),
    CONTAINERD_CONFIG_NO_GPU_CONTENT: base64(render(inputs, false)),
    IS_KATA: bool(config.isKata),
    ARTIFACT_STREAMING_ENABLED: bool(config.enableArtifactStreaming),
    NEEDS_CGROUPV2: bool(config.needsCgroupv2),
  };
}

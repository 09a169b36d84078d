// GPU and SGX (config-contract 3.2.16, 3.3.8). Driver versions and image suffixes come from the VHD's
// components.json (a machine fact); the rest from the config and the SKU tables.
import type { Configuration } from '../../config/types.ts';
import { goToLower } from '../../platform/go/strings.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, type EnvPart } from './format.ts';
import { parseGpuComponents, type GpuDrivers } from './gpu-components.ts';
import { FABRIC_MANAGER_SKUS, gpuSkuClass, type GpuSkuClass } from './gpu-skus.ts';

const NCV1_DRIVER_VERSION = 'cuda-470.82.01';
const SGX_SIZES = new Set(['Standard_DC2s', 'Standard_DC4s']);

function driverFields(cls: GpuSkuClass, d: GpuDrivers): { type: string; version: string; sha: string } {
  switch (cls) {
    case 'grid-v20':
      return { type: 'grid-v20', version: d.gridV20?.driver ?? '', sha: d.gridV20?.suffix ?? '' };
    case 'grid':
      return { type: 'grid', version: d.grid?.driver ?? '', sha: d.grid?.suffix ?? '' };
    case 'ncv1':
      // NCv1 keeps the pinned driver but (quirk) the cuda-lts image suffix.
      return { type: 'cuda', version: NCV1_DRIVER_VERSION, sha: d.cudaLts?.suffix ?? '' };
    default:
      return { type: 'cuda-lts', version: d.cudaLts?.driver ?? '', sha: d.cudaLts?.suffix ?? '' };
  }
}

export function gpuEnv(config: Configuration, facts: MachineFacts, paths: NodePaths): EnvPart {
  const gpu = config.gpuConfig ?? {};
  const vmSize = config.vmSize ?? '';
  const drivers = driverFields(gpuSkuClass(vmSize), parseGpuComponents(facts.components, paths.componentsJson));
  return {
    GPU_NODE: bool(gpu.enableNvidia === true),
    SGX_NODE: bool(SGX_SIZES.has(vmSize)),
    MIG_NODE: bool((gpu.gpuInstanceProfile ?? '') !== ''),
    CONFIG_GPU_DRIVER_IF_NEEDED: bool(gpu.configGpuDriver),
    ENABLE_GPU_DEVICE_PLUGIN_IF_NEEDED: bool(gpu.gpuDevicePlugin),
    MANAGED_GPU_EXPERIENCE_AFEC_ENABLED: bool(gpu.managedGpuExperienceAfecEnabled),
    ENABLE_MANAGED_GPU: bool(gpu.enableManagedGpu),
    ENABLE_MANAGED_GPU_DRA: bool(gpu.enableManagedGpuDra),
    NVIDIA_MIG_STRATEGY: gpu.migStrategy ?? '',
    NVIDIA_MIG_PROFILE_LAYOUT: (gpu.migProfileLayout ?? []).join(','),
    GPU_INSTANCE_PROFILE: gpu.gpuInstanceProfile ?? '',
    GPU_NEEDS_FABRIC_MANAGER: bool(FABRIC_MANAGER_SKUS.has(goToLower(vmSize))),
    GPU_DRIVER_TYPE: drivers.type,
    GPU_DRIVER_VERSION: drivers.version,
    GPU_IMAGE_SHA: drivers.sha,
  };
}

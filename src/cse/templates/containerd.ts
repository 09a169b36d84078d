// The four containerd config templates (config-contract 3.3.10) as line builders: v1 (containerd 1.x)
// and v2 (containerd >= 2.0.0), each with and without GPU support. Values are inserted verbatim (no TOML
// escaping), exactly as the upstream Go templates do. Pure.
import { CRI_V1, KATA_SNAPSHOTTER_BLOCK, OVERLAYBD_PROXY_BLOCK, kataTail, kubenetCniBlock } from './containerd-blocks.ts';

export interface ContainerdInputs {
  /** kube_binary_config.pod_infra_container_image_url (may be ''). */
  pauseImage: string;
  /** kubelet_config.container_data_dir ('' = no `root` line). */
  dataDir: string;
  kata: boolean;
  artifactStreaming: boolean;
  /** gpu_config.enable_nvidia present and true (GPU templates only). */
  nvidia: boolean;
  /** needs_cgroupv2 (v1 templates only; v2 always has SystemdCgroup = true). */
  cgroupV2: boolean;
  /** network_plugin == KUBENET && network_policy != CALICO. */
  kubenet: boolean;
  /** kubernetes_version >= 1.22.0: registry config_path block. */
  k8s122: boolean;
}

const CRI_V2_IMAGES = 'plugins."io.containerd.cri.v1.images"';
const CRI_V2_RUNTIME = 'plugins."io.containerd.cri.v1.runtime"';

function header(inputs: ContainerdInputs): string[] {
  const lines = ['version = 2', 'oom_score = -999'];
  if (inputs.dataDir) lines.push(`root = "${inputs.dataDir}"`);
  if (inputs.kata) lines.push(...KATA_SNAPSHOTTER_BLOCK);
  return lines;
}

/** The default + untrusted runtimes under `[<table>.containerd]` (runc, or nvidia on GPU nodes). */
function runtimes(table: string, nvidia: boolean, systemdCgroup: boolean): string[] {
  const name = nvidia ? 'nvidia-container-runtime' : 'runc';
  const binary = nvidia ? '/usr/bin/nvidia-container-runtime' : '/usr/bin/runc';
  return [
    `    default_runtime_name = "${name}"`,
    `    [${table}.containerd.runtimes.${name}]`,
    '      runtime_type = "io.containerd.runc.v2"',
    `    [${table}.containerd.runtimes.${name}.options]`,
    `      BinaryName = "${binary}"`,
    ...(systemdCgroup ? ['      SystemdCgroup = true'] : []),
    `    [${table}.containerd.runtimes.untrusted]`,
    '      runtime_type = "io.containerd.runc.v2"',
    `    [${table}.containerd.runtimes.untrusted.options]`,
    `      BinaryName = "${binary}"`,
  ];
}

function tail(inputs: ContainerdInputs, templateVersion: 1 | 2, gpu: boolean): string[] {
  return [
    '[metrics]',
    '  address = "0.0.0.0:10257"',
    ...(inputs.artifactStreaming ? OVERLAYBD_PROXY_BLOCK : []),
    ...(inputs.kata ? kataTail(templateVersion, gpu) : []),
  ];
}

/** containerd.toml.gtpl (gpu) / containerd_no_GPU.toml.gtpl, rendered; ends with a newline. */
export function renderContainerdV1(inputs: ContainerdInputs, gpu: boolean): string {
  const lines = [
    ...header(inputs),
    `[${CRI_V1}]`,
    `  sandbox_image = "${inputs.pauseImage}"`,
    ...(gpu ? ['  enable_cdi = true'] : []),
    `  [${CRI_V1}.containerd]`,
    ...(inputs.kata ? ['    disable_snapshot_annotations = false', '    snapshotter = "overlayfs"'] : []),
    ...(inputs.artifactStreaming ? ['    snapshotter = "overlaybd"', '    disable_snapshot_annotations = false'] : []),
    ...runtimes(CRI_V1, gpu && inputs.nvidia, inputs.cgroupV2),
    ...(inputs.kubenet ? kubenetCniBlock(CRI_V1) : []),
    ...(inputs.k8s122 ? [`  [${CRI_V1}.registry]`, '    config_path = "/etc/containerd/certs.d"'] : []),
    `  [${CRI_V1}.registry.headers]`,
    '    X-Meta-Source-Client = ["azure/aks"]',
    ...tail(inputs, 1, gpu),
  ];
  return lines.join('\n') + '\n';
}

/** containerd_v2.toml.gtpl (gpu) / containerd_v2_no_GPU.toml.gtpl, rendered; ends with a newline. */
export function renderContainerdV2(inputs: ContainerdInputs, gpu: boolean): string {
  const lines = [
    ...header(inputs),
    `[${CRI_V2_IMAGES}]`,
    ...(inputs.artifactStreaming ? ['  snapshotter = "overlaybd"', '  disable_snapshot_annotations = false'] : []),
    `  [${CRI_V2_IMAGES}.pinned_images]`,
    `    sandbox = "${inputs.pauseImage}"`,
    ...(inputs.k8s122 ? [`  [${CRI_V2_IMAGES}.registry]`, '    config_path = "/etc/containerd/certs.d"'] : []),
    `  [${CRI_V2_IMAGES}.registry.headers]`,
    '    X-Meta-Source-Client = ["azure/aks"]',
    `[${CRI_V2_RUNTIME}.containerd]`,
    ...runtimes(CRI_V2_RUNTIME, gpu && inputs.nvidia, true),
    ...(inputs.kubenet ? kubenetCniBlock(CRI_V2_RUNTIME) : []),
    ...tail(inputs, 2, gpu),
  ];
  return lines.join('\n') + '\n';
}

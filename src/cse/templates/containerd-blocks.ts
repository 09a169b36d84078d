// Fixed line blocks of the containerd config templates (config-contract 3.3.10). The contents describe
// the node's runtime layout (/usr/bin/runc, /etc/containerd/..., sockets) and are never sandbox-prefixed:
// they are read by containerd on the node, not by this agent. Pure data.

export const CRI_V1 = 'plugins."io.containerd.grpc.v1.cri"';

/** KATA block A: right after the `oom_score` / `root` lines (all four templates). */
export const KATA_SNAPSHOTTER_BLOCK = [
  '[plugins."io.containerd.snapshotter.v1.erofs"]',
  '  default_size = "10G"',
  '  enable_fsverity = false',
  '  ovl_mount_options = []',
  '',
  '[plugins."io.containerd.service.v1.diff-service"]',
  '  default = ["erofs", "walking"]',
  '',
  '[plugins."io.containerd.differ.v1.erofs"]',
  '  mkfs_options = ["-T0", "--mkfs-time", "--sort=none"]',
  '  enable_tar_index = false',
];

/** Artifact streaming tail, after the metrics address (all four templates). */
export const OVERLAYBD_PROXY_BLOCK = [
  '[proxy_plugins]',
  '  [proxy_plugins.overlaybd]',
  '    type = "snapshot"',
  '    address = "/run/overlaybd-snapshotter/overlaybd.sock"',
];

const KATA_V1_RUNTIME = [
  `[${CRI_V1}.containerd.runtimes.kata]`,
  '  runtime_type = "io.containerd.kata.v2"',
  '  snapshotter = "overlayfs"',
  `[${CRI_V1}.containerd.runtimes.katacli]`,
  '  runtime_type = "io.containerd.runc.v1"',
  `[${CRI_V1}.containerd.runtimes.katacli.options]`,
  '  NoPivotRoot = false',
  '  NoNewKeyring = false',
  '  ShimCgroup = ""',
  '  IoUid = 0',
  '  IoGid = 0',
  '  BinaryName = "/usr/bin/kata-runtime"',
  '  Root = ""',
  '  CriuPath = ""',
  '  SystemdCgroup = false',
];

const KATA_V2_RUNTIME = [
  `[${CRI_V1}.containerd.runtimes.kata]`,
  '  runtime_type = "io.containerd.kata.v2"',
  '  privileged_without_host_devices = true',
  '  snapshotter = "overlayfs"',
  `  [${CRI_V1}.containerd.runtimes.kata.options]`,
  '    ConfigPath = "/usr/share/defaults/kata-containers/configuration.toml"',
];

const KATA_PREVIEW_AND_TARDEV = [
  `[${CRI_V1}.containerd.runtimes.kata-preview]`,
  '  runtime_type = "io.containerd.kata.v2"',
  '  privileged_without_host_devices = true',
  '  snapshotter = "erofs"',
  `  [${CRI_V1}.containerd.runtimes.kata-preview.options]`,
  '    ConfigPath = "/usr/share/defaults/kata-containers/configuration-clh-preview.toml"',
  '[proxy_plugins]',
  '  [proxy_plugins.tardev]',
  '    type = "snapshot"',
  '    address = "/run/containerd/tardev-snapshotter.sock"',
];

const KATA_CC = [
  `[${CRI_V1}.containerd.runtimes.kata-cc]`,
  '  snapshotter = "tardev"',
  '  runtime_type = "io.containerd.kata-cc.v2"',
  '  privileged_without_host_devices = true',
  '  pod_annotations = ["io.katacontainers.*"]',
  `  [${CRI_V1}.containerd.runtimes.kata-cc.options]`,
  '    ConfigPath = "/opt/confidential-containers/share/defaults/kata-containers/configuration-clh-snp.toml"',
];

/** KATA tail (after the artifact-streaming tail). The v2 templates keep the grpc.v1.cri paths here. */
export function kataTail(templateVersion: 1 | 2, gpu: boolean): string[] {
  if (templateVersion === 1) return [...KATA_V1_RUNTIME, ...KATA_PREVIEW_AND_TARDEV, ...KATA_CC];
  return [...KATA_V2_RUNTIME, ...KATA_PREVIEW_AND_TARDEV, ...(gpu ? KATA_CC : [])];
}

/** The kubenet CNI lines under `[<cri table>.cni]` (KUBENET predicate). */
export function kubenetCniBlock(criTable: string): string[] {
  return [
    `  [${criTable}.cni]`,
    '    bin_dir = "/opt/cni/bin"',
    '    conf_dir = "/etc/cni/net.d"',
    '    conf_template = "/etc/containerd/kubenet_template.conf"',
  ];
}

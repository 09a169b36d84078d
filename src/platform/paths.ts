// The one table of on-node paths (ARCHITECTURE: "nothing else spells /opt/azure/..."). Pure data: no I/O,
// so pure modules (the env builder, hotfix rules) may import it.
//
// AKS_NODE_ROOT=<dir> prefixes every absolute path below, so the real binary and the scripts it starts
// run end to end inside a sandbox. Unset, the paths are exactly the reference agent's (spec 1-10).

export const NODE_PATHS = {
  // logging and telemetry (spec 2, 3)
  logDir: '/var/log/azure',
  logFile: '/var/log/azure/aks-node-controller.log',
  eventsDir: '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events',
  // provisioning status (spec 4.5, 5)
  provisionJson: '/var/log/azure/aks/provision.json',
  provisionComplete: '/opt/azure/containers/provision.complete',
  containersDir: '/opt/azure/containers',
  // inputs written by custom data (spec 8, 9, 10.1)
  nodeConfig: '/opt/azure/containers/aks-node-controller-config.json',
  nbcCmd: '/opt/azure/containers/aks-node-controller-nbc-cmd.sh',
  nodeCustomData: '/opt/azure/containers/nodecustomdata.yml',
  enabledFeatures: '/opt/azure/containers/enabled_features.sh',
  componentsJson: '/opt/azure/components.json',
  // the agent's own binaries and the hotfix channel (spec 6)
  bakedBinary: '/opt/azure/containers/aks-node-controller',
  hotfixBinary: '/opt/azure/containers/aks-node-controller-hotfix',
  packageBinary: '/usr/bin/aks-node-controller',
  hotfixPointer: '/opt/azure/containers/aks-node-controller-hotfix.json',
  // the health-gated switch and the return to the baked agent (docs/hotfix.md "safety model")
  hotfixPending: '/opt/azure/containers/aks-node-controller-hotfix.pending',
  // a second name of the baked binary while a candidate runs in the health gate (switch/baked-guard.ts)
  bakedGuard: '/opt/azure/containers/.aks-node-controller-baked-guard',
  hotfixQuarantine: '/opt/azure/containers/aks-node-controller-hotfix-quarantine.json',
  // which version the staged hotfix is, recorded at promotion with the binary's identity (switch/staged-record.ts)
  hotfixRecord: '/opt/azure/containers/aks-node-controller-hotfix.version.json',
  scriptsStartedMarker: '/opt/azure/containers/aks-node-controller-scripts-started',
  // script hotfixes (hotfix/scripts): the record of what an embedded payload replaced, the originals'
  // backups, the last restore; the files a payload may never replace (docs/hotfix.md "script payload")
  scriptHotfixState: '/opt/azure/containers/aks-node-controller-script-hotfix',
  // one writer at a time on the scripts and their record (platform/lock.ts; flock(1), a dead holder releases it)
  scriptsLock: '/opt/azure/containers/aks-node-controller-scripts.lock',
  // the image's own manifest, kept on the image by its build (image/: `status` diffs the node against it)
  imageManifest: '/opt/azure/containers/aks-node-controller-image-manifest.json',
  // the processes that run (status tells a live run from a dead one with bootId below, platform/boot.ts)
  procDir: '/proc',
  // the VM identity that seeds staged hotfix waves
  productUuid: '/sys/class/dmi/id/product_uuid',
  launcher: '/opt/azure/containers/aks-node-controller-launcher.sh',
  osRelease: '/etc/os-release',
  // the name cloud-init sets; the launcher waits until the running hostname matches it
  hostnameFile: '/etc/hostname',
  aptSourcesDir: '/etc/apt/sources.list.d',
  // package-manager state, used only to keep a sandboxed install inside the root (hotfix/install.ts)
  aptConfig: '/etc/apt/apt.conf',
  dpkgAdminDir: '/var/lib/dpkg',
  dpkgLog: '/var/log/dpkg.log',
  yumReposDir: '/etc/yum.repos.d',
  // the repository fast path (hotfix/repository): apt's trusted keyrings and proxy settings, dnf/tdnf's
  // main configuration, the newest verified index date per repository (anti-replay)
  aptTrustedKeyring: '/etc/apt/trusted.gpg',
  aptTrustedKeyringDir: '/etc/apt/trusted.gpg.d',
  aptConfDir: '/etc/apt/apt.conf.d',
  dnfConf: '/etc/dnf/dnf.conf',
  tdnfConf: '/etc/tdnf/tdnf.conf',
  repositoryState: '/opt/azure/containers/aks-node-controller-repository-state.json',
  // cluster credentials for check-hotfix (spec 6.6)
  clusterCa: '/etc/kubernetes/certs/ca.crt',
  bootstrapKubeconfig: '/var/lib/kubelet/bootstrap-kubeconfig',
  kubeconfig: '/var/lib/kubelet/kubeconfig',
  // the node's report on its Node object (fleet/): kubelet's flags (--hostname-override names the node)
  // and this boot's id (the kubelet reports the same one as status.nodeInfo.bootID)
  kubeletDefaults: '/etc/default/kubelet',
  bootId: '/proc/sys/kernel/random/boot_id',
  // the highest signed-pointer serial this node accepted (anti-rollback, docs/pointer-signing.md)
  hotfixPointerSerial: '/opt/azure/containers/aks-node-controller-hotfix-serial.json',
  // the observer-signed evidence that opens gated schedule steps, staged beside the pointer (pointer/evidence.ts)
  hotfixEvidence: '/opt/azure/containers/aks-node-controller-hotfix-evidence.json',
  // paths rendered into the provisioning command and its variables (config-contract 3.2.1, 4.1)
  provisionOutput: '/var/log/azure/cluster-provision-cse-output.log',
  clusterProvisionLog: '/var/log/azure/cluster-provision.log',
  provisionStart: '/opt/azure/containers/provision_start.sh',
  cseHelpers: '/opt/azure/containers/provision_source.sh',
  cseDistroHelpers: '/opt/azure/containers/provision_source_distro.sh',
  cseInstall: '/opt/azure/containers/provision_installs.sh',
  cseDistroInstall: '/opt/azure/containers/provision_installs_distro.sh',
  cseConfig: '/opt/azure/containers/provision_configs.sh',
  customSearchDomainScript: '/opt/azure/containers/setup-custom-search-domains.sh',
  dhcpv6Service: '/etc/systemd/system/dhcpv6.service',
  dhcpv6Config: '/opt/azure/containers/enable-dhcpv6.sh',
  initAksCloud: '/opt/azure/containers/init-aks-cloud.sh',
  initAksCustomCloud: '/opt/azure/containers/init-aks-custom-cloud.sh',
  azureEnvironmentJson: '/etc/kubernetes/akscustom.json',
} as const;

export type NodePathName = keyof typeof NODE_PATHS;
export type NodePaths = { readonly [K in NodePathName]: string } & {
  /** The sandbox root ('' on a real node). */
  readonly root: string;
  /** Prefixes any other absolute on-node path (a write_files entry, for example) with the root. */
  under(absolutePath: string): string;
  /** Removes the root prefix again (for messages and comparisons with the unsandboxed form). */
  strip(path: string): string;
};

/** Normalises AKS_NODE_ROOT: '' for unset or '/', otherwise the path without a trailing slash. */
export function normaliseRoot(root: string | undefined): string {
  if (!root) return '';
  const trimmed = root.replace(/\/+$/, '');
  return trimmed;
}

export function resolveNodePaths(rootSetting: string | undefined): NodePaths {
  const root = normaliseRoot(rootSetting);
  const under = (p: string): string => (root && p.startsWith('/') ? root + p : p);
  const strip = (p: string): string => (root && (p === root || p.startsWith(root + '/')) ? p.slice(root.length) || '/' : p);
  const table = Object.fromEntries(Object.entries(NODE_PATHS).map(([name, path]) => [name, under(path)])) as {
    [K in NodePathName]: string;
  };
  return Object.freeze({ ...table, root, under, strip });
}

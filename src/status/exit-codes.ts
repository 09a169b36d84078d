// Names of the provisioning scripts' exit codes (the ERR_* constants of the node's CSE helpers), so a
// failed boot says ERR_OUTBOUND_CONN_FAIL instead of 50. Our own table: names as the scripts define
// them, one-line explanations in our words. Pure data.

/** code -> [name, what it means]. */
export const PROVISION_EXIT_CODES: Readonly<Record<number, readonly [string, string]>> = {
  0: ['SUCCESS', 'provisioning finished'],
  1: ['ERR_UNSPECIFIED', 'a command in the scripts failed without a specific code'],
  2: ['ERR_SYSTEMCTL_MASK_FAIL', 'systemctl could not mask a unit'],
  4: ['ERR_SYSTEMCTL_START_FAIL', 'systemctl could not start a unit'],
  5: ['ERR_CLOUD_INIT_TIMEOUT', 'cloud-init did not finish in time'],
  6: ['ERR_FILE_WATCH_TIMEOUT', 'a file the scripts wait for did not appear'],
  7: ['ERR_HOLD_WALINUXAGENT', 'could not hold the walinuxagent package'],
  8: ['ERR_RELEASE_HOLD_WALINUXAGENT', 'could not release the walinuxagent hold'],
  9: ['ERR_APT_INSTALL_TIMEOUT', 'apt-get install timed out'],
  20: ['ERR_DOCKER_INSTALL_TIMEOUT', 'docker install timed out'],
  21: ['ERR_DOCKER_DOWNLOAD_TIMEOUT', 'docker download timed out'],
  22: ['ERR_DOCKER_KEY_DOWNLOAD_TIMEOUT', 'docker repository key download timed out'],
  23: ['ERR_DOCKER_APT_KEY_TIMEOUT', 'adding the docker apt key timed out'],
  24: ['ERR_DOCKER_START_FAIL', 'docker did not start'],
  25: ['ERR_MOBY_APT_LIST_TIMEOUT', 'fetching the moby apt list timed out'],
  26: ['ERR_MS_GPG_KEY_DOWNLOAD_TIMEOUT', 'Microsoft GPG key download timed out'],
  27: ['ERR_MOBY_INSTALL_TIMEOUT', 'moby install timed out'],
  28: ['ERR_CONTAINERD_INSTALL_TIMEOUT', 'containerd install timed out'],
  29: ['ERR_RUNC_INSTALL_TIMEOUT', 'runc install timed out'],
  30: ['ERR_K8S_RUNNING_TIMEOUT', 'Kubernetes did not come up in time'],
  31: ['ERR_K8S_DOWNLOAD_TIMEOUT', 'Kubernetes binaries download timed out'],
  32: ['ERR_KUBECTL_NOT_FOUND', 'kubectl is missing'],
  33: ['ERR_IMG_DOWNLOAD_TIMEOUT', 'image download timed out'],
  34: ['ERR_KUBELET_START_FAIL', 'the kubelet did not start'],
  35: ['ERR_DOCKER_IMG_PULL_TIMEOUT', 'docker image pull timed out'],
  36: ['ERR_CONTAINERD_CTR_IMG_PULL_TIMEOUT', 'ctr image pull timed out'],
  37: ['ERR_CONTAINERD_CRICTL_IMG_PULL_TIMEOUT', 'crictl image pull timed out'],
  38: ['ERR_CONTAINERD_INSTALL_FILE_NOT_FOUND', 'the containerd package file is missing'],
  39: ['ERR_CONTAINERD_VERSION_INVALID', 'the containerd version is not valid'],
  41: ['ERR_CNI_DOWNLOAD_TIMEOUT', 'CNI plugins download timed out'],
  42: ['ERR_MS_PROD_DEB_DOWNLOAD_TIMEOUT', 'packages-microsoft-prod download timed out'],
  43: ['ERR_MS_PROD_DEB_PKG_ADD_FAIL', 'could not add the packages-microsoft-prod repository'],
  45: ['ERR_ORAS_DOWNLOAD_ERROR', 'oras download failed'],
  48: ['ERR_SYSTEMD_INSTALL_FAIL', 'could not install the required systemd'],
  49: ['ERR_MODPROBE_FAIL', 'a kernel module did not load'],
  50: ['ERR_OUTBOUND_CONN_FAIL', 'no outbound connection (egress blocked: firewall, UDR, proxy or DNS)'],
  51: ['ERR_K8S_API_SERVER_CONN_FAIL', 'the API server is not reachable'],
  52: ['ERR_K8S_API_SERVER_DNS_LOOKUP_FAIL', 'the API server name does not resolve'],
  53: ['ERR_K8S_API_SERVER_AZURE_DNS_LOOKUP_FAIL', 'the API server name does not resolve through Azure DNS'],
  60: ['ERR_KATA_KEY_DOWNLOAD_TIMEOUT', 'kata repository key download timed out'],
  61: ['ERR_KATA_APT_KEY_TIMEOUT', 'adding the kata apt key timed out'],
  62: ['ERR_KATA_INSTALL_TIMEOUT', 'kata install timed out'],
  65: ['ERR_VHD_FILE_NOT_FOUND', 'a file the image should carry is missing'],
  70: ['ERR_CONTAINERD_DOWNLOAD_TIMEOUT', 'containerd download timed out'],
  71: ['ERR_RUNC_DOWNLOAD_TIMEOUT', 'runc download timed out'],
  80: ['ERR_CUSTOM_SEARCH_DOMAINS_FAIL', 'custom search domains could not be set up'],
  83: ['ERR_GPU_DOWNLOAD_TIMEOUT', 'GPU driver download timed out'],
  84: ['ERR_GPU_DRIVERS_START_FAIL', 'GPU drivers did not start'],
  85: ['ERR_GPU_DRIVERS_INSTALL_TIMEOUT', 'GPU driver install timed out'],
  86: ['ERR_GPU_DEVICE_PLUGIN_START_FAIL', 'the GPU device plugin did not start'],
  87: ['ERR_GPU_INFO_ROM_CORRUPTED', 'the GPU reports a corrupted info ROM'],
  90: ['ERR_SGX_DRIVERS_INSTALL_TIMEOUT', 'SGX driver install timed out'],
  91: ['ERR_SGX_DRIVERS_START_FAIL', 'SGX drivers did not start'],
  98: ['ERR_APT_DAILY_TIMEOUT', 'apt daily jobs did not finish in time'],
  99: ['ERR_APT_UPDATE_TIMEOUT', 'apt-get update timed out'],
  100: ['ERR_CSE_PROVISION_SCRIPT_NOT_READY_TIMEOUT', 'the provisioning script was not ready in time'],
  101: ['ERR_APT_DIST_UPGRADE_TIMEOUT', 'apt-get dist-upgrade timed out'],
  102: ['ERR_APT_PURGE_FAIL', 'apt-get purge failed'],
  103: ['ERR_SYSCTL_RELOAD', 'sysctl settings did not reload'],
  111: ['ERR_CIS_ASSIGN_ROOT_PW', 'CIS hardening: root password not set'],
  112: ['ERR_CIS_ASSIGN_FILE_PERMISSION', 'CIS hardening: file permissions not set'],
  113: ['ERR_PACKER_COPY_FILE', 'image build: a file was not copied'],
  115: ['ERR_CIS_APPLY_PASSWORD_CONFIG', 'CIS hardening: password policy not applied'],
  116: ['ERR_SYSTEMD_DOCKER_STOP_FAIL', 'docker did not stop'],
  117: ['ERR_CRICTL_DOWNLOAD_TIMEOUT', 'crictl download timed out'],
  118: ['ERR_CRICTL_OPERATION_ERROR', 'a crictl operation failed'],
  119: ['ERR_CTR_OPERATION_ERROR', 'a ctr operation failed'],
  120: ['ERR_AZURE_STACK_GET_ARM_TOKEN', 'Azure Stack: no ARM token'],
  121: ['ERR_AZURE_STACK_GET_NETWORK_CONFIGURATION', 'Azure Stack: no network configuration'],
  122: ['ERR_AZURE_STACK_GET_SUBNET_PREFIX', 'Azure Stack: no subnet prefix'],
  125: ['ERR_VHD_BUILD_ERROR', 'image build error'],
  130: ['ERR_SWAP_CREATE_FAIL', 'the swap file was not created'],
  131: ['ERR_SWAP_CREATE_INSUFFICIENT_DISK_SPACE', 'not enough disk space for the swap file'],
  150: ['ERR_TELEPORTD_DOWNLOAD_ERR', 'teleportd download failed'],
  151: ['ERR_TELEPORTD_INSTALL_ERR', 'teleportd install failed'],
  152: ['ERR_ARTIFACT_STREAMING_DOWNLOAD', 'artifact streaming download failed'],
  153: ['ERR_ARTIFACT_STREAMING_INSTALL', 'artifact streaming install failed'],
  160: ['ERR_HTTP_PROXY_CA_CONVERT', 'the HTTP proxy CA could not be converted'],
  161: ['ERR_UPDATE_CA_CERTS', 'the CA store could not be updated'],
  169: ['ERR_DOWNLOAD_SECURE_TLS_BOOTSTRAP_KUBELET_EXEC_PLUGIN_TIMEOUT', 'secure TLS bootstrap plugin download timed out'],
  170: ['ERR_DISBALE_IPTABLES', 'iptables could not be disabled'],
  171: ['ERR_KRUSTLET_DOWNLOAD_TIMEOUT', 'krustlet download timed out'],
  172: ['ERR_DISABLE_SSH', 'SSH could not be disabled'],
  173: ['ERR_PRIMARY_NIC_IP_NOT_FOUND', 'the primary NIC has no IP address'],
  174: ['ERR_INSERT_IMDS_RESTRICTION_RULE_INTO_MANGLE_TABLE', 'IMDS restriction rule (mangle) not inserted'],
  175: ['ERR_INSERT_IMDS_RESTRICTION_RULE_INTO_FILTER_TABLE', 'IMDS restriction rule (filter) not inserted'],
  176: ['ERR_DELETE_IMDS_RESTRICTION_RULE_FROM_MANGLE_TABLE', 'IMDS restriction rule (mangle) not deleted'],
  177: ['ERR_DELETE_IMDS_RESTRICTION_RULE_FROM_FILTER_TABLE', 'IMDS restriction rule (filter) not deleted'],
  200: ['ERR_VHD_REBOOT_REQUIRED', 'the image needs a reboot'],
  201: ['ERR_NO_PACKAGES_FOUND', 'no packages found'],
  202: ['ERR_SNAPSHOT_UPDATE_START_FAIL', 'the snapshot update did not start'],
  203: ['ERR_PRIVATE_K8S_PKG_ERR', 'the private Kubernetes package failed'],
  204: ['ERR_K8S_INSTALL_ERR', 'Kubernetes install failed'],
  205: ['ERR_CREDENTIAL_PROVIDER_DOWNLOAD_TIMEOUT', 'credential provider download timed out'],
  206: ['ERR_CNI_VERSION_INVALID', 'the CNI version is not valid'],
  207: ['ERR_ORAS_PULL_K8S_FAIL', 'oras pull of Kubernetes failed'],
  // The agent's own codes (reference-agent.md 1.4, D6).
  240: ['ANC_CONFIG_ERROR', 'aks-node-controller rejected the configuration before the scripts ran'],
  241: ['ANC_SCRIPTS_UNRESTORABLE', "the image's provisioning scripts could not be restored after a script hotfix; reimage the node"],
  255: ['ANC_KILLED', 'the provisioning script was killed by a signal'],
};

export interface NamedExitCode {
  code: number;
  name: string;
  meaning: string;
}

/** The name of a provisioning exit code (`ExitCode` of provision.json, a decimal string). */
export function nameExitCode(value: string | number): NamedExitCode | undefined {
  const code = Number(value);
  if (!Number.isInteger(code)) return undefined;
  if (code === -1) return { code, name: 'ANC_KILLED', meaning: 'the provisioning script was killed by a signal, or never ran' };
  const known = PROVISION_EXIT_CODES[code];
  return known
    ? { code, name: known[0], meaning: known[1] }
    : { code, name: 'UNKNOWN', meaning: "not in the scripts' table of exit codes" };
}

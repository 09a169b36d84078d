// Cluster identity, API server, Kubernetes version and binary URLs (config-contract 3.2.2, 3.2.4).
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, type EnvPart } from './format.ts';
import { NODE_DEFAULTS } from '../../config/defaults.ts';

/** VM_TYPE strings (config-fields.json enumEnvStrings.VmType); other numbers -> ''. */
const VM_TYPES = new Map([
  [1, 'standard'],
  [2, 'vmss'],
]);

export function clusterEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const cluster = config.clusterConfig ?? {};
  const net = cluster.clusterNetworkConfig ?? {};
  const api = config.apiServerConfig ?? {};
  return {
    ADMINUSER: config.linuxAdminUsername || NODE_DEFAULTS.linuxAdminUsername,
    KUBERNETES_VERSION: config.kubernetesVersion ?? '',
    APISERVER_PUBLIC_KEY: api.apiServerPublicKey ?? '',
    API_SERVER_NAME: api.apiServerName ?? '',
    KUBE_CA_CRT: config.kubernetesCaCert ?? '',
    RESOURCE_GROUP: cluster.resourceGroup ?? '',
    LOCATION: cluster.location ?? '',
    VM_TYPE: VM_TYPES.get(enumNumber('VmType', cluster.vmType)) ?? '',
    SUBNET: net.subnet ?? '',
    NETWORK_SECURITY_GROUP: net.securityGroupName ?? '',
    VIRTUAL_NETWORK: net.vnetName ?? '',
    VIRTUAL_NETWORK_RESOURCE_GROUP: net.vnetResourceGroup ?? '',
    ROUTE_TABLE: net.routeTable ?? '',
    PRIMARY_AVAILABILITY_SET: cluster.primaryAvailabilitySet ?? '',
    PRIMARY_SCALE_SET: cluster.primaryScaleSet ?? '',
    USE_INSTANCE_METADATA: bool(cluster.useInstanceMetadata),
  };
}

export function binariesEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const bin = config.kubeBinaryConfig ?? {};
  return {
    KUBE_BINARY_URL: bin.kubeBinaryUrl ?? '',
    CUSTOM_KUBE_BINARY_URL: bin.customKubeBinaryUrl ?? '',
    PRIVATE_KUBE_BINARY_URL: bin.privateKubeBinaryUrl ?? '',
    CREDENTIAL_PROVIDER_DOWNLOAD_URL: bin.linuxCredentialProviderUrl ?? '',
    KUBEPROXY_URL: config.kubeProxyUrl ?? '',
  };
}

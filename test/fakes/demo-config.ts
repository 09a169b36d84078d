// The embedded default node configuration of the sandboxed first boot (`npm run demo`): a small,
// realistic aksnodeconfig v1 document. The apiserver address and the bootstrap token are filled in by
// the boot so check-hotfix talks to the loopback stand-in.

export function demoConfiguration(apiServerName: string, bootstrapToken: string): Record<string, unknown> {
  return {
    version: 'v1',
    kubernetesVersion: '1.32.4',
    vmSize: 'Standard_D4ds_v5',
    linuxAdminUsername: 'azureuser',
    apiServerConfig: { apiServerName },
    authConfig: {
      tenantId: '00000000-0000-0000-0000-0000000000a1',
      subscriptionId: '00000000-0000-0000-0000-0000000000b2',
      useManagedIdentityExtension: true,
    },
    clusterConfig: {
      location: 'westus3',
      resourceGroup: 'MC_demo_rg_westus3',
      vmType: 'VM_TYPE_VMSS',
      primaryScaleSet: 'aks-demo-12345678-vmss',
      clusterNetworkConfig: {
        vnetName: 'aks-vnet-demo',
        subnet: 'aks-subnet',
        routeTable: 'aks-demo-routetable',
        securityGroupName: 'aks-demo-nsg',
      },
    },
    bootstrappingConfig: {
      bootstrappingAuthMethod: 'BOOTSTRAPPING_AUTH_METHOD_BOOTSTRAP_TOKEN',
      tlsBootstrappingToken: bootstrapToken,
    },
    kubeletConfig: {
      kubeletFlags: { '--max-pods': '110', '--cluster-dns': '10.0.0.10', '--cluster-domain': 'cluster.local' },
      kubeletNodeLabels: { agentpool: 'demo', 'kubernetes.azure.com/agentpool': 'demo' },
    },
    containerdConfig: { containerdVersion: '1.7.22' },
    enabledFeatures: { ENABLE_PROVISIONING_HOTFIX: 'true' },
  };
}

// Cluster, load balancer, cloud provider, network, node, auth (config-contract 3.2.2-3.2.9, 3.3.2, 6).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { envOf } from './support.ts';

test('cluster identity passthroughs, ADMINUSER default, raw LOCATION, KUBE_CA_CRT keeps newlines', () => {
  const e = envOf({
    linuxAdminUsername: 'ops',
    kubernetesCaCert: 'line1\nline2\r\n',
    clusterConfig: {
      resourceGroup: 'rg',
      location: ' West US ',
      vmType: 'VM_TYPE_VMSS',
      primaryScaleSet: 'ss',
      useInstanceMetadata: true,
      clusterNetworkConfig: { vnetName: 'vn', vnetResourceGroup: 'vrg', subnet: 'sn', securityGroupName: 'nsg', routeTable: 'rt' },
    },
    apiServerConfig: { apiServerName: 'api.example', apiServerPublicKey: 'pk' },
  });
  assert.is(e.ADMINUSER, 'ops');
  assert.is(e.KUBE_CA_CRT, 'line1\nline2\r\n');
  assert.is(e.LOCATION, ' West US ');
  assert.is(e.VM_TYPE, 'vmss');
  assert.is(e.PRIMARY_SCALE_SET, 'ss');
  assert.is(e.USE_INSTANCE_METADATA, 'true');
  assert.equal(
    [e.VIRTUAL_NETWORK, e.VIRTUAL_NETWORK_RESOURCE_GROUP, e.SUBNET, e.NETWORK_SECURITY_GROUP, e.ROUTE_TABLE],
    ['vn', 'vrg', 'sn', 'nsg', 'rt'],
  );
  assert.equal([e.API_SERVER_NAME, e.APISERVER_PUBLIC_KEY], ['api.example', 'pk']);
  assert.is(envOf({ linuxAdminUsername: '' }).ADMINUSER, 'azureuser');
});

test('enums: unknown names are dropped, undefined numbers map to "" (checklist 3)', () => {
  assert.is(envOf({ clusterConfig: { vmType: 'VM_TYPE_STANDARD' } }).VM_TYPE, 'standard');
  assert.is(envOf({ clusterConfig: { vmType: 2 } }).VM_TYPE, 'vmss');
  assert.is(envOf({ networkConfig: { networkPlugin: 99 } }).NETWORK_PLUGIN, '');
  assert.is(
    envOf({ networkConfig: { networkPlugin: 'NETWORK_PLUGIN_NONE', networkPolicy: 'NETWORK_POLICY_CALICO' } }).NETWORK_POLICY,
    'calico',
  );
  assert.is(envOf({ clusterConfig: { loadBalancerConfig: { loadBalancerSku: 'LOAD_BALANCER_SKU_BASIC' } } }).LOAD_BALANCER_SKU, 'basic');
});

test('load balancer presence-aware defaults (checklist 6)', () => {
  const absent = envOf({});
  assert.is(absent.EXCLUDE_MASTER_FROM_STANDARD_LB, 'true');
  assert.is(absent.MAXIMUM_LOADBALANCER_RULE_COUNT, '148');
  const set = envOf({
    clusterConfig: {
      loadBalancerConfig: { excludeMasterFromStandardLoadBalancer: false, maxLoadBalancerRuleCount: 0, disableOutboundSnat: true },
    },
  });
  assert.is(set.EXCLUDE_MASTER_FROM_STANDARD_LB, 'false');
  assert.is(set.MAXIMUM_LOADBALANCER_RULE_COUNT, '0');
  assert.is(set.LOAD_BALANCER_DISABLE_OUTBOUND_SNAT, 'true');
  assert.is(envOf({ clusterConfig: { loadBalancerConfig: { maxLoadBalancerRuleCount: -3 } } }).MAXIMUM_LOADBALANCER_RULE_COUNT, '-3');
});

test('cloud provider overrides (checklist 7) and special doubles', () => {
  const e = envOf({
    clusterConfig: {
      cloudProviderConfig: {
        backoff: false,
        backoffMode: 'v1',
        backoffRetries: 9,
        backoffExponent: 1.5,
        backoffDuration: 12,
        backoffJitter: 0.5,
        rateLimit: false,
        rateLimitQps: 3.2,
        rateLimitQpsWrite: 4.2,
        rateLimitBucket: 42,
        rateLimitBucketWrite: 43,
      },
    },
  });
  const keys = [
    'BACKOFF',
    'BACKOFF_MODE',
    'BACKOFF_RETRIES',
    'BACKOFF_EXPONENT',
    'BACKOFF_DURATION',
    'BACKOFF_JITTER',
    'RATELIMIT',
    'RATELIMIT_QPS',
    'RATELIMIT_QPS_WRITE',
    'RATELIMIT_BUCKET',
    'RATELIMIT_BUCKET_WRITE',
  ];
  assert.equal(
    keys.map((k) => e[`CLOUDPROVIDER_${k}`]),
    ['false', 'v1', '9', '1.5', '12', '0.5', 'false', '3.2', '4.2', '42', '43'],
  );
  const zeros = envOf({ clusterConfig: { cloudProviderConfig: { backoffRetries: 0, rateLimitQps: 0, backoffMode: '' } } });
  assert.is(zeros.CLOUDPROVIDER_BACKOFF_RETRIES, '0');
  assert.is(zeros.CLOUDPROVIDER_RATELIMIT_QPS, '0');
  assert.is(zeros.CLOUDPROVIDER_BACKOFF_MODE, 'v2');
  const odd = envOf({
    clusterConfig: {
      cloudProviderConfig: { backoffExponent: 'NaN', backoffJitter: '-Infinity', rateLimitQps: 1e6, rateLimitQpsWrite: 0.00001 },
    },
  });
  assert.equal([odd.CLOUDPROVIDER_BACKOFF_EXPONENT, odd.CLOUDPROVIDER_BACKOFF_JITTER], ['NaN', '-Inf']);
  assert.equal([odd.CLOUDPROVIDER_RATELIMIT_QPS, odd.CLOUDPROVIDER_RATELIMIT_QPS_WRITE], ['1e+06', '1e-05']);
});

test('CSE_TIMEOUT range (checklist 4)', () => {
  const t = (v: unknown) => envOf({ cseTimeout: v }).CSE_TIMEOUT;
  assert.is(t('1200'), '1200');
  assert.is(t(1.2e3), '1200');
  assert.is(t(1), '1');
  assert.is(t(21600), '21600');
  assert.is(t(21601), '900');
  assert.is(t(-5), '900');
  assert.is(t(0), '900');
});

test('IS_VHD / DISABLE_SSH / getter-valued optionals (checklist 5)', () => {
  assert.is(envOf({ isVhd: false }).IS_VHD, 'false');
  assert.is(envOf({}).IS_VHD, 'true');
  assert.is(envOf({ enableSsh: true }).DISABLE_SSH, 'false');
  assert.is(envOf({ enableSsh: false }).DISABLE_SSH, 'true');
  assert.is(envOf({}).DISABLE_SSH, 'false');
  assert.is(envOf({ disablePubkeyAuth: true }).DISABLE_PUBKEY_AUTH, 'true');
  assert.is(envOf({ needsCgroupv2: true }).NEEDS_CGROUPV2, 'true');
  const e = envOf({
    messageOfTheDay: 'bW90ZA==',
    preProvisionOnly: true,
    enableUnattendedUpgrade: true,
    enableHostsConfigAgent: true,
    azurePrivateRegistryServer: 'r.io',
    privateEgressProxyAddress: 'p:3128',
    bootstrapProfileContainerRegistryServer: 'b.io',
  });
  assert.equal(
    [e.MESSAGE_OF_THE_DAY, e.PRE_PROVISION_ONLY, e.ENABLE_UNATTENDED_UPGRADES, e.ENABLE_HOSTS_CONFIG_AGENT],
    ['bW90ZA==', 'true', 'true', 'true'],
  );
  assert.equal(
    [e.AZURE_PRIVATE_REGISTRY_SERVER, e.PRIVATE_EGRESS_PROXY_ADDRESS, e.BOOTSTRAP_PROFILE_CONTAINER_REGISTRY_SERVER],
    ['r.io', 'p:3128', 'b.io'],
  );
});

test('network: promiscuous-bridge rule, secondary NICs, dual stack, outbound command', () => {
  const kubenet = (policy?: string) =>
    envOf({ networkConfig: { networkPlugin: 'NETWORK_PLUGIN_KUBENET', ...(policy ? { networkPolicy: policy } : {}) } });
  assert.is(kubenet().ENSURE_NO_DUPE_PROMISCUOUS_BRIDGE, 'true');
  assert.is(kubenet('NETWORK_POLICY_AZURE').ENSURE_NO_DUPE_PROMISCUOUS_BRIDGE, 'true');
  assert.is(kubenet('NETWORK_POLICY_CALICO').ENSURE_NO_DUPE_PROMISCUOUS_BRIDGE, 'false');
  assert.is(kubenet().NETWORK_PLUGIN, 'kubenet');
  const e = envOf({
    networkConfig: { standardSecondaryNicCount: 2, vnetCniPluginsUrl: 'https://cni' },
    ipv6DualStackEnabled: true,
    outboundCommand: 'curl x',
  });
  assert.equal(
    [e.STANDARD_SECONDARY_NIC_COUNT, e.VNET_CNI_PLUGINS_URL, e.IPV6_DUAL_STACK_ENABLED, e.OUTBOUND_COMMAND],
    ['2', 'https://cni', 'true', 'curl x'],
  );
});

test('auth, TLS bootstrapping, search domain, image pull, imds', () => {
  const e = envOf({
    authConfig: {
      tenantId: 't',
      subscriptionId: 's',
      servicePrincipalId: 'id',
      servicePrincipalSecret: 'c2VjcmV0',
      assignedIdentityId: 'mi',
      useManagedIdentityExtension: true,
    },
    bootstrappingConfig: {
      bootstrappingAuthMethod: 'BOOTSTRAPPING_AUTH_METHOD_SECURE_TLS_BOOTSTRAPPING',
      tlsBootstrappingToken: 'abc.def',
      secureTlsBootstrappingAadResource: 'aad',
      secureTlsBootstrappingGetNonceTimeout: '5s',
      secureTlsBootstrappingCustomClientDownloadUrl: 'https://c',
    },
    customSearchDomainConfig: { domainName: 'corp', realmUser: 'u', realmPassword: 'pw' },
    serviceAccountImagePullProfile: { enabled: true, defaultClientId: 'c', defaultTenantId: 'tt', localAuthoritySni: 'sni' },
    imdsRestrictionConfig: { enableImdsRestriction: true },
  });
  assert.equal(
    [
      e.TENANT_ID,
      e.SUBSCRIPTION_ID,
      e.SERVICE_PRINCIPAL_CLIENT_ID,
      e.SERVICE_PRINCIPAL_FILE_CONTENT,
      e.USER_ASSIGNED_IDENTITY_ID,
      e.USE_MANAGED_IDENTITY_EXTENSION,
    ],
    ['t', 's', 'id', 'c2VjcmV0', 'mi', 'true'],
  );
  assert.equal(
    [e.TLS_BOOTSTRAP_TOKEN, e.ENABLE_SECURE_TLS_BOOTSTRAPPING, e.SECURE_TLS_BOOTSTRAPPING_AAD_RESOURCE],
    ['abc.def', 'true', 'aad'],
  );
  assert.equal([e.SECURE_TLS_BOOTSTRAPPING_GET_NONCE_TIMEOUT, e.CUSTOM_SECURE_TLS_BOOTSTRAPPING_CLIENT_DOWNLOAD_URL], ['5s', 'https://c']);
  assert.equal(
    [e.HAS_CUSTOM_SEARCH_DOMAIN, e.CUSTOM_SEARCH_DOMAIN_NAME, e.CUSTOM_SEARCH_REALM_USER, e.CUSTOM_SEARCH_REALM_PASSWORD],
    ['true', 'corp', 'u', 'pw'],
  );
  assert.equal(
    [
      e.SERVICE_ACCOUNT_IMAGE_PULL_ENABLED,
      e.SERVICE_ACCOUNT_IMAGE_PULL_DEFAULT_CLIENT_ID,
      e.SERVICE_ACCOUNT_IMAGE_PULL_DEFAULT_TENANT_ID,
      e.IDENTITY_BINDINGS_LOCAL_AUTHORITY_SNI,
    ],
    ['true', 'c', 'tt', 'sni'],
  );
  assert.equal([e.ENABLE_IMDS_RESTRICTION, e.INSERT_IMDS_RESTRICTION_RULE_TO_MANGLE_TABLE], ['true', 'false']);
  assert.is(envOf({ customSearchDomainConfig: { domainName: 'corp', realmUser: 'u' } }).HAS_CUSTOM_SEARCH_DOMAIN, 'false');
  assert.is(
    envOf({ bootstrappingConfig: { bootstrappingAuthMethod: 'BOOTSTRAPPING_AUTH_METHOD_BOOTSTRAP_TOKEN' } })
      .ENABLE_SECURE_TLS_BOOTSTRAPPING,
    'false',
  );
});

test.run();

// The defaults the provisioning environment applies to unset fields (config-contract section 3): the one
// table. The env builder renders them; the canonical form folds an explicit default into absence, so a
// configuration that spells a default out hashes (and renders custom data) like one that leaves it
// implicit. Keys are the json names of each message's fields.

/** Configuration (3.2.2, 3.2.9): IS_VHD and enable_ssh are presence-aware; ADMINUSER falls back. */
export const NODE_DEFAULTS = { isVhd: true, enableSsh: true, linuxAdminUsername: 'azureuser' } as const;

/** CSE_TIMEOUT (3.3.13): the value when within 1..maxSeconds, else defaultSeconds. */
export const CSE_TIMEOUT_DEFAULTS = { defaultSeconds: 900, maxSeconds: 21600 } as const;

/** LoadBalancerConfig (3.3.2). */
export const LOAD_BALANCER_DEFAULTS = { excludeMasterFromStandardLoadBalancer: true, maxLoadBalancerRuleCount: 148 } as const;

/** CloudProviderConfig (3.3.2); backoffMode (not optional) falls back when empty. */
export const CLOUD_PROVIDER_DEFAULTS = {
  backoff: true,
  backoffMode: 'v2',
  backoffRetries: 6,
  backoffExponent: 0,
  backoffDuration: 5,
  backoffJitter: 0,
  rateLimit: true,
  rateLimitQps: 10,
  rateLimitQpsWrite: 10,
  rateLimitBucket: 100,
  rateLimitBucketWrite: 100,
} as const;

/** SysctlConfig lines that are always written, with these values when unset (3.3.3). */
export const SYSCTL_DEFAULTS = {
  netCoreSomaxconn: 16384,
  netIpv4TcpMaxSynBacklog: 16384,
  netIpv4NeighDefaultGcThresh1: 4096,
  netIpv4NeighDefaultGcThresh2: 8192,
  netIpv4NeighDefaultGcThresh3: 16384,
} as const;

/** LocalDnsProfile limits when unset or 0 (3.2.18): 2000 milli-cores print as 200.0%, 128 as 128M. */
export const LOCALDNS_DEFAULTS = { cpuLimitInMilliCores: 2000, memoryLimitInMb: 128 } as const;

/** ClusterNetworkConfig.coreDnsServiceIp when empty (3.3.11). */
export const CORE_DNS_SERVICE_IP_DEFAULT = '10.0.0.10';

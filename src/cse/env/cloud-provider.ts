// Load balancer and cloud-provider-azure tuning: presence-aware defaults (config-contract 3.2.5, 3.2.6,
// 3.3.2). An explicitly present 0 / false wins over the default.
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, goFloat, int, type EnvPart } from './format.ts';
import { CLOUD_PROVIDER_DEFAULTS, LOAD_BALANCER_DEFAULTS } from '../../config/defaults.ts';

const D = CLOUD_PROVIDER_DEFAULTS;
const LB_SKUS = new Map([
  [1, 'basic'],
  [2, 'standard'],
]);

export function loadBalancerEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const lb = config.clusterConfig?.loadBalancerConfig ?? {};
  return {
    LOAD_BALANCER_SKU: LB_SKUS.get(enumNumber('LoadBalancerSku', lb.loadBalancerSku)) ?? '',
    LOAD_BALANCER_DISABLE_OUTBOUND_SNAT: bool(lb.disableOutboundSnat),
    EXCLUDE_MASTER_FROM_STANDARD_LB: bool(
      lb.excludeMasterFromStandardLoadBalancer ?? LOAD_BALANCER_DEFAULTS.excludeMasterFromStandardLoadBalancer,
    ),
    MAXIMUM_LOADBALANCER_RULE_COUNT: int(lb.maxLoadBalancerRuleCount ?? LOAD_BALANCER_DEFAULTS.maxLoadBalancerRuleCount),
  };
}

export function cloudProviderEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const cp = config.clusterConfig?.cloudProviderConfig ?? {};
  return {
    CLOUDPROVIDER_BACKOFF: bool(cp.backoff ?? D.backoff),
    CLOUDPROVIDER_BACKOFF_MODE: cp.backoffMode || D.backoffMode,
    CLOUDPROVIDER_BACKOFF_RETRIES: int(cp.backoffRetries ?? D.backoffRetries),
    CLOUDPROVIDER_BACKOFF_EXPONENT: goFloat(cp.backoffExponent ?? D.backoffExponent),
    CLOUDPROVIDER_BACKOFF_DURATION: int(cp.backoffDuration ?? D.backoffDuration),
    CLOUDPROVIDER_BACKOFF_JITTER: goFloat(cp.backoffJitter ?? D.backoffJitter),
    CLOUDPROVIDER_RATELIMIT: bool(cp.rateLimit ?? D.rateLimit),
    CLOUDPROVIDER_RATELIMIT_QPS: goFloat(cp.rateLimitQps ?? D.rateLimitQps),
    CLOUDPROVIDER_RATELIMIT_QPS_WRITE: goFloat(cp.rateLimitQpsWrite ?? D.rateLimitQpsWrite),
    CLOUDPROVIDER_RATELIMIT_BUCKET: int(cp.rateLimitBucket ?? D.rateLimitBucket),
    CLOUDPROVIDER_RATELIMIT_BUCKET_WRITE: int(cp.rateLimitBucketWrite ?? D.rateLimitBucketWrite),
  };
}

// Load balancer and cloud-provider-azure tuning: presence-aware defaults (config-contract 3.2.5, 3.2.6,
// 3.3.2). An explicitly present 0 / false wins over the default.
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, goFloat, int, type EnvPart } from './format.ts';

const LB_SKUS = new Map([[1, 'basic'], [2, 'standard']]);

export function loadBalancerEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const lb = config.clusterConfig?.loadBalancerConfig ?? {};
  return {
    LOAD_BALANCER_SKU: LB_SKUS.get(enumNumber('LoadBalancerSku', lb.loadBalancerSku)) ?? '',
    LOAD_BALANCER_DISABLE_OUTBOUND_SNAT: bool(lb.disableOutboundSnat),
    EXCLUDE_MASTER_FROM_STANDARD_LB: bool(lb.excludeMasterFromStandardLoadBalancer ?? true),
    MAXIMUM_LOADBALANCER_RULE_COUNT: int(lb.maxLoadBalancerRuleCount ?? 148),
  };
}

export function cloudProviderEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const cp = config.clusterConfig?.cloudProviderConfig ?? {};
  return {
    CLOUDPROVIDER_BACKOFF: bool(cp.backoff ?? true),
    CLOUDPROVIDER_BACKOFF_MODE: cp.backoffMode || 'v2',
    CLOUDPROVIDER_BACKOFF_RETRIES: int(cp.backoffRetries ?? 6),
    CLOUDPROVIDER_BACKOFF_EXPONENT: goFloat(cp.backoffExponent ?? 0),
    CLOUDPROVIDER_BACKOFF_DURATION: int(cp.backoffDuration ?? 5),
    CLOUDPROVIDER_BACKOFF_JITTER: goFloat(cp.backoffJitter ?? 0),
    CLOUDPROVIDER_RATELIMIT: bool(cp.rateLimit ?? true),
    CLOUDPROVIDER_RATELIMIT_QPS: goFloat(cp.rateLimitQps ?? 10),
    CLOUDPROVIDER_RATELIMIT_QPS_WRITE: goFloat(cp.rateLimitQpsWrite ?? 10),
    CLOUDPROVIDER_RATELIMIT_BUCKET: int(cp.rateLimitBucket ?? 100),
    CLOUDPROVIDER_RATELIMIT_BUCKET_WRITE: int(cp.rateLimitBucketWrite ?? 100),
  };
}

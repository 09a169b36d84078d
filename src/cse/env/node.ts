// Node / OS behaviour (config-contract 3.2.9, 3.3.13).
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, int, type EnvPart } from './format.ts';
import { CSE_TIMEOUT_DEFAULTS, NODE_DEFAULTS } from '../../config/defaults.ts';

/** cse_timeout in seconds when 1..21600, else 900 (unset, 0, negative, too large). */
export function cseTimeout(value: number | undefined): string {
  return int(value !== undefined && value >= 1 && value <= CSE_TIMEOUT_DEFAULTS.maxSeconds ? value : CSE_TIMEOUT_DEFAULTS.defaultSeconds);
}

export function nodeEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  return {
    IS_VHD: bool(config.isVhd ?? NODE_DEFAULTS.isVhd),
    // presence-aware: unset -> false, set -> the negation of enable_ssh
    DISABLE_SSH: bool(!(config.enableSsh ?? NODE_DEFAULTS.enableSsh)),
    DISABLE_PUBKEY_AUTH: bool(config.disablePubkeyAuth),
    ENABLE_HOSTS_CONFIG_AGENT: bool(config.enableHostsConfigAgent),
    ENABLE_UNATTENDED_UPGRADES: bool(config.enableUnattendedUpgrade),
    MESSAGE_OF_THE_DAY: config.messageOfTheDay ?? '',
    PRE_PROVISION_ONLY: bool(config.preProvisionOnly),
    AZURE_PRIVATE_REGISTRY_SERVER: config.azurePrivateRegistryServer ?? '',
    PRIVATE_EGRESS_PROXY_ADDRESS: config.privateEgressProxyAddress ?? '',
    BOOTSTRAP_PROFILE_CONTAINER_REGISTRY_SERVER: config.bootstrapProfileContainerRegistryServer ?? '',
    CSE_TIMEOUT: cseTimeout(config.cseTimeout),
  };
}

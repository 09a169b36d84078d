// Networking and IMDS restriction (config-contract 3.2.7, 3.2.17).
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, int, type EnvPart } from './format.ts';

const PLUGINS = new Map([
  [1, 'none'],
  [2, 'azure'],
  [3, 'kubenet'],
]);
const POLICIES = new Map([
  [1, 'none'],
  [2, 'azure'],
  [3, 'calico'],
]);
const PLUGIN_KUBENET = 3;
const POLICY_CALICO = 3;

/** network_plugin == KUBENET && network_policy != CALICO (also selects the containerd kubenet block). */
export function isKubenetWithoutCalico(config: Configuration): boolean {
  const net = config.networkConfig ?? {};
  return (
    enumNumber('NetworkPlugin', net.networkPlugin) === PLUGIN_KUBENET && enumNumber('NetworkPolicy', net.networkPolicy) !== POLICY_CALICO
  );
}

export function networkEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const net = config.networkConfig ?? {};
  return {
    NETWORK_PLUGIN: PLUGINS.get(enumNumber('NetworkPlugin', net.networkPlugin)) ?? '',
    NETWORK_POLICY: POLICIES.get(enumNumber('NetworkPolicy', net.networkPolicy)) ?? '',
    VNET_CNI_PLUGINS_URL: net.vnetCniPluginsUrl ?? '',
    ENSURE_NO_DUPE_PROMISCUOUS_BRIDGE: bool(isKubenetWithoutCalico(config)),
    STANDARD_SECONDARY_NIC_COUNT: int(net.standardSecondaryNicCount),
    IPV6_DUAL_STACK_ENABLED: bool(config.ipv6DualStackEnabled),
    OUTBOUND_COMMAND: config.outboundCommand ?? '',
  };
}

export function imdsEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const imds = config.imdsRestrictionConfig ?? {};
  return {
    ENABLE_IMDS_RESTRICTION: bool(imds.enableImdsRestriction),
    INSERT_IMDS_RESTRICTION_RULE_TO_MANGLE_TABLE: bool(imds.insertImdsRestrictionRuleToMangleTable),
  };
}

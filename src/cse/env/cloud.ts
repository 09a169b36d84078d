// Cloud / target environment and custom cloud (config-contract 3.2.12, 3.3.1).
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { goEqualFold, goFields, goToLower } from '../../platform/go/strings.ts';
import { goUnmarshal, type GoType } from '../../platform/go/unmarshal.ts';
import { bool, type EnvPart } from './format.ts';

const CUSTOM_CLOUD = 'akscustom';
const ARM_ENDPOINTS = new Map([
  ['AzureUSGovernmentCloud', 'https://management.usgovcloudapi.net/'],
  ['AzureChinaCloud', 'https://management.chinacloudapi.cn/'],
]);
const ARM_PUBLIC = 'https://management.azure.com/';

/** Go strings.EqualFold against `akscustom` (simple case folding: Kelvin sign U+212A ~ k, long s U+017F ~ s). */
export function isCustomCloud(config: Configuration): boolean {
  const name = config.customCloudConfig?.customCloudEnvName ?? '';
  return goEqualFold(name, CUSTOM_CLOUD);
}

/** Cloud by location: Go whitespace removed, lowercased the Go way, then prefix rules. */
export function cloudFromLocation(location: string): string {
  const loc = goToLower(goFields(location).join(''));
  if (loc.startsWith('china')) return 'AzureChinaCloud';
  if (loc === 'germanynortheast' || loc === 'germanycentral') return 'AzureGermanCloud';
  if (loc.startsWith('usgov') || loc.startsWith('usdod')) return 'AzureUSGovernmentCloud';
  return 'AzurePublicCloud';
}

/** The reference's struct for custom_env_json_content: one string field. */
const CUSTOM_ENV_GO_TYPE: GoType = {
  kind: 'struct',
  name: 'customEnvironment',
  fields: [{ tag: 'resourceManagerEndpoint', type: { kind: 'string' } }],
};

/**
 * `resourceManagerEndpoint` of custom_env_json_content, decoded by Go encoding/json rules
 * (platform/go/unmarshal): keys matched case-insensitively, a later `null` keeps the earlier value, and
 * any error (syntax, nesting over 10,000, a value of the wrong type even if a later duplicate is fine)
 * fails the call, which leaves the endpoint ''.
 */
export function resourceManagerEndpoint(content: string): string {
  const decoded = goUnmarshal<Record<string, string>>(content, CUSTOM_ENV_GO_TYPE);
  return decoded.error ? '' : (decoded.value.resourceManagerEndpoint ?? '');
}

export function cloudEnv(config: Configuration, _facts: MachineFacts, paths: NodePaths): EnvPart {
  const custom = isCustomCloud(config);
  const cc = config.customCloudConfig ?? {};
  const byLocation = cloudFromLocation(config.clusterConfig?.location ?? '');
  return {
    TARGET_ENVIRONMENT: custom ? CUSTOM_CLOUD : byLocation,
    TARGET_CLOUD: custom ? 'AzureStackCloud' : byLocation,
    ARM_RESOURCE_ENDPOINT: custom ? resourceManagerEndpoint(cc.customEnvJsonContent ?? '') : (ARM_ENDPOINTS.get(byLocation) ?? ARM_PUBLIC),
    CUSTOM_ENV_JSON: cc.customEnvJsonContent ?? '',
    IS_CUSTOM_CLOUD: bool(custom),
    AKS_CUSTOM_CLOUD_CONTAINER_REGISTRY_DNS_SUFFIX: cc.containerRegistryDnsSuffix ?? '',
    AZURE_ENVIRONMENT_FILEPATH: custom ? paths.azureEnvironmentJson : '',
    REPO_DEPOT_ENDPOINT: custom ? (cc.repoDepotEndpoint ?? '') : '',
  };
}

// LocalDNS (config-contract 3.2.18, 3.3.11).
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { renderLocalDnsCorefile } from '../templates/localdns.ts';
import { goTrimSpace } from '../../platform/go/strings.ts';
import { base64, bool, type EnvPart } from './format.ts';
import { LOCALDNS_DEFAULTS } from '../../config/defaults.ts';

/** cpu_limit_in_milli_cores / 10 with exactly one decimal, then `%` (2008 -> 200.8%, -100 -> -10.0%). */
export function cpuLimitPercent(milliCores: number): string {
  const sign = milliCores < 0 ? '-' : '';
  const abs = Math.abs(milliCores);
  return `${sign}${Math.trunc(abs / 10)}.${abs % 10}%`;
}

export function localDnsEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const profile = config.localDnsProfile;
  const enabled = profile?.enableLocalDns === true;
  const p = profile ?? {};
  const cpu = p.cpuLimitInMilliCores ?? 0;
  const memory = p.memoryLimitInMb ?? 0;
  const refresh = p.hostsPluginRefreshIntervalInSeconds ?? 0;
  const coreDnsIp = config.clusterConfig?.clusterNetworkConfig?.coreDnsServiceIp;
  const base = enabled ? base64(renderLocalDnsCorefile(p, coreDnsIp, false)) : '';
  return {
    SHOULD_ENABLE_LOCALDNS: bool(enabled),
    SHOULD_ENABLE_HOSTS_PLUGIN: bool(enabled && p.enableHostsPlugin === true),
    LOCALDNS_CPU_LIMIT: enabled && cpu !== 0 ? cpuLimitPercent(cpu) : cpuLimitPercent(LOCALDNS_DEFAULTS.cpuLimitInMilliCores),
    LOCALDNS_MEMORY_LIMIT: enabled && memory !== 0 ? `${memory}M` : `${LOCALDNS_DEFAULTS.memoryLimitInMb}M`,
    LOCALDNS_CRITICAL_FQDNS: (p.criticalFqdns ?? [])
      .map(goTrimSpace)
      .filter((f) => f !== '')
      .join(','),
    LOCALDNS_HOSTS_PLUGIN_REFRESH_INTERVAL_IN_SECONDS: refresh > 0 ? String(refresh) : '',
    LOCALDNS_GENERATED_COREFILE: base,
    LOCALDNS_COREFILE_BASE: base,
    LOCALDNS_COREFILE_WITH_HOSTS: enabled ? base64(renderLocalDnsCorefile(p, coreDnsIp, true)) : '',
  };
}

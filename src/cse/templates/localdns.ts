// The LocalDNS corefile (config-contract 3.3.11). Contents describe the node's DNS layout (bind addresses,
// /etc/localdns/hosts) and are never sandbox-prefixed. Unset optional ints print as Go's `<nil>`. Pure.
import type { LocalDnsOverrides, LocalDnsProfile } from '../../config/types.ts';
import { compareCodePoints } from '../env/format.ts';
import { CORE_DNS_SERVICE_IP_DEFAULT } from '../../config/defaults.ts';

const AZURE_DNS = '168.63.129.16';
export const DEFAULT_CORE_DNS_IP = CORE_DNS_SERVICE_IP_DEFAULT;

const HEADER = [
  '# ***********************************************************************************',
  '# WARNING: Changes to this file will be overwritten and not persisted.',
  '# ***********************************************************************************',
  '# whoami (used for health check of DNS)',
  'health-check.localdns.local:53 {',
  '    bind 169.254.10.10 169.254.10.11',
  '    whoami',
  '}',
];
const VNET_COMMENT =
  '# VnetDNS overrides apply to DNS traffic from pods with dnsPolicy:default or kubelet (referred to as VnetDNS traffic).';
const KUBE_COMMENT = '# KubeDNS overrides apply to DNS traffic from pods with dnsPolicy:ClusterFirst (referred to as KubeDNS traffic).';

const HOSTS_BLOCK = [
  '    # Check /etc/localdns/hosts first for critical AKS FQDNs (mcr.microsoft.com, packages.aks.azure.com, etc.)',
  '    hosts /etc/localdns/hosts {',
  '        ttl 5',
  '        reload 5s',
  '        fallthrough',
  '    }',
];
const TEMPLATE_BLOCKS = [
  '    template ANY ANY internal.cloudapp.net {',
  '        match "^(?:[^.]+\\.){4,}internal\\.cloudapp\\.net\\.$"',
  '        rcode NXDOMAIN',
  '        fallthrough',
  '    }',
  '    template ANY ANY reddog.microsoft.com {',
  '        rcode NXDOMAIN',
  '    }',
];

interface Section {
  bind: string;
  nsid: string;
  /** VnetDNS sends the root zone to Azure DNS whatever the override says. */
  rootToAzureDns: boolean;
}
const VNET: Section = { bind: '169.254.10.10', nsid: 'localdns', rootToAzureDns: true };
const KUBE: Section = { bind: '169.254.10.11', nsid: 'localdns-pod', rootToAzureDns: false };

const nilOr = (value: number | undefined): string => (value === undefined ? '<nil>' : String(value));

const policy = (p: string | undefined): string => (p === 'RoundRobin' ? 'round_robin' : p === 'Random' ? 'random' : 'sequential');

function forwardTarget(domain: string, o: LocalDnsOverrides, section: Section, coreDns: string): string {
  if (section.rootToAzureDns && domain === '.') return AZURE_DNS;
  return domain.endsWith('cluster.local') || o.forwardDestination === 'ClusterCoreDNS' ? coreDns : AZURE_DNS;
}

function forwardBlock(o: LocalDnsOverrides, target: string): string[] {
  const lines = [`    forward . ${target} {`];
  if (o.protocol === 'ForceTCP') lines.push('        force_tcp');
  if (o.protocol === 'PreferUDP') lines.push('        prefer_udp');
  lines.push(`        policy ${policy(o.forwardPolicy)}`);
  lines.push(`        max_concurrent ${nilOr(o.maxConcurrent)}`);
  const hc = o.healthCheck;
  if (hc && (hc.duration ?? '') !== '') {
    lines.push(`        health_check ${hc.duration}${hc.noRec === true ? ' no_rec' : ''}${hc.domain ? ` domain ${hc.domain}` : ''}`);
  }
  if (o.failfastAllUnhealthyUpstreams === true) lines.push('        failfast_all_unhealthy_upstreams');
  lines.push('    }');
  return lines;
}

function cacheBlock(o: LocalDnsOverrides): string[] {
  const stale = nilOr(o.serveStaleDurationInSeconds);
  return [
    `    cache ${nilOr(o.cacheDurationInSeconds)} {`,
    '        success 9984',
    '        denial 9984',
    ...(o.serveStale === 'Verify' ? [`        serve_stale ${stale}s verify`] : []),
    ...(o.serveStale === 'Immediate' ? [`        serve_stale ${stale}s immediate`] : []),
    '        servfail 0',
    '    }',
  ];
}

function serverBlock(domain: string, o: LocalDnsOverrides, section: Section, coreDns: string, hosts: boolean): string[] {
  return [
    `${domain}:53 {`,
    ...(o.queryLogging === 'Error' ? ['    errors'] : []),
    ...(o.queryLogging === 'Log' ? ['    log'] : []),
    `    bind ${section.bind}`,
    ...(domain === '.' && hosts ? HOSTS_BLOCK : []),
    ...forwardBlock(o, forwardTarget(domain, o, section, coreDns)),
    `    ready ${section.bind}:8181`,
    ...cacheBlock(o),
    '    loop',
    `    nsid ${section.nsid}`,
    '    prometheus :9253',
    ...(domain === '.' ? TEMPLATE_BLOCKS : []),
    '}',
  ];
}

function sectionBlocks(map: Record<string, LocalDnsOverrides> | undefined, section: Section, coreDns: string, hosts: boolean) {
  const m = map ?? {};
  return Object.keys(m)
    .sort(compareCodePoints)
    .flatMap((d) => serverBlock(d, m[d]!, section, coreDns, hosts));
}

/** The corefile text; `includeHosts` adds the hosts plugin block to the root (`.`) servers. */
export function renderLocalDnsCorefile(profile: LocalDnsProfile, coreDnsServiceIp: string | undefined, includeHosts: boolean): string {
  const coreDns = coreDnsServiceIp ? coreDnsServiceIp : DEFAULT_CORE_DNS_IP;
  const lines = [
    ...HEADER,
    VNET_COMMENT,
    ...sectionBlocks(profile.vnetDnsOverrides, VNET, coreDns, includeHosts),
    KUBE_COMMENT,
    ...sectionBlocks(profile.kubeDnsOverrides, KUBE, coreDns, includeHosts),
  ];
  return lines.join('\n') + '\n';
}

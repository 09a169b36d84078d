// SYSCTL_CONTENT text (config-contract 3.3.3): `key=value` lines sorted by key, each ending in `\n`.
// Built even when custom_linux_os_config / sysctl_config are absent. Pure.
import type { SysctlConfig } from '../../config/types.ts';
import { goAtoi } from '../../platform/go/strconv.ts';
import { compareCodePoints } from '../env/format.ts';
import { SYSCTL_DEFAULTS } from '../../config/defaults.ts';

type IntField = { [K in keyof SysctlConfig]-?: SysctlConfig[K] extends number | undefined ? K : never }[keyof SysctlConfig];

/** Present with a default when unset (value when set, presence-aware). */
const DEFAULTED: ReadonlyArray<[IntField, string, number]> = [
  ['netCoreSomaxconn', 'net.core.somaxconn', SYSCTL_DEFAULTS.netCoreSomaxconn],
  ['netIpv4TcpMaxSynBacklog', 'net.ipv4.tcp_max_syn_backlog', SYSCTL_DEFAULTS.netIpv4TcpMaxSynBacklog],
  ['netIpv4NeighDefaultGcThresh1', 'net.ipv4.neigh.default.gc_thresh1', SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh1],
  ['netIpv4NeighDefaultGcThresh2', 'net.ipv4.neigh.default.gc_thresh2', SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh2],
  ['netIpv4NeighDefaultGcThresh3', 'net.ipv4.neigh.default.gc_thresh3', SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh3],
];

/** Present only when set (an explicit 0 is emitted). */
const OPTIONAL: ReadonlyArray<[IntField, string]> = [
  ['netCoreNetdevMaxBacklog', 'net.core.netdev_max_backlog'],
  ['netCoreRmemDefault', 'net.core.rmem_default'],
  ['netCoreRmemMax', 'net.core.rmem_max'],
  ['netCoreWmemDefault', 'net.core.wmem_default'],
  ['netCoreWmemMax', 'net.core.wmem_max'],
  ['netCoreOptmemMax', 'net.core.optmem_max'],
  ['netIpv4TcpMaxTwBuckets', 'net.ipv4.tcp_max_tw_buckets'],
  ['netIpv4TcpFinTimeout', 'net.ipv4.tcp_fin_timeout'],
  ['netIpv4TcpKeepaliveTime', 'net.ipv4.tcp_keepalive_time'],
  ['netIpv4TcpKeepaliveProbes', 'net.ipv4.tcp_keepalive_probes'],
  ['netIpv4TcpkeepaliveIntvl', 'net.ipv4.tcp_keepalive_intvl'],
  ['netNetfilterNfConntrackMax', 'net.netfilter.nf_conntrack_max'],
  ['netNetfilterNfConntrackBuckets', 'net.netfilter.nf_conntrack_buckets'],
  ['fsInotifyMaxUserWatches', 'fs.inotify.max_user_watches'],
  ['fsFileMax', 'fs.file-max'],
  ['fsAioMaxNr', 'fs.aio-max-nr'],
  ['fsNrOpen', 'fs.nr_open'],
  ['kernelThreadsMax', 'kernel.threads-max'],
  ['vmMaxMapCount', 'vm.max_map_count'],
  ['vmSwappiness', 'vm.swappiness'],
  ['vmVfsCachePressure', 'vm.vfs_cache_pressure'],
];

/**
 * End of an `ip_local_port_range` value when it is valid ("start end", both Go `Atoi` integers > 0,
 * start < end). A part beyond the int64 range is invalid there, so the range has no end.
 */
export function portRangeEnd(range: string): bigint | undefined {
  const parts = range.split(' ');
  if (parts.length !== 2) return undefined;
  const start = goAtoi(parts[0]!);
  const end = goAtoi(parts[1]!);
  if (start === undefined || end === undefined || start <= 0n || end <= 0n || start >= end) return undefined;
  return end;
}

export function renderSysctl(sysctl: SysctlConfig | undefined): string {
  const s = sysctl ?? {};
  const values = new Map<string, string>([
    ['net.ipv4.tcp_retries2', '8'],
    ['net.core.message_burst', '80'],
    ['net.core.message_cost', '40'],
  ]);
  for (const [field, key, fallback] of DEFAULTED) values.set(key, String(s[field] ?? fallback));
  for (const [field, key] of OPTIONAL) if (s[field] !== undefined) values.set(key, String(s[field]));
  if (s.netIpv4TcpTwReuse !== undefined) values.set('net.ipv4.tcp_tw_reuse', s.netIpv4TcpTwReuse ? '1' : '0');
  const range = s.netIpv4IpLocalPortRange ?? '';
  if (range !== '') {
    values.set('net.ipv4.ip_local_port_range', range);
    const end = portRangeEnd(range);
    if (end !== undefined && end > 65330n) values.set('net.ipv4.ip_local_reserved_ports', '65330');
  }
  return [...values.keys()]
    .sort(compareCodePoints)
    .map((k) => `${k}=${values.get(k)}\n`)
    .join('');
}

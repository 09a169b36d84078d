// The canonical form of a configuration (D11, D12): two configurations that provision the same node
// canonicalise to the same bytes, whatever their key order, spelling (proto or json names), unknown
// fields, or whether a default was written out or left implicit.
//
// Rules, in the order they apply to every field of every message (walked from the field catalogue, so
// unknown fields are dropped):
//  1. implicit-presence scalars: the zero value ("" / 0 / false / enum 0 = *_UNSPECIFIED) is dropped,
//     exactly as the environment builder cannot tell it from absence (config-contract 2.8);
//  2. `optional` scalars keep their presence (an explicit 0 or false is meaningful, e.g. sysctls, the
//     kubelet JSON, LocalDNS `<nil>`), EXCEPT where the env builder resolves a default; those rules are
//     the DEFAULTS table below, each citing config-contract section 3;
//  3. enums are value names; a number with a name becomes the name, an undefined number stays a number;
//  4. repeated fields keep their order (it is observable: CUSTOM_CA_CERT_<i>, NO_PROXY, clusterDNS) and
//     are dropped when empty (2.8: `[]` is the same as absent); maps are sorted by key (code points) and
//     dropped when empty; map-of-message entries are kept even when empty (each renders a DNS block);
//  5. a sub-message is dropped when it ends up empty, unless its presence is observable on the node
//     (PRESENCE_SIGNIFICANT: kubelet_config -> KUBELET_CONFIG_FILE_CONTENT "" vs "e30="; ulimit_config ->
//     SHOULD_CONFIG_CONTAINERD_ULIMITS; the kubelet authentication/authorization blocks -> `"anonymous": {}`
//     in the kubelet JSON, 3.3.9).
// Deliberately NOT collapsed (conservative: may call two equivalent configurations different, never the
// reverse): cross-field irrelevance such as LocalDNS overrides while LocalDNS is disabled, the kubelet
// streaming timeout dropped for Kubernetes >= 1.34, repo_depot_endpoint outside a custom cloud.
//
// canonicalJson() serialises with proto names (what the producer writes), fields in declaration order,
// maps in code-point order, no whitespace; doubles keep NaN/Infinity as protojson strings and -0 as -0.
import { enumName, MESSAGES } from './types.ts';
import type { Configuration, FieldInfo, MessageName } from './types.ts';
import {
  CLOUD_PROVIDER_DEFAULTS,
  CORE_DNS_SERVICE_IP_DEFAULT,
  CSE_TIMEOUT_DEFAULTS,
  LOAD_BALANCER_DEFAULTS,
  LOCALDNS_DEFAULTS,
  NODE_DEFAULTS,
  SYSCTL_DEFAULTS,
} from './defaults.ts';

type Obj = Record<string, unknown>;
/** Maps a present value to its canonical value, or undefined when it is equivalent to absence. */
type Rule = (value: unknown) => unknown;

const isZero = (v: unknown) => v === 0;
/** A default is dropped when the value equals it (Object.is: -0 and NaN are real, different values). */
const dflt =
  (d: unknown): Rule =>
  (v) =>
    Object.is(v, d) ? undefined : v;
const getterFalse: Rule = (v) => (v === false ? undefined : v);
const emptyString: Rule = (v) => (v === '' ? undefined : v);

/** Defaults the environment builder applies (config-contract section 3), keyed `Message.proto_field`. */
export const DEFAULTS: Readonly<Record<string, Rule>> = {
  // 3.2.9: IS_VHD presence-aware, unset -> true; DISABLE_SSH unset -> false, i.e. enable_ssh unset == true.
  'Configuration.is_vhd': dflt(NODE_DEFAULTS.isVhd),
  'Configuration.enable_ssh': dflt(NODE_DEFAULTS.enableSsh),
  // 3.2.8 / 3.2.9: read through the getter, unset == false.
  'Configuration.needs_cgroupv2': getterFalse,
  'Configuration.disable_pubkey_auth': getterFalse,
  // 3.3.13: CSE_TIMEOUT = value when 1..21600, else 900.
  'Configuration.cse_timeout': (v) =>
    typeof v === 'number' && v >= 1 && v <= CSE_TIMEOUT_DEFAULTS.maxSeconds && v !== CSE_TIMEOUT_DEFAULTS.defaultSeconds ? v : undefined,
  // 3.2.2: ADMINUSER = value, or "azureuser" when empty.
  'Configuration.linux_admin_username': (v) => (v === NODE_DEFAULTS.linuxAdminUsername || v === '' ? undefined : v),
  // 3.3.2: exclude-master unset -> true; rule count unset -> 148.
  'LoadBalancerConfig.exclude_master_from_standard_load_balancer': dflt(LOAD_BALANCER_DEFAULTS.excludeMasterFromStandardLoadBalancer),
  'LoadBalancerConfig.max_load_balancer_rule_count': dflt(LOAD_BALANCER_DEFAULTS.maxLoadBalancerRuleCount),
  // 3.3.2: cloud-provider defaults; backoff_mode (not optional) overrides only when non-empty.
  'CloudProviderConfig.backoff': dflt(CLOUD_PROVIDER_DEFAULTS.backoff),
  'CloudProviderConfig.backoff_mode': (v) => (v === CLOUD_PROVIDER_DEFAULTS.backoffMode || v === '' ? undefined : v),
  'CloudProviderConfig.backoff_retries': dflt(CLOUD_PROVIDER_DEFAULTS.backoffRetries),
  'CloudProviderConfig.backoff_exponent': dflt(CLOUD_PROVIDER_DEFAULTS.backoffExponent),
  'CloudProviderConfig.backoff_duration': dflt(CLOUD_PROVIDER_DEFAULTS.backoffDuration),
  'CloudProviderConfig.backoff_jitter': dflt(CLOUD_PROVIDER_DEFAULTS.backoffJitter),
  'CloudProviderConfig.rate_limit': dflt(CLOUD_PROVIDER_DEFAULTS.rateLimit),
  'CloudProviderConfig.rate_limit_qps': dflt(CLOUD_PROVIDER_DEFAULTS.rateLimitQps),
  'CloudProviderConfig.rate_limit_qps_write': dflt(CLOUD_PROVIDER_DEFAULTS.rateLimitQpsWrite),
  'CloudProviderConfig.rate_limit_bucket': dflt(CLOUD_PROVIDER_DEFAULTS.rateLimitBucket),
  'CloudProviderConfig.rate_limit_bucket_write': dflt(CLOUD_PROVIDER_DEFAULTS.rateLimitBucketWrite),
  // 3.2.14: every optional bootstrapping string is "passthrough, '' when unset".
  'BootstrappingConfig.tls_bootstrapping_token': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_aad_resource': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_user_assigned_identity_id': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_custom_client_download_url': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_validate_kubeconfig_timeout': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_get_access_token_timeout': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_get_instance_data_timeout': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_get_nonce_timeout': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_get_attested_data_timeout': emptyString,
  'BootstrappingConfig.secure_tls_bootstrapping_get_credential_timeout': emptyString,
  // 3.3.3: sysctls with a default line; ip_local_port_range "" counts as absent.
  'SysctlConfig.net_core_somaxconn': dflt(SYSCTL_DEFAULTS.netCoreSomaxconn),
  'SysctlConfig.net_ipv4_tcp_max_syn_backlog': dflt(SYSCTL_DEFAULTS.netIpv4TcpMaxSynBacklog),
  'SysctlConfig.net_ipv4_neigh_default_gc_thresh1': dflt(SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh1),
  'SysctlConfig.net_ipv4_neigh_default_gc_thresh2': dflt(SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh2),
  'SysctlConfig.net_ipv4_neigh_default_gc_thresh3': dflt(SYSCTL_DEFAULTS.netIpv4NeighDefaultGcThresh3),
  'SysctlConfig.net_ipv4_ip_local_port_range': emptyString,
  // 3.2.16 / 3.3.10: GPU_NODE and the nvidia runtime need enable_nvidia present AND true; enable_amd_gpu
  // is never read, so only its getter value can matter.
  'GpuConfig.enable_nvidia': getterFalse,
  'GpuConfig.enable_amd_gpu': getterFalse,
  // 3.2.18: 0 (or unset) -> 200.0% / 128M, which is what 2000 milli-cores / 128 MB print as well.
  'LocalDnsProfile.cpu_limit_in_milli_cores': (v) => (v === 0 || v === LOCALDNS_DEFAULTS.cpuLimitInMilliCores ? undefined : v),
  'LocalDnsProfile.memory_limit_in_mb': (v) => (v === 0 || v === LOCALDNS_DEFAULTS.memoryLimitInMb ? undefined : v),
  'LocalDnsProfile.hosts_plugin_refresh_interval_in_seconds': (v) => (typeof v === 'number' && v > 0 ? v : undefined),
  // 3.3.11: core DNS IP "" -> 10.0.0.10; failfast / no_rec need present AND true; duration / domain non-empty.
  'ClusterNetworkConfig.core_dns_service_ip': (v) => (v === CORE_DNS_SERVICE_IP_DEFAULT || v === '' ? undefined : v),
  'LocalDnsOverrides.failfast_all_unhealthy_upstreams': getterFalse,
  'LocalDnsHealthCheck.no_rec': getterFalse,
  'LocalDnsHealthCheck.duration': emptyString,
  'LocalDnsHealthCheck.domain': emptyString,
};

/** Sub-messages whose mere presence (even `{}`) changes what the node gets (config-contract 2.8, 3.3.9). */
export const PRESENCE_SIGNIFICANT: ReadonlySet<string> = new Set([
  'Configuration.kubelet_config',
  'CustomLinuxOsConfig.ulimit_config',
  'KubeletConfigFileConfig.authentication',
  'KubeletConfigFileConfig.authorization',
  'KubeletAuthentication.x509',
  'KubeletAuthentication.webhook',
  'KubeletAuthentication.anonymous',
  'KubeletAuthorization.webhook',
]);

export const fieldKey = (message: MessageName, field: FieldInfo): string => `${message}.${field.proto}`;

/** Go/protobuf byte order of UTF-8 strings == code-point order (not JS's UTF-16 order). */
export function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

export const sortedKeys = (o: Obj): string[] => Object.keys(o).sort(codePointCompare);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value a caller stored for a field: json name first, proto name accepted for library callers. */
export function readField(obj: Obj, field: FieldInfo): unknown {
  const v = obj[field.json];
  return v !== undefined ? v : obj[field.proto];
}

function canonicalScalar(field: FieldInfo, value: unknown): unknown {
  if (field.enum) {
    const named = typeof value === 'number' ? (enumName(field.enum, value) ?? value) : value;
    const zero = named === 0 || (typeof named === 'string' && named.endsWith('_UNSPECIFIED'));
    return zero ? undefined : named;
  }
  if (typeof value === 'number' && field.type === 'int32' && Object.is(value, -0)) return 0;
  if (field.optional) return value;
  return value === '' || value === false || isZero(value) ? undefined : value;
}

function canonicalMap(field: FieldInfo, value: unknown): Obj | undefined {
  if (!isObj(value)) return undefined;
  const out: Obj = {};
  for (const k of sortedKeys(value)) {
    const v = value[k];
    if (v === undefined || v === null) continue;
    out[k] = field.mapValueMessage ? canonicalMessage(field.mapValueMessage, isObj(v) ? v : {}) : v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function canonicalField(message: MessageName, field: FieldInfo, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  const key = fieldKey(message, field);
  if (field.repeated && field.message) {
    // A repeated message (KubeletTaint): order kept, every element (an empty one too) canonical.
    const sub = field.message;
    return Array.isArray(value) && value.length > 0 ? value.map((e) => canonicalMessage(sub, isObj(e) ? e : {})) : undefined;
  }
  if (field.message) {
    if (!isObj(value)) return undefined;
    const sub = canonicalMessage(field.message, value);
    return Object.keys(sub).length > 0 || PRESENCE_SIGNIFICANT.has(key) ? sub : undefined;
  }
  if (field.map) return canonicalMap(field, value);
  if (field.repeated) return Array.isArray(value) && value.length > 0 ? [...value] : undefined;
  const resolved = canonicalScalar(field, value);
  const rule = DEFAULTS[key];
  return resolved !== undefined && rule ? rule(resolved) : resolved;
}

function canonicalMessage(message: MessageName, obj: Obj): Obj {
  const out: Obj = {};
  for (const field of MESSAGES[message].fields) {
    const v = canonicalField(message, field, readField(obj, field));
    if (v !== undefined) out[field.json] = v;
  }
  return out;
}

/** The canonical configuration (json-name properties, defaults resolved, unknown fields dropped). */
export function canonicalConfiguration(config: Configuration): Configuration {
  return canonicalMessage('Configuration', isObj(config) ? (config as Obj) : {}) as Configuration;
}

function numberJson(field: FieldInfo, v: number): string {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Infinity) return '"Infinity"';
  if (v === -Infinity) return '"-Infinity"';
  return Object.is(v, -0) && field.type === 'double' ? '-0' : JSON.stringify(v);
}

function valueJson(field: FieldInfo, v: unknown): string {
  if (typeof v === 'number') return numberJson(field, v);
  return JSON.stringify(v);
}

function messageJson(message: MessageName, obj: Obj): string {
  const parts: string[] = [];
  for (const field of MESSAGES[message].fields) {
    const v = obj[field.json];
    if (v === undefined) continue;
    let text: string;
    const sub = field.message;
    if (sub && field.repeated) text = `[${(v as Obj[]).map((e) => messageJson(sub, e)).join(',')}]`;
    else if (sub) text = messageJson(sub, v as Obj);
    else if (field.map) {
      const m = v as Obj;
      const entries = sortedKeys(m).map((k) => {
        const ev = m[k];
        const evJson = field.mapValueMessage ? messageJson(field.mapValueMessage, ev as Obj) : JSON.stringify(ev);
        return `${JSON.stringify(k)}:${evJson}`;
      });
      text = `{${entries.join(',')}}`;
    } else if (field.repeated) text = JSON.stringify(v);
    else text = valueJson(field, v);
    parts.push(`${JSON.stringify(field.proto)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** Serialises an ALREADY canonical message (see canonicalConfiguration) to its canonical bytes. */
export function canonicalMessageJson(message: MessageName, canonical: Obj): string {
  return messageJson(message, canonical);
}

/** Canonical JSON text of a configuration: the bytes both hashes are computed over. */
export function canonicalJson(config: Configuration): string {
  return messageJson('Configuration', canonicalConfiguration(config) as Obj);
}

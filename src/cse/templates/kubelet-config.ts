// KUBELET_CONFIG_FILE_CONTENT text (config-contract 3.3.9): protojson of KubeletConfigFileConfig with
// JSON names in DECLARATION order, re-indented like Go json.Indent (4 spaces, no trailing newline), with
// Go's HTML-safe string escaping. Pure.
import type { KubeletConfigFileConfig } from '../../config/types.ts';
import { compareCodePoints } from '../env/format.ts';

/** s = implicit-presence scalar (emitted when non-zero), o = proto3 optional (emitted when present),
 *  r = repeated string, m = map (both emitted when non-empty), a nested message schema, or
 *  { repeated: schema } for a repeated message (emitted when non-empty). */
type FieldKind = 's' | 'o' | 'r' | 'm' | Schema | { readonly repeated: Schema };
type Schema = ReadonlyArray<readonly [string, FieldKind]>;

const AUTHENTICATION: Schema = [
  ['x509', [['clientCAFile', 's']]],
  [
    'webhook',
    [
      ['enabled', 's'],
      ['cacheTtl', 's'],
    ],
  ],
  ['anonymous', [['enabled', 's']]],
];
const AUTHORIZATION: Schema = [
  ['mode', 's'],
  [
    'webhook',
    [
      ['cacheAuthorizedTtl', 's'],
      ['cacheUnauthorizedTtl', 's'],
    ],
  ],
];

const TAINT: Schema = [
  ['key', 's'],
  ['value', 's'],
  ['effect', 's'],
  ['timeAdded', 's'],
];

/** Declaration order (fields 41-45 sit between 37 and 38, config-contract 1.4). */
export const KUBELET_CONFIG_FILE_SCHEMA: Schema = [
  ['kind', 's'],
  ['apiVersion', 's'],
  ['staticPodPath', 's'],
  ['address', 's'],
  ['readOnlyPort', 's'],
  ['tlsCertFile', 's'],
  ['tlsPrivateKeyFile', 's'],
  ['tlsCipherSuites', 'r'],
  ['rotateCertificates', 's'],
  ['serverTLSBootstrap', 's'],
  ['authentication', AUTHENTICATION],
  ['authorization', AUTHORIZATION],
  ['eventRecordQPS', 'o'],
  ['clusterDomain', 's'],
  ['clusterDNS', 'r'],
  ['streamingConnectionIdleTimeout', 's'],
  ['nodeStatusUpdateFrequency', 's'],
  ['nodeStatusReportFrequency', 's'],
  ['imageGCHighThresholdPercent', 'o'],
  ['imageGCLowThresholdPercent', 'o'],
  ['cgroupsPerQOS', 'o'],
  ['cpuManagerPolicy', 's'],
  ['topologyManagerPolicy', 's'],
  ['maxPods', 'o'],
  ['podPidsLimit', 'o'],
  ['resolvConf', 's'],
  ['cpuCFSQuota', 'o'],
  ['cpuCFSQuotaPeriod', 's'],
  ['evictionHard', 'm'],
  ['protectKernelDefaults', 's'],
  ['featureGates', 'm'],
  ['failSwapOn', 'o'],
  ['containerLogMaxSize', 's'],
  ['containerLogMaxFiles', 'o'],
  ['systemReserved', 'm'],
  ['kubeReserved', 'm'],
  ['enforceNodeAllocatable', 'r'],
  ['evictionSoft', 'm'],
  ['evictionSoftGracePeriod', 'm'],
  ['evictionMaxPodGracePeriod', 's'],
  ['kubeReservedCgroup', 's'],
  ['systemReservedCgroup', 's'],
  ['allowedUnsafeSysctls', 'r'],
  ['serializeImagePulls', 'o'],
  ['seccompDefault', 's'],
  // PR #9576 (config-contract 1.2.14): appended after seccompDefault, rendered like their neighbours.
  ['enableServer', 'o'],
  ['volumePluginDir', 's'],
  ['cgroupDriver', 's'],
  ['runtimeRequestTimeout', 's'],
  ['containerRuntimeEndpoint', 's'],
  ['registerWithTaints', { repeated: TAINT }],
  ['hairpinMode', 's'],
];

/** A JSON string with Go's HTML-safe escapes (`<` `>` `&` U+2028 U+2029 as \u00XX / \u20XX). */
export function goJsonString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

const scalar = (value: unknown): string => (typeof value === 'string' ? goJsonString(value) : String(value));

function isZero(value: unknown): boolean {
  return value === undefined || value === '' || value === 0 || value === false;
}

type Entry = readonly [string, string];

function renderObject(entries: readonly Entry[], depth: number): string {
  if (entries.length === 0) return '{}';
  const pad = '    '.repeat(depth + 1);
  const body = entries.map(([k, v]) => `${pad}${goJsonString(k)}: ${v}`).join(',\n');
  return `{\n${body}\n${'    '.repeat(depth)}}`;
}

/** `items` are already rendered JSON values (strings quoted, objects indented for depth + 1). */
function renderArray(items: readonly string[], depth: number): string {
  const pad = '    '.repeat(depth + 1);
  return `[\n${items.map((i) => pad + i).join(',\n')}\n${'    '.repeat(depth)}]`;
}

function renderField(kind: FieldKind, value: unknown, depth: number): string | undefined {
  if (kind === 's') return isZero(value) ? undefined : scalar(value);
  if (kind === 'o') return value === undefined ? undefined : scalar(value);
  if (kind === 'r') {
    const items = (value as string[] | undefined) ?? [];
    return items.length === 0 ? undefined : renderArray(items.map(goJsonString), depth);
  }
  if (kind === 'm') {
    const map = (value as Record<string, unknown> | undefined) ?? {};
    const keys = Object.keys(map).sort(compareCodePoints);
    return keys.length === 0
      ? undefined
      : renderObject(
          keys.map((k) => [k, scalar(map[k])] as const),
          depth,
        );
  }
  if ('repeated' in kind) {
    const items = (value as Record<string, unknown>[] | undefined) ?? [];
    const schema = kind.repeated;
    return items.length === 0
      ? undefined
      : renderArray(
          items.map((m) => renderMessage(schema, m, depth + 1)),
          depth,
        );
  }
  return value === undefined ? undefined : renderMessage(kind, value as Record<string, unknown>, depth);
}

function renderMessage(schema: Schema, message: Record<string, unknown>, depth: number): string {
  const entries: Entry[] = [];
  for (const [name, kind] of schema) {
    const rendered = renderField(kind, message[name], depth + 1);
    if (rendered !== undefined) entries.push([name, rendered]);
  }
  return renderObject(entries, depth);
}

/** The kubelet config file JSON; `dropStreamingTimeout` for Kubernetes >= 1.34.0. */
export function renderKubeletConfigFile(config: KubeletConfigFileConfig | undefined, dropStreamingTimeout: boolean): string {
  const message: Record<string, unknown> = { ...(config ?? {}) };
  if (dropStreamingTimeout) message.streamingConnectionIdleTimeout = '';
  return renderMessage(KUBELET_CONFIG_FILE_SCHEMA, message, 0);
}

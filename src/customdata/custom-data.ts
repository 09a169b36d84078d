// Custom data: what the control plane puts in the VM model so the node provisions itself (D11, reference
// 9 CustomData / CustomDataFlatcar, 8.5). Pure: configuration JSON in, document out; the sha256 used for
// the MIME boundary comes in as a parameter. The paths are the REAL on-node ones (this targets a VM, never
// a sandbox root). The same inputs always give the same bytes, so an unchanged configuration never looks
// changed to the VM model (no spurious rollout).
import { AgentError } from '../platform/errors.ts';
import { NODE_PATHS } from '../platform/paths.ts';

export const CUSTOM_DATA_FORMATS = ['mime', 'cloud-config', 'ignition'] as const;
export type CustomDataFormat = (typeof CUSTOM_DATA_FORMATS)[number];

export interface CustomDataInput {
  /** The marshalled configuration (marshalConfiguration), embedded byte for byte. */
  configJson: string;
  /** Configuration.enabledFeatures: written to enabled_features.sh for the launcher (HEAD addition). */
  enabledFeatures?: Readonly<Record<string, string>> | undefined;
  /** Hex sha256 of a UTF-8 string (platform/hash), used only for the MIME boundary. */
  sha256Hex: (text: string) => string;
}

export const SERVICE_NAME = 'aks-node-controller.service';
const START_SERVICE = `systemctl start --no-block ${SERVICE_NAME}`;
const PRELOAD_SCRIPT = `${NODE_PATHS.containersDir}/provision_preload.sh`;
const FEATURE_KEY = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const CRLF = '\r\n';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** Sorted `KEY=VALUE` lines of the valid flags ('' when none): identifier keys, values without CR/LF. */
export function featuresFileText(features: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(features ?? {})
    .filter((k) => FEATURE_KEY.test(k) && !/[\r\n]/.test(features![k]!))
    .sort();
  return keys.map((k) => `${k}=${features![k]}\n`).join('');
}

/** A bash fragment writing base64 `data` to `path` with mode 0600; the file is never readable by others,
 *  not even between the write and the chmod (umask in a subshell). */
function writeFileFragment(path: string, data: string, marker: string): string[] {
  return [`(umask 0077 && base64 -d > ${path}) <<'${marker}'`, b64(data), marker, `chmod 0600 ${path}`];
}

/** The cloud-boothook script (reference 9 shape, June 2026: preload; HEAD: enabled_features.sh). */
export function boothookScript(input: CustomDataInput): string {
  const features = featuresFileText(input.enabledFeatures);
  const lines = [
    '#cloud-boothook',
    '#!/bin/bash',
    'set -euo pipefail',
    'logger -t aks-boothook "boothook start $(date -Ins)"',
    `mkdir -p ${NODE_PATHS.containersDir} ${NODE_PATHS.logDir}`,
    `nohup /bin/bash ${PRELOAD_SCRIPT} >/dev/null 2>&1 &`,
    ...writeFileFragment(NODE_PATHS.nodeConfig, input.configJson, 'ANC_CONFIG_EOF'),
    ...(features ? writeFileFragment(NODE_PATHS.enabledFeatures, features, 'ANC_FEATURES_EOF') : []),
    'logger -t aks-boothook "launching aks-node-controller service $(date -Ins)"',
    START_SERVICE,
  ];
  return lines.join('\n') + '\n';
}

const CLOUD_CONFIG_PART = '#cloud-config\nruncmd:\n- echo "AKS Node Controller cloud-init completed at $(date)"\n';

/** MIME multipart (CRLF headers and delimiters; bodies keep LF), boundary = 60 hex of the parts' sha256. */
export function renderMime(input: CustomDataInput): string {
  const boothook = boothookScript(input);
  const boundary = input.sha256Hex(`${boothook}\0${CLOUD_CONFIG_PART}`).slice(0, 60);
  const head = (lines: string[]) => lines.map((l) => l + CRLF).join('') + CRLF;
  return (
    head(['MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${boundary}"`]) +
    `--${boundary}${CRLF}` +
    head(['Content-Transfer-Encoding: 7bit', 'Content-Type: text/cloud-boothook', 'Mime-Version: 1.0']) +
    boothook +
    `${CRLF}--${boundary}${CRLF}` +
    head(['Content-Transfer-Encoding: 7bit', 'Content-Type: text/cloud-config', 'Mime-Version: 1.0']) +
    CLOUD_CONFIG_PART +
    `${CRLF}--${boundary}--${CRLF}`
  );
}

/** `#cloud-config` with write_files (0600, root, b64) and a runcmd that starts the service. */
export function renderCloudConfig(input: CustomDataInput): string {
  const features = featuresFileText(input.enabledFeatures);
  const entry = (path: string, data: string) => [
    `- path: ${path}`,
    '  permissions: "0600"',
    '  owner: root',
    '  encoding: b64',
    `  content: ${b64(data)}`,
  ];
  const lines = [
    '#cloud-config',
    'write_files:',
    ...entry(NODE_PATHS.nodeConfig, input.configJson),
    ...(features ? entry(NODE_PATHS.enabledFeatures, features) : []),
    'runcmd:',
    `- ${START_SERVICE}`,
  ];
  return lines.join('\n') + '\n';
}

/** Ignition 3.4.0 (Flatcar): the files are written before the first boot; the enabled unit does the rest. */
export function renderIgnition(input: CustomDataInput): string {
  const features = featuresFileText(input.enabledFeatures);
  const file = (path: string, data: string) => ({ path, mode: 0o600, contents: { source: `data:;base64,${b64(data)}` } });
  const files = [file(NODE_PATHS.nodeConfig, input.configJson)];
  if (features) files.push(file(NODE_PATHS.enabledFeatures, features));
  return JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files } });
}

/** The decoded document of a format. */
export function renderCustomDataDocument(format: CustomDataFormat, input: CustomDataInput): string {
  if (format === 'cloud-config') return renderCloudConfig(input);
  if (format === 'ignition') return renderIgnition(input);
  return renderMime(input);
}

/** What the VM model carries: std base64 of the document, one line. */
export function renderCustomData(format: CustomDataFormat, input: CustomDataInput): string {
  return b64(renderCustomDataDocument(format, input));
}

// ---- decoding (debugging aid: custom data -> the embedded configuration) ----

export interface DecodedCustomData {
  format: CustomDataFormat;
  /** The configuration text exactly as embedded. */
  configJson: string;
}

const decodeError = (message: string) => new AgentError('ANC_CUSTOM_DATA', message);

function fromBase64(text: string, what: string): string {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw decodeError(`${what} is not valid base64`);
  return Buffer.from(clean, 'base64').toString('utf8');
}

/** Base64 custom data is decoded first; a document that is already decoded is taken as is. */
function unwrap(content: string): string {
  const trimmed = content.trim();
  if (trimmed && /^[A-Za-z0-9+/=\s]+$/.test(trimmed)) return fromBase64(trimmed, 'custom data');
  return content.replace(/^\uFEFF/, '');
}

/** The body of the heredoc whose command line writes `path` (our boothook and the reference's). */
function heredocFor(script: string, path: string): string | undefined {
  const lines = script.replace(/\r/g, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /<<-?\s*['"]?(\w+)['"]?/.exec(line)?.[1];
    if (!marker || !line.includes(path) || !/base64\s+(-d|--decode)/.test(line)) continue;
    const end = lines.indexOf(marker, i + 1);
    if (end < 0) throw decodeError(`the heredoc for ${path} has no end marker ${marker}`);
    return lines.slice(i + 1, end).join('\n');
  }
  return undefined;
}

/** The `content` of the write_files entry for `path` (inline, or a `|` / `!!binary |` block). */
function writeFilesContent(doc: string, path: string): string | undefined {
  const lines = doc.replace(/\r/g, '').split('\n');
  const quoted = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const start = lines.findIndex((l) => new RegExp(`^\\s*-?\\s*path:\\s*['"]?${quoted}['"]?\\s*$`).test(l));
  if (start < 0) return undefined;
  let encoding = '';
  let content: string | undefined;
  for (let i = start + 1; i < lines.length && !/^\s*-\s|^\S/.test(lines[i]!); i++) {
    const m = /^(\s*)(\w+):\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const [, indent, key, value] = m as unknown as [string, string, string, string];
    if (key === 'encoding') encoding = value.replace(/['"]/g, '');
    if (key !== 'content') continue;
    if (/^(!!binary\s*)?[|>]-?$/.test(value)) {
      if (value.startsWith('!!binary')) encoding = 'b64';
      const block: string[] = [];
      for (let j = i + 1; j < lines.length && (lines[j]!.startsWith(indent + ' ') || lines[j] === ''); j++) block.push(lines[j]!.trim());
      content = block.join('\n');
    } else content = value.replace(/^['"]|['"]$/g, '');
  }
  if (content === undefined) return undefined;
  return /^(b64|base64)$/.test(encoding) ? fromBase64(content, `write_files content of ${path}`) : content;
}

function ignitionContent(doc: string, path: string): string | undefined {
  let parsed: { ignition?: unknown; storage?: { files?: Array<{ path?: string; contents?: { source?: string } }> } };
  try {
    parsed = JSON.parse(doc);
  } catch {
    throw decodeError('the ignition document is not valid JSON');
  }
  if (parsed?.ignition === undefined) throw decodeError('this JSON is not an ignition document (a plain configuration needs no decoding)');
  const source = parsed.storage?.files?.find((f) => f.path === path)?.contents?.source;
  if (source === undefined) return undefined;
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) throw decodeError(`the ignition source for ${path} is not a data: URL`);
  return m[1]!.endsWith(';base64') ? fromBase64(m[2]!, `ignition source of ${path}`) : decodeURIComponent(m[2]!);
}

/** Custom data (base64 or decoded; mime, cloud-config or ignition) -> the embedded configuration. */
export function decodeCustomData(content: string): DecodedCustomData {
  const doc = unwrap(content);
  const head = doc.trimStart();
  const path = NODE_PATHS.nodeConfig;
  let format: CustomDataFormat;
  let configJson: string | undefined;
  if (head.startsWith('{')) {
    format = 'ignition';
    configJson = ignitionContent(doc, path);
  } else if (head.startsWith('#cloud-config')) {
    format = 'cloud-config';
    configJson = writeFilesContent(doc, path);
  } else if (/^(mime-version|content-type):/i.test(head)) {
    format = 'mime';
    const here = heredocFor(doc, path);
    configJson = here !== undefined ? fromBase64(here, 'the boothook heredoc') : writeFilesContent(doc, path);
  } else {
    throw decodeError('not custom data: expected a MIME multipart document, #cloud-config or an ignition JSON (raw or base64)');
  }
  if (configJson === undefined) throw decodeError(`no configuration for ${path} found in the ${format} custom data`);
  return { format, configJson };
}

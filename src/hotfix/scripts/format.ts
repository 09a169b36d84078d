// The script payload (issue 21; docs/hotfix.md "script payload"): fixed provisioning scripts a hotfix
// build carries inside the executable. The build input is the reference generator's layout (manifest.json
// schema_version 1 + payloads/) or one rendered cloud-config per platform (scripts/script-payload-input.ts, build time only); both become
// one normalized form, embedded as a JSON string. Everything here is pure: the build and the node run the
// same checks, so a payload the node would refuse never gets built.
import { posix } from 'node:path';
import { IMAGE_PLATFORMS, type ImagePlatform } from '../../image/platform.ts';
import { INPUT_LIMITS } from '../../platform/input.ts';
import { NODE_PATHS } from '../../platform/paths.ts';
import { TEMP_PREFIX } from '../../platform/temp-files.ts';

export const SCRIPT_PLATFORMS = IMAGE_PLATFORMS;
export type ScriptPlatform = ImagePlatform;

/** One file of the normalized payload. `content` is UTF-8 text when `encoding` is utf8 (keeps deltas small). */
export interface ScriptEntry {
  source: string;
  destination: string;
  /** Octal permission bits as text, `0755`. */
  mode: string;
  platforms: ScriptPlatform[];
  sha256: string;
  encoding: 'utf8' | 'base64';
  content: string;
  /**
   * The sha256 values this destination has on the images the build was checked against (build.mjs
   * --image-manifest): the node refuses the payload when the file holds neither these nor the new bytes.
   * Absent for a build without manifests (replace-only).
   */
  replaces?: string[];
}

export interface ScriptPayload {
  schemaVersion: 1;
  label: string;
  entries: ScriptEntry[];
  /** With --image-manifest only: the images checked against, and the platforms left unchecked on purpose. */
  images?: string[];
  uncheckedPlatforms?: ScriptPlatform[];
}

/** Where a payload may write: the provisioning scripts' directory, nothing else (no allow-list needed yet). */
export const DESTINATION_DIR = `${NODE_PATHS.containersDir}/`;

/**
 * The caps the build and the node share (issue 34): the build refuses what the node would refuse, the
 * node reads its state through the same numbers, so a payload that was built can always be restored.
 * The record's cap follows from the others: MAX_ENTRIES worst-case record entries fit well inside it.
 */
export const SCRIPT_CAPS = {
  entries: 256,
  /** One entry's bytes after decoding (base64, gzip): the size the node reads a destination with. */
  entryBytes: INPUT_LIMITS.script,
  /** All entries' decoded bytes together (what the backups may hold at most). */
  payloadBytes: 64 * 1024 * 1024,
  destinationLength: 255,
  /** record.json as written (pretty JSON); read through INPUT_LIMITS.scriptRecord, the same number. */
  recordBytes: INPUT_LIMITS.scriptRecord,
} as const;

/** Temp names of staged files beside a destination; any `provision` removes stale ones. */
export const STAGE_PREFIX = '.anc-script-hotfix-';

/** The paths table's provisioning scripts: what a payload is for. Every OTHER table entry in the directory is the agent's. */
const PROVISIONING_SCRIPTS = new Set<keyof typeof NODE_PATHS>([
  'provisionStart',
  'cseHelpers',
  'cseDistroHelpers',
  'cseInstall',
  'cseDistroInstall',
  'cseConfig',
  'customSearchDomainScript',
  'dhcpv6Config',
  'initAksCloud',
  'initAksCustomCloud',
]);

/**
 * Names in that directory a payload never replaces, derived from the paths table: every agent path under
 * it (binaries, pointer, state, status, marker, launcher, inputs), its siblings (`<name>-*`, `<name>.*`)
 * and hidden variants (`.<name>*`: the baked guard, temp names), and every temp-name prefix the agent uses.
 */
const AGENT_NAMES = [
  ...new Set(
    Object.entries(NODE_PATHS)
      .filter(([key, p]) => p.startsWith(DESTINATION_DIR) && !PROVISIONING_SCRIPTS.has(key as keyof typeof NODE_PATHS))
      .map(([, p]) => p.slice(DESTINATION_DIR.length).split('/')[0]!.replace(/^\./, '')),
  ),
];
const TEMP_NAMES = [...Object.values(TEMP_PREFIX), STAGE_PREFIX];

function agentNameOf(part: string): string | undefined {
  const bare = part.replace(/^\./, '');
  const name = AGENT_NAMES.find((n) => bare === n || bare.startsWith(`${n}-`) || bare.startsWith(`${n}.`));
  if (name) return name;
  return TEMP_NAMES.find((t) => part.startsWith(t));
}

/** Why a destination is refused, or undefined when it is allowed. */
export function destinationProblem(destination: string): string | undefined {
  if (typeof destination !== 'string' || destination === '') return 'destination must be a non-empty string';
  if (!destination.startsWith('/')) return `destination ${JSON.stringify(destination)} is not an absolute path`;
  if (destination.includes('\\') || destination.includes('\0')) return `destination ${JSON.stringify(destination)} has a backslash or NUL`;
  if (destination.length > SCRIPT_CAPS.destinationLength) return `destination is longer than ${SCRIPT_CAPS.destinationLength} characters`;
  if (posix.normalize(destination) !== destination || destination.endsWith('/')) {
    return `destination ${JSON.stringify(destination)} is not a clean path (no ., .., // or trailing /)`;
  }
  if (!destination.startsWith(DESTINATION_DIR) || destination.length === DESTINATION_DIR.length) {
    return `destination ${destination} is outside ${DESTINATION_DIR} (a script payload replaces provisioning scripts only)`;
  }
  for (const part of destination.slice(DESTINATION_DIR.length).split('/')) {
    const name = agentNameOf(part);
    if (name) return `destination ${destination} is one of the agent's own files (${name}: from the agent's paths table, never a script)`;
  }
  return undefined;
}

/** `payload` of a manifest entry: relative, clean, under payloads/. */
export function payloadPathProblem(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || payload === '') return 'payload must be a non-empty string';
  if (payload.includes('\\')) return `payload ${JSON.stringify(payload)} has a backslash`;
  if (payload.startsWith('/')) return `payload ${JSON.stringify(payload)} must be relative (under payloads/)`;
  if (posix.normalize(payload) !== payload || payload.split('/').some((p) => p === '..' || p === '.' || p === '')) {
    return `payload ${JSON.stringify(payload)} is not a clean relative path (no ., .., //)`;
  }
  if (!payload.startsWith('payloads/') || payload === 'payloads/') return `payload ${JSON.stringify(payload)} is not under payloads/`;
  return undefined;
}

/** The mode as a number, or a problem: an octal string 1-0777 (the record's modes, read back). */
export function parseMode(mode: unknown): number | string {
  if (typeof mode !== 'string' || !/^[0-7]{1,4}$/.test(mode)) return `mode ${JSON.stringify(mode)} is not an octal string such as "0755"`;
  const value = Number.parseInt(mode, 8);
  if (value < 1 || value > 0o777) return `mode ${mode} is outside 1-0777 (no setuid, setgid or sticky bit)`;
  return value;
}

/**
 * The one mode rule of a payload entry, for the manifest form, the cloud-config form and the node alike:
 * parseMode, and never group- or world-writable (root runs these scripts).
 */
export function entryMode(mode: unknown): number | string {
  const value = parseMode(mode);
  if (typeof value === 'number' && (value & 0o022) !== 0) {
    return `mode ${mode as string} is group- or world-writable (root runs provisioning scripts: at most 0755)`;
  }
  return value;
}

export const formatMode = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

export function platformsProblem(platforms: unknown): string | undefined {
  if (!Array.isArray(platforms) || platforms.length === 0) return `platforms must be a non-empty list of ${SCRIPT_PLATFORMS.join(', ')}`;
  const unknown = platforms.filter((p) => !SCRIPT_PLATFORMS.includes(p as ScriptPlatform));
  if (unknown.length > 0)
    return `unknown platform ${unknown.map((p) => JSON.stringify(p)).join(', ')} (known: ${SCRIPT_PLATFORMS.join(', ')})`;
  if (new Set(platforms).size !== platforms.length) return 'platforms lists a platform twice';
  return undefined;
}

/** No two entries for one platform share a destination. */
export function duplicateProblems(entries: Array<{ destination: string; platforms: readonly string[] }>): string[] {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  entries.forEach((e, i) => {
    for (const platform of e.platforms) {
      const key = `${platform}\0${e.destination}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else problems.push(`entry ${i}: destination ${e.destination} for ${platform} is already entry ${first}'s`);
    }
  });
  return problems;
}

const ENTRY_KEYS = ['source', 'destination', 'mode', 'platforms', 'sha256', 'encoding', 'content', 'replaces'];
const PAYLOAD_KEYS = ['schemaVersion', 'label', 'entries', 'images', 'uncheckedPlatforms'];
const SHA256 = /^[0-9a-f]{64}$/;

/** Checks an embedded payload as the node reads it; every problem, each naming its entry. */
export function embeddedPayloadProblems(value: unknown, sha256: (data: Uint8Array) => string): string[] {
  const doc = value as Partial<ScriptPayload> | null;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return ['the payload is not a JSON object'];
  const extra = Object.keys(doc).filter((k) => !PAYLOAD_KEYS.includes(k));
  const problems: string[] = extra.map((k) => `unknown field ${JSON.stringify(k)}`);
  if (doc.schemaVersion !== 1) problems.push(`schemaVersion ${JSON.stringify(doc.schemaVersion)} is not 1`);
  if (typeof doc.label !== 'string' || doc.label === '') problems.push('label must be a non-empty string');
  if (doc.images !== undefined && (!Array.isArray(doc.images) || doc.images.some((i) => typeof i !== 'string')))
    problems.push('images must be a list of image names');
  if (doc.uncheckedPlatforms !== undefined && doc.uncheckedPlatforms.length > 0 && platformsProblem(doc.uncheckedPlatforms))
    problems.push(`uncheckedPlatforms: ${platformsProblem(doc.uncheckedPlatforms)}`);
  if (!Array.isArray(doc.entries) || doc.entries.length === 0) return [...problems, 'entries must be a non-empty list'];
  if (doc.entries.length > SCRIPT_CAPS.entries) return [...problems, ...capProblems(doc.entries.length, 0)];
  let total = 0;
  doc.entries.forEach((e, i) => {
    const at = (p: string) => problems.push(`entry ${i} (${String(e?.source)}): ${p}`);
    const unknown = Object.keys(e ?? {}).filter((k) => !ENTRY_KEYS.includes(k));
    if (unknown.length > 0) at(`unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
    if (typeof e.source !== 'string' || e.source === '') at('source must be a non-empty string');
    const dest = destinationProblem(e.destination);
    if (dest) at(dest);
    const mode = entryMode(e.mode);
    if (typeof mode === 'string') at(mode);
    const platforms = platformsProblem(e.platforms);
    if (platforms) at(platforms);
    if (e.encoding !== 'utf8' && e.encoding !== 'base64') at(`encoding ${JSON.stringify(e.encoding)} is not utf8 or base64`);
    else if (typeof e.content !== 'string') at('content must be a string');
    else {
      const bytes = entryBytes(e);
      total += bytes.length;
      if (bytes.length > SCRIPT_CAPS.entryBytes) at(`${bytes.length} bytes after decoding, over the ${SCRIPT_CAPS.entryBytes}-byte cap`);
      else if (sha256(bytes) !== e.sha256) at('content does not match its sha256');
    }
    if (e.replaces !== undefined && (!Array.isArray(e.replaces) || e.replaces.length === 0 || e.replaces.some((d) => !SHA256.test(d))))
      at('replaces must be a non-empty list of sha256 digests (64 lowercase hex)');
  });
  problems.push(...capProblems(doc.entries.length, total));
  if (problems.length === 0) problems.push(...duplicateProblems(doc.entries));
  if (problems.length === 0) {
    const size = worstRecordBytes(doc.entries.map((e) => e.destination));
    if (size > SCRIPT_CAPS.recordBytes)
      problems.push(`its record would be ${size} bytes, over the node's ${SCRIPT_CAPS.recordBytes}-byte cap`);
  }
  return problems;
}

/** Entry count and total decoded size against SCRIPT_CAPS (the build checks them while reading, too). */
export function capProblems(entries: number, totalBytes: number): string[] {
  const problems: string[] = [];
  if (entries > SCRIPT_CAPS.entries) problems.push(`${entries} entries, over the cap of ${SCRIPT_CAPS.entries}`);
  if (totalBytes > SCRIPT_CAPS.payloadBytes)
    problems.push(`${totalBytes} bytes after decoding, over the ${SCRIPT_CAPS.payloadBytes}-byte cap`);
  return problems;
}

/** The size of the record.json a node would write for these destinations, with the widest values. */
export function worstRecordBytes(destinations: string[]): number {
  const h = '0'.repeat(64);
  const entries = destinations.map((destination, i) => ({
    destination,
    backup: `${String(i).padStart(3, '0')}.orig`,
    oldSha256: h,
    newSha256: h,
    oldMode: '0777',
    newMode: '0777',
    uid: 4294967295,
    gid: 4294967295,
  }));
  const record = {
    schemaVersion: 1,
    label: 'x'.repeat(64),
    digest: h,
    platform: 'azlosguard',
    appliedBy: 'x'.repeat(64),
    state: 'applying',
    updatedAt: '2026-01-01T00:00:00.000Z',
    entries,
  };
  return Buffer.byteLength(`${JSON.stringify(record, null, 2)}\n`);
}

export function entryBytes(e: Pick<ScriptEntry, 'encoding' | 'content'>): Uint8Array {
  return e.encoding === 'base64' ? new Uint8Array(Buffer.from(e.content, 'base64')) : new Uint8Array(Buffer.from(e.content, 'utf8'));
}

/** The entries that apply to one platform, in payload order. */
export const entriesFor = (payload: ScriptPayload, platform: ScriptPlatform) =>
  payload.entries.filter((e) => e.platforms.includes(platform));

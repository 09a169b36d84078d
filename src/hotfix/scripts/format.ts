// The script payload (issue 21; docs/hotfix.md "script payload"): fixed provisioning scripts a hotfix
// build carries inside the executable. The build input is the reference generator's layout (manifest.json
// schema_version 1 + payloads/) or one rendered cloud-config per platform (scripts/script-payload-input.ts, build time only); both become
// one normalized form, embedded as a JSON string. Everything here is pure: the build and the node run the
// same checks, so a payload the node would refuse never gets built.
import { posix } from 'node:path';
import { IMAGE_PLATFORMS, type ImagePlatform } from '../../image/platform.ts';
import { NODE_PATHS } from '../../platform/paths.ts';

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

/** Names in that directory a payload never replaces: the agent's own and the boot's inputs and outputs. */
const RESERVED_NAMES = new Set(
  [
    NODE_PATHS.provisionComplete,
    NODE_PATHS.enabledFeatures,
    NODE_PATHS.nodeCustomData,
    NODE_PATHS.nodeConfig,
    NODE_PATHS.nbcCmd,
    NODE_PATHS.launcher,
  ].map((p) => posix.basename(p)),
);
/** Every binary, pointer, state, status and marker file of the agent starts with this. */
const AGENT_PREFIX = posix.basename(NODE_PATHS.bakedBinary);

/** Why a destination is refused, or undefined when it is allowed. */
export function destinationProblem(destination: string): string | undefined {
  if (typeof destination !== 'string' || destination === '') return 'destination must be a non-empty string';
  if (!destination.startsWith('/')) return `destination ${JSON.stringify(destination)} is not an absolute path`;
  if (destination.includes('\\') || destination.includes('\0')) return `destination ${JSON.stringify(destination)} has a backslash or NUL`;
  if (posix.normalize(destination) !== destination || destination.endsWith('/')) {
    return `destination ${JSON.stringify(destination)} is not a clean path (no ., .., // or trailing /)`;
  }
  if (!destination.startsWith(DESTINATION_DIR) || destination.length === DESTINATION_DIR.length) {
    return `destination ${destination} is outside ${DESTINATION_DIR} (a script payload replaces provisioning scripts only)`;
  }
  const parts = destination.slice(DESTINATION_DIR.length).split('/');
  if (parts.some((p) => p.startsWith(AGENT_PREFIX))) {
    return `destination ${destination} is one of the agent's own files (binaries, pointer, state, status: ${AGENT_PREFIX}*)`;
  }
  if (parts.length === 1 && RESERVED_NAMES.has(parts[0]!)) {
    return `destination ${destination} is a boot input or status file, never a script (${[...RESERVED_NAMES].join(', ')})`;
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

/** The mode as a number, or a problem: an octal string 1-0777. */
export function parseMode(mode: unknown): number | string {
  if (typeof mode !== 'string' || !/^[0-7]{1,4}$/.test(mode)) return `mode ${JSON.stringify(mode)} is not an octal string such as "0755"`;
  const value = Number.parseInt(mode, 8);
  if (value < 1 || value > 0o777) return `mode ${mode} is outside 1-0777`;
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
  doc.entries.forEach((e, i) => {
    const at = (p: string) => problems.push(`entry ${i} (${String(e?.source)}): ${p}`);
    const unknown = Object.keys(e ?? {}).filter((k) => !ENTRY_KEYS.includes(k));
    if (unknown.length > 0) at(`unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
    if (typeof e.source !== 'string' || e.source === '') at('source must be a non-empty string');
    const dest = destinationProblem(e.destination);
    if (dest) at(dest);
    const mode = parseMode(e.mode);
    if (typeof mode === 'string') at(mode);
    const platforms = platformsProblem(e.platforms);
    if (platforms) at(platforms);
    if (e.encoding !== 'utf8' && e.encoding !== 'base64') at(`encoding ${JSON.stringify(e.encoding)} is not utf8 or base64`);
    else if (typeof e.content !== 'string') at('content must be a string');
    else if (sha256(entryBytes(e)) !== e.sha256) at('content does not match its sha256');
    if (e.replaces !== undefined && (!Array.isArray(e.replaces) || e.replaces.length === 0 || e.replaces.some((d) => !SHA256.test(d))))
      at('replaces must be a non-empty list of sha256 digests (64 lowercase hex)');
  });
  if (problems.length === 0) problems.push(...duplicateProblems(doc.entries));
  return problems;
}

export function entryBytes(e: Pick<ScriptEntry, 'encoding' | 'content'>): Uint8Array {
  return e.encoding === 'base64' ? new Uint8Array(Buffer.from(e.content, 'base64')) : new Uint8Array(Buffer.from(e.content, 'utf8'));
}

/** The entries that apply to one platform, in payload order. */
export const entriesFor = (payload: ScriptPayload, platform: ScriptPlatform) =>
  payload.entries.filter((e) => e.platforms.includes(platform));

// Build-time only (build.mjs --scripts DIR, bundled on the fly; never part of the agent): reads a script
// payload in any of three layouts and returns the one normalized form to embed.
//   DIR/active + DIR/rendered_nodecustomdata_<platform>.yml
//                                               the reference generator's current (merged, PR #9382) form:
//                                               nothing is built unless `active` reads `true`; each file a
//                                               rendered cloud-config, `permissions` required, empty content refused
//   DIR/manifest.json + DIR/payloads/...        {"schema_version": 1, "entries": [{source, payload,
//                                               destination, mode, platforms}]} (the closed PR #9101 form)
//   DIR/cloud-config/<platform>.yaml            one rendered #cloud-config write_files document per platform
// Every problem is reported at once, each naming its entry, with the same rules the node applies.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError, errorMessage } from '../src/platform/errors.ts';
import { parseWriteFiles } from '../src/customdata/cloud-config.ts';
import { toWriteFile } from '../src/customdata/node-custom-data.ts';
import { yamlDocumentText } from '../src/customdata/yaml-input.ts';
import {
  capProblems,
  destinationProblem,
  entryMode,
  duplicateProblems,
  embeddedPayloadProblems,
  formatMode,
  payloadPathProblem,
  SCRIPT_CAPS,
  platformsProblem,
  SCRIPT_PLATFORMS,
  type ScriptEntry,
  type ScriptPayload,
  type ScriptPlatform,
} from '../src/hotfix/scripts/format.ts';
import { type GivenImage, imageSummary, pinPayload } from '../src/image/pins.ts';
import { parseManifest } from '../src/image/manifest.ts';

export interface BuiltPayload {
  payload: ScriptPayload;
  /** The exact JSON text embedded in the executable; its sha256 is the payload digest. */
  text: string;
  digest: string;
  form: 'manifest' | 'cloud-config' | 'rendered';
  /** With image manifests: one line per image, what the payload does there. */
  images?: string[];
}

/** The images a payload is checked against (build.mjs --image-manifest, --unchecked-platform). */
export interface ImageCheck {
  manifests: string[];
  unchecked: string[];
}

export class PayloadError extends Error {
  constructor(readonly problems: string[]) {
    super(`script payload refused:\n  ${problems.join('\n  ')}`);
  }
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const MANIFEST_KEYS = ['schema_version', 'entries'];
const ENTRY_KEYS = ['source', 'payload', 'destination', 'mode', 'platforms'];
/** A payload file, and a cloud-config document, as read: the node's cap on one entry. */
const MAX_FILE = SCRIPT_CAPS.entryBytes;

function toEntry(source: string, destination: string, mode: number, platforms: ScriptPlatform[], data: Uint8Array): ScriptEntry {
  const text = Buffer.from(data).toString('utf8');
  const utf8 = Buffer.from(text, 'utf8').equals(Buffer.from(data));
  const content = utf8 ? text : Buffer.from(data).toString('base64');
  return { source, destination, mode: formatMode(mode), platforms, sha256: sha256(data), encoding: utf8 ? 'utf8' : 'base64', content };
}

/** A regular file inside DIR (never through a symlink), capped. */
function readInside(dir: string, rel: string): Uint8Array {
  const path = join(dir, rel);
  let at = dir;
  for (const part of rel.split('/')) {
    at = join(at, part);
    const s = lstatSync(at, { throwIfNoEntry: false });
    if (!s) throw new AgentError('ANC_SCRIPT_HOTFIX', `${rel} does not exist in ${dir}`);
    if (s.isSymbolicLink())
      throw new AgentError('ANC_SCRIPT_HOTFIX', `${rel}: ${at} is a symlink (payload files must be regular files inside DIR)`);
  }
  const s = lstatSync(path);
  if (!s.isFile()) throw new AgentError('ANC_SCRIPT_HOTFIX', `${rel} is not a regular file`);
  if (s.size > MAX_FILE) throw new AgentError('ANC_SCRIPT_HOTFIX', `${rel} is ${s.size} bytes, over the ${MAX_FILE}-byte limit`);
  return new Uint8Array(readFileSync(path));
}

function fromManifest(dir: string, problems: string[]): ScriptEntry[] {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch (error) {
    problems.push(`manifest.json: ${errorMessage(error)}`);
    return [];
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    problems.push('manifest.json is not a JSON object');
    return [];
  }
  for (const k of Object.keys(doc).filter((k) => !MANIFEST_KEYS.includes(k)))
    problems.push(`manifest.json: unknown field ${JSON.stringify(k)}`);
  if (doc.schema_version !== 1) problems.push(`manifest.json: schema_version ${JSON.stringify(doc.schema_version)} is not 1`);
  if (!Array.isArray(doc.entries) || doc.entries.length === 0) {
    problems.push('manifest.json: entries must be a non-empty list');
    return [];
  }
  if (doc.entries.length > SCRIPT_CAPS.entries) {
    problems.push(`manifest.json: ${capProblems(doc.entries.length, 0).join('; ')}`);
    return [];
  }
  const entries: ScriptEntry[] = [];
  let total = 0;
  doc.entries.forEach((raw: Record<string, unknown>, i: number) => {
    if (total > SCRIPT_CAPS.payloadBytes) return;
    const name = typeof raw?.source === 'string' ? raw.source : '?';
    const at = (p: string) => problems.push(`entry ${i} (${name}): ${p}`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return at('not a JSON object');
    for (const k of Object.keys(raw).filter((k) => !ENTRY_KEYS.includes(k))) at(`unknown field ${JSON.stringify(k)}`);
    if (typeof raw.source !== 'string' || raw.source === '') at('source must be a non-empty string');
    const checks = [payloadPathProblem(raw.payload), destinationProblem(raw.destination as string), platformsProblem(raw.platforms)];
    for (const c of checks) if (c) at(c);
    const mode = entryMode(raw.mode);
    if (typeof mode === 'string') at(mode);
    let data: Uint8Array | undefined;
    if (!checks[0]) {
      try {
        data = readInside(dir, raw.payload as string);
        total += data.length;
        if (total > SCRIPT_CAPS.payloadBytes) problems.push(`manifest.json: ${capProblems(0, total).join('; ')}`);
      } catch (error) {
        at(errorMessage(error));
      }
    }
    if (checks.every((c) => !c) && typeof mode === 'number' && data && typeof raw.source === 'string') {
      entries.push(toEntry(raw.source, raw.destination as string, mode, raw.platforms as ScriptPlatform[], data));
    }
  });
  return entries;
}

interface RenderedRules {
  /** The merged form: `permissions` must be given, content must not be empty, no `#cloud-config` line needed. */
  strict: boolean;
}

/** One rendered write_files document per platform: [path inside DIR, platform]. */
function fromRenderedDocuments(
  dir: string,
  documents: Array<[string, ScriptPlatform]>,
  rules: RenderedRules,
  problems: string[],
): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  let total = 0;
  for (const [file, platform] of documents) {
    try {
      const bytes = readInside(dir, file);
      // The node custom data reader's byte rules (N16): encoding by BOM, no invalid UTF-8, no control characters.
      const text = yamlDocumentText(bytes);
      if (!rules.strict && !/^#cloud-config\s*\n/.test(text))
        throw new AgentError('ANC_SCRIPT_HOTFIX', 'does not start with #cloud-config');
      const writeFiles = parseWriteFiles(text);
      for (const [i, raw] of writeFiles.entries()) {
        const at = (p: string) => problems.push(`${file} write_files[${i}]: ${p}`);
        // The shared caps while reading: the entry count, then each entry's decoded size (gzip inflates
        // only up to the cap), then the total.
        if (writeFiles.length > SCRIPT_CAPS.entries) {
          problems.push(`${file}: ${capProblems(writeFiles.length, 0).join('; ')}`);
          break;
        }
        try {
          // The manifest form's mode rule, on the text as written: 0 and 04755 are refused, never changed.
          const permissions = typeof raw.permissions === 'string' ? raw.permissions : '';
          if (rules.strict && permissions === '') at('permissions is required');
          const mode = entryMode(permissions === '' ? '0644' : permissions);
          const wf = toWriteFile(raw, SCRIPT_CAPS.entryBytes);
          total += wf.data.length;
          const dest = destinationProblem(wf.path);
          if (dest) at(dest);
          if (typeof mode === 'string') at(mode);
          const empty = rules.strict && wf.data.length === 0;
          if (empty) at('content is empty (an empty script is refused)');
          if (dest || typeof mode === 'string' || empty || (rules.strict && permissions === '')) continue;
          const same = entries.find((e) => e.destination === wf.path && e.sha256 === sha256(wf.data) && e.mode === formatMode(mode));
          if (same) same.platforms.push(platform);
          else entries.push(toEntry(wf.path.split('/').pop()!, wf.path, mode, [platform], wf.data));
        } catch (error) {
          at(errorMessage(error));
        }
        if (total > SCRIPT_CAPS.payloadBytes) {
          problems.push(`${file}: ${capProblems(0, total).join('; ')}`);
          break;
        }
      }
    } catch (error) {
      problems.push(`${file}: ${errorMessage(error)}`);
    }
  }
  return entries;
}

function fromCloudConfig(dir: string, problems: string[]): ScriptEntry[] {
  const documents: Array<[string, ScriptPlatform]> = [];
  const files = readdirSync(join(dir, 'cloud-config')).sort();
  for (const file of files) {
    const platform = file.replace(/\.ya?ml$/, '') as ScriptPlatform;
    if (file === platform || !SCRIPT_PLATFORMS.includes(platform)) {
      problems.push(`cloud-config/${file}: expected <platform>.yaml with a platform of ${SCRIPT_PLATFORMS.join(', ')}`);
      continue;
    }
    documents.push([`cloud-config/${file}`, platform]);
  }
  if (files.length === 0) problems.push('cloud-config/ holds no <platform>.yaml document');
  return fromRenderedDocuments(dir, documents, { strict: false }, problems);
}

const RENDERED = /^rendered_nodecustomdata_(.*)\.yml$/;

/** The merged form's switch: anything but `true` (trimmed) builds no payload; the reason says why. */
function inactiveReason(dir: string): string | undefined {
  const file = join(dir, 'active');
  if (!existsSync(file)) return `${file} does not exist`;
  const value = readFileSync(file, 'utf8').trim();
  return value === 'true' ? undefined : `${file} reads ${JSON.stringify(value.slice(0, 40))}, not "true"`;
}

function fromRendered(dir: string, problems: string[]): ScriptEntry[] {
  const documents: Array<[string, ScriptPlatform]> = [];
  for (const file of readdirSync(dir).sort()) {
    const platform = RENDERED.exec(file)?.[1] as ScriptPlatform | undefined;
    if (platform === undefined) {
      if (file !== 'active') problems.push(`${file}: expected active or rendered_nodecustomdata_<platform>.yml`);
      continue;
    }
    if (!SCRIPT_PLATFORMS.includes(platform)) {
      problems.push(`${file}: ${JSON.stringify(platform)} is not one of ${SCRIPT_PLATFORMS.join(', ')}`);
      continue;
    }
    documents.push([file, platform]);
  }
  if (documents.length === 0 && problems.length === 0) problems.push('no rendered_nodecustomdata_<platform>.yml document');
  return fromRenderedDocuments(dir, documents, { strict: true }, problems);
}

function readImages(check: ImageCheck, problems: string[]): GivenImage[] {
  const images: GivenImage[] = [];
  for (const file of check.manifests) {
    try {
      images.push({ source: file, manifest: parseManifest(readFileSync(file, 'utf8'), file) });
    } catch (error) {
      problems.push(`--image-manifest ${file}: ${errorMessage(error)}`);
    }
  }
  for (const p of check.unchecked)
    if (!SCRIPT_PLATFORMS.includes(p as ScriptPlatform))
      problems.push(`--unchecked-platform ${JSON.stringify(p)} is not one of ${SCRIPT_PLATFORMS.join(', ')}`);
  return images;
}

/** A merged-form directory whose `active` is not `true`: nothing to embed, and why. */
export interface InactivePayload {
  inactive: string;
}

export function loadScriptPayload(dir: string, label: string, check?: ImageCheck): BuiltPayload | InactivePayload {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(label))
    problems.push(`label ${JSON.stringify(label)} must be 1-64 of A-Z a-z 0-9 . _ + -`);
  const hasManifest = existsSync(join(dir, 'manifest.json'));
  const hasCloudConfig = existsSync(join(dir, 'cloud-config'));
  const hasRendered = existsSync(join(dir, 'active')) || (existsSync(dir) && readdirSync(dir).some((f) => RENDERED.test(f)));
  const found = [hasManifest, hasCloudConfig, hasRendered].filter(Boolean).length;
  if (found !== 1) {
    throw new PayloadError([
      `${dir} must hold one of: active + rendered_nodecustomdata_<platform>.yml, manifest.json + payloads/, or cloud-config/<platform>.yaml (found ${found === 0 ? 'none' : 'more than one'})`,
    ]);
  }
  if (hasRendered) {
    const inactive = inactiveReason(dir);
    if (inactive !== undefined) return { inactive };
  }
  const entries = hasManifest ? fromManifest(dir, problems) : hasRendered ? fromRendered(dir, problems) : fromCloudConfig(dir, problems);
  if (problems.length === 0) problems.push(...duplicateProblems(entries));
  let payload: ScriptPayload = { schemaVersion: 1, label, entries };
  let images: string[] | undefined;
  if (check && problems.length === 0) {
    const given = readImages(check, problems);
    if (problems.length === 0) {
      const pinned = pinPayload(payload, given, check.unchecked as ScriptPlatform[]);
      problems.push(...pinned.problems);
      payload = pinned.payload;
      images = imageSummary(payload, given);
    }
  }
  // The node's own check of the embedded form, so build and node can never disagree.
  if (problems.length === 0) problems.push(...embeddedPayloadProblems(payload, sha256));
  if (problems.length > 0) throw new PayloadError(problems);
  const text = JSON.stringify(payload);
  const form = hasManifest ? 'manifest' : hasRendered ? 'rendered' : 'cloud-config';
  return { payload, text, digest: sha256(text), form, ...(images ? { images } : {}) };
}

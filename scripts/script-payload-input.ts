// Build-time only (build.mjs --scripts DIR, bundled on the fly; never part of the agent): reads a script
// payload in either of the reference generator's layouts and returns the one normalized form to embed.
//   DIR/manifest.json + DIR/payloads/...        {"schema_version": 1, "entries": [{source, payload,
//                                               destination, mode, platforms}]}
//   DIR/cloud-config/<platform>.yaml            one rendered #cloud-config write_files document per platform
// Every problem is reported at once, each naming its entry, with the same rules the node applies.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError, errorMessage } from '../src/platform/errors.ts';
import { parseWriteFiles } from '../src/customdata/cloud-config.ts';
import { toWriteFile } from '../src/customdata/node-custom-data.ts';
import {
  destinationProblem,
  duplicateProblems,
  embeddedPayloadProblems,
  formatMode,
  parseMode,
  payloadPathProblem,
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
  form: 'manifest' | 'cloud-config';
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
const MAX_FILE = 16 * 1024 * 1024;

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
  const entries: ScriptEntry[] = [];
  doc.entries.forEach((raw: Record<string, unknown>, i: number) => {
    const name = typeof raw?.source === 'string' ? raw.source : '?';
    const at = (p: string) => problems.push(`entry ${i} (${name}): ${p}`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return at('not a JSON object');
    for (const k of Object.keys(raw).filter((k) => !ENTRY_KEYS.includes(k))) at(`unknown field ${JSON.stringify(k)}`);
    if (typeof raw.source !== 'string' || raw.source === '') at('source must be a non-empty string');
    const checks = [payloadPathProblem(raw.payload), destinationProblem(raw.destination as string), platformsProblem(raw.platforms)];
    for (const c of checks) if (c) at(c);
    const mode = parseMode(raw.mode);
    if (typeof mode === 'string') at(mode);
    let data: Uint8Array | undefined;
    if (!checks[0]) {
      try {
        data = readInside(dir, raw.payload as string);
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

function fromCloudConfig(dir: string, problems: string[]): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  const files = readdirSync(join(dir, 'cloud-config')).sort();
  for (const file of files) {
    const platform = file.replace(/\.ya?ml$/, '') as ScriptPlatform;
    if (file === platform || !SCRIPT_PLATFORMS.includes(platform)) {
      problems.push(`cloud-config/${file}: expected <platform>.yaml with a platform of ${SCRIPT_PLATFORMS.join(', ')}`);
      continue;
    }
    try {
      const text = Buffer.from(readInside(dir, `cloud-config/${file}`)).toString('utf8');
      if (!/^#cloud-config\s*\n/.test(text)) throw new AgentError('ANC_SCRIPT_HOTFIX', 'does not start with #cloud-config');
      parseWriteFiles(text).forEach((raw, i) => {
        const at = (p: string) => problems.push(`cloud-config/${file} write_files[${i}]: ${p}`);
        try {
          const wf = toWriteFile(raw);
          const dest = destinationProblem(wf.path);
          if (dest) return at(dest);
          const same = entries.find((e) => e.destination === wf.path && e.sha256 === sha256(wf.data) && e.mode === formatMode(wf.mode));
          if (same) same.platforms.push(platform);
          else entries.push(toEntry(wf.path.split('/').pop()!, wf.path, wf.mode || 0o644, [platform], wf.data));
        } catch (error) {
          at(errorMessage(error));
        }
      });
    } catch (error) {
      problems.push(`cloud-config/${file}: ${errorMessage(error)}`);
    }
  }
  if (files.length === 0) problems.push('cloud-config/ holds no <platform>.yaml document');
  return entries;
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

export function loadScriptPayload(dir: string, label: string, check?: ImageCheck): BuiltPayload {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(label))
    problems.push(`label ${JSON.stringify(label)} must be 1-64 of A-Z a-z 0-9 . _ + -`);
  const hasManifest = existsSync(join(dir, 'manifest.json'));
  const hasCloudConfig = existsSync(join(dir, 'cloud-config'));
  if (hasManifest === hasCloudConfig) {
    throw new PayloadError([
      `${dir} must hold either manifest.json + payloads/ or cloud-config/<platform>.yaml (found ${hasManifest ? 'both' : 'neither'})`,
    ]);
  }
  const entries = hasManifest ? fromManifest(dir, problems) : fromCloudConfig(dir, problems);
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
  return { payload, text, digest: sha256(text), form: hasManifest ? 'manifest' : 'cloud-config', ...(images ? { images } : {}) };
}

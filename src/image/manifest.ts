// The image manifest (docs/node.md "image manifest"): what an image holds, recorded by the image build's
// last step and published beside the image. One JSON document: schemaVersion, the baked agent's version,
// the platform (the node's own classification plus ID, VERSION_ID, VARIANT_ID) and every regular file
// under /opt/azure/containers/ except the agent's own files and the boot's inputs and outputs, each with
// path, sha256, mode and size. Pure: the same tree gives the same bytes (sorted, fixed key order).
import { posix } from 'node:path';
import { AgentError } from '../platform/errors.ts';
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { NODE_PATHS } from '../platform/paths.ts';
import { IMAGE_PLATFORMS, type ImagePlatform } from './platform.ts';

export const IMAGE_MANIFEST_SCHEMA = 1;

export interface ManifestFile {
  /** The on-node path, `/opt/azure/containers/provision_start.sh`. */
  path: string;
  sha256: string;
  /** Permission bits as octal text, `0755`. */
  mode: string;
  size: number;
}

export interface ImageManifest {
  schemaVersion: 1;
  /** The baked agent's version, or null when it could not say (an image for another architecture). */
  agentVersion: string | null;
  platform: { name: ImagePlatform | null; id: string; versionId: string; variantId: string };
  files: ManifestFile[];
}

/** Names in the scripts directory that are the agent's or the boot's, not the image's scripts. */
const BOOT_FILES = new Set(
  [NODE_PATHS.provisionComplete, NODE_PATHS.enabledFeatures, NODE_PATHS.nodeCustomData, NODE_PATHS.nodeConfig, NODE_PATHS.nbcCmd].map((p) =>
    posix.basename(p),
  ),
);
const AGENT_PREFIX = posix.basename(NODE_PATHS.bakedBinary);
/** Files a script hotfix stages beside a destination while it applies (hotfix/scripts/destination.ts). */
const STAGED_PREFIX = '.anc-script-hotfix-';

/** Whether an entry (path relative to the scripts directory) is left out of the manifest: the agent's own. */
export function isAgentOwned(relative: string): boolean {
  const parts = relative.split('/');
  if (parts.some((p) => p.startsWith(AGENT_PREFIX) || p.startsWith(`.${AGENT_PREFIX}`) || p.startsWith(STAGED_PREFIX))) return true;
  return parts.length === 1 && BOOT_FILES.has(parts[0]!);
}

export const formatFileMode = (mode: number) => `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;

/** The manifest's canonical bytes: files sorted by path, keys in one order, two-space JSON, one newline. */
export function renderManifest(m: ImageManifest): string {
  const files = [...m.files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode, size: f.size }));
  const { name, id, versionId, variantId } = m.platform;
  const doc = { schemaVersion: m.schemaVersion, agentVersion: m.agentVersion, platform: { name, id, versionId, variantId }, files };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const invalid = (source: string, what: string) =>
  new AgentError('ANC_USAGE', `image manifest ${source}: ${what}`, {
    hint: 'An image manifest is what `aks-node-controller image manifest -o json` prints on the image (docs/node.md).',
  });

/** Parses and checks a manifest document; every problem names the field. */
export function parseManifest(text: string, source: string): ImageManifest {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch {
    // Where, never what (R4-19): JSON.parse's message quotes the text, and the file may be a symlink to a secret.
    throw invalid(source, jsonSyntaxProblem(text) ?? 'not valid JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid(source, 'not a JSON object');
  const problems: string[] = [];
  if (doc.schemaVersion !== IMAGE_MANIFEST_SCHEMA) problems.push(`schemaVersion ${JSON.stringify(doc.schemaVersion)} is not 1`);
  if (doc.agentVersion !== null && typeof doc.agentVersion !== 'string') problems.push('agentVersion must be a string or null');
  const p = doc.platform as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null) problems.push('platform must be an object');
  else {
    if (p.name !== null && !(IMAGE_PLATFORMS as readonly unknown[]).includes(p.name))
      problems.push(`platform.name ${JSON.stringify(p.name)} is not one of ${IMAGE_PLATFORMS.join(', ')} (or null)`);
    for (const k of ['id', 'versionId', 'variantId']) if (typeof p[k] !== 'string') problems.push(`platform.${k} must be a string`);
  }
  if (!Array.isArray(doc.files)) problems.push('files must be a list');
  else
    (doc.files as Array<Record<string, unknown>>).forEach((f, i) => {
      const at = (what: string) => problems.push(`files[${i}]${typeof f?.path === 'string' ? ` (${f.path})` : ''}: ${what}`);
      if (typeof f !== 'object' || f === null) return at('not an object');
      if (typeof f.path !== 'string' || !f.path.startsWith(`${NODE_PATHS.containersDir}/`))
        at(`path must be under ${NODE_PATHS.containersDir}/`);
      if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) at('sha256 must be 64 lowercase hex digits');
      if (typeof f.mode !== 'string' || !/^0[0-7]{3,4}$/.test(f.mode)) at('mode must be octal text such as "0755"');
      if (!Number.isSafeInteger(f.size) || (f.size as number) < 0) at('size must be a whole number of bytes');
    });
  if (problems.length > 0) throw invalid(source, problems.join('; '));
  return doc as unknown as ImageManifest;
}

/** How a manifest is named in messages: `FILE (ubuntu 22.04, agent 202604.01.0)`. */
export function imageName(m: ImageManifest, source: string): string {
  const os = [m.platform.name ?? `unclassified ${m.platform.id || 'OS'}`, m.platform.versionId, m.platform.variantId]
    .filter(Boolean)
    .join(' ');
  return `${source} (${os}, agent ${m.agentVersion ?? 'unknown'})`;
}

/** The path in `names` closest to `wanted` (edit distance on the file name), for "did you mean". */
export function closestPath(wanted: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(wanted, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(3, Math.floor(posix.basename(wanted).length / 2)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

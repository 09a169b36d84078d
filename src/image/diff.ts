// What changed on a node since its image was built: the image's manifest against the node's own now.
// Each changed file is explained by the caller (a script hotfix's record names the bytes it wrote);
// whatever no one explains was edited by hand. Pure.
import type { ImageManifest, ManifestFile } from './manifest.ts';

export interface ChangedFile {
  path: string;
  image: { sha256: string; mode: string };
  now: { sha256: string; mode: string };
  /** `hotfix <label>` when a script hotfix wrote these bytes, else `edited` (by hand, or by anything else). */
  by: string;
}

export interface ManifestDiff {
  image: { agentVersion: string | null; platform: ImageManifest['platform'] };
  changed: ChangedFile[];
  /** On the image, gone from the node. */
  removed: string[];
  /** On the node, not on the image (the boot and the scripts write files here too). */
  added: string[];
  unchanged: number;
}

export function diffManifests(
  image: ImageManifest,
  now: ImageManifest,
  explain: (path: string, sha256: string) => string | undefined = () => undefined,
): ManifestDiff {
  const current = new Map<string, ManifestFile>(now.files.map((f) => [f.path, f]));
  const diff: ManifestDiff = {
    image: { agentVersion: image.agentVersion, platform: image.platform },
    changed: [],
    removed: [],
    added: [],
    unchanged: 0,
  };
  const seen = new Set<string>();
  for (const was of [...image.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    seen.add(was.path);
    const is = current.get(was.path);
    if (!is) diff.removed.push(was.path);
    else if (is.sha256 === was.sha256 && is.mode === was.mode) diff.unchanged++;
    else
      diff.changed.push({
        path: was.path,
        image: { sha256: was.sha256, mode: was.mode },
        now: { sha256: is.sha256, mode: is.mode },
        by: explain(was.path, is.sha256) ?? 'edited',
      });
  }
  diff.added = now.files
    .map((f) => f.path)
    .filter((p) => !seen.has(p))
    .sort();
  return diff;
}

/** The text for people: one line per change, with who made it. */
export function renderDiff(d: ManifestDiff, source: string): string {
  const os = [d.image.platform.name ?? d.image.platform.id, d.image.platform.versionId].filter(Boolean).join(' ');
  const total = d.changed.length + d.removed.length + d.added.length;
  const out = [
    `since the image was built (${source}: ${os}, agent ${d.image.agentVersion ?? 'unknown'}): ${total === 0 ? 'nothing changed' : `${d.changed.length} changed, ${d.removed.length} removed, ${d.added.length} added`}; ${d.unchanged} unchanged`,
  ];
  for (const c of d.changed) {
    const who = c.by === 'edited' ? 'edited by hand (no script hotfix wrote these bytes)' : `replaced by ${c.by}`;
    out.push(`  changed  ${c.path}: ${who}; sha256 ${c.image.sha256.slice(0, 12)} -> ${c.now.sha256.slice(0, 12)}`);
  }
  for (const r of d.removed) out.push(`  removed  ${r}`);
  for (const a of d.added) out.push(`  added    ${a}`);
  return `${out.join('\n')}\n`;
}

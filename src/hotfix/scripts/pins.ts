// A script payload checked against the images it targets (build.mjs --scripts DIR --image-manifest FILE,
// docs/hotfix.md "pinned payloads"): every entry's destination must exist on every given image of each
// platform it lists, every listed platform needs an image (or an explicit --unchecked-platform), and an
// entry must change something on some image. The result pins each checked entry to the bytes it replaces
// (`replaces`), so a node whose file differs refuses the payload instead of guessing. Pure.
import { closestPath, type ImageManifest, imageName } from '../../image/manifest.ts';
import type { ScriptEntry, ScriptPayload, ScriptPlatform } from './format.ts';
import { parseMode } from './format.ts';

export interface GivenImage {
  /** The manifest file as given (messages name it). */
  source: string;
  manifest: ImageManifest;
}

export interface PinResult {
  problems: string[];
  /** The payload with `replaces` on every checked entry, `images` and `uncheckedPlatforms` set. */
  payload: ScriptPayload;
}

const modeBits = (mode: string) => {
  const n = Number.parseInt(mode, 8);
  return Number.isNaN(n) ? -1 : n & 0o777;
};

export function pinPayload(payload: ScriptPayload, images: GivenImage[], unchecked: readonly ScriptPlatform[]): PinResult {
  const problems: string[] = [];
  const name = (img: GivenImage) => imageName(img.manifest, img.source);
  const listed = [...new Set(payload.entries.flatMap((e) => e.platforms))];
  for (const platform of listed) {
    if (unchecked.includes(platform) || images.some((img) => img.manifest.platform.name === platform)) continue;
    const entries = payload.entries.flatMap((e, i) => (e.platforms.includes(platform) ? [`entry ${i} (${e.source})`] : []));
    problems.push(
      `platform ${platform}: ${entries.join(', ')} ${entries.length === 1 ? 'lists' : 'list'} it, but no --image-manifest of a ${platform} image was given (give one, or --unchecked-platform ${platform} to leave it unchecked on purpose)`,
    );
  }
  for (const p of unchecked)
    if (images.some((img) => img.manifest.platform.name === p))
      problems.push(`--unchecked-platform ${p}: an image manifest of a ${p} image was given too; check it or leave it out, not both`);
  const entries = payload.entries.map((entry, i): ScriptEntry => {
    const at = `entry ${i} (${entry.source})`;
    const targets = images.filter((img) => img.manifest.platform.name && entry.platforms.includes(img.manifest.platform.name));
    if (targets.length === 0) return entry;
    const digests = new Set<string>();
    const unchanged: string[] = [];
    for (const img of targets) {
      const file = img.manifest.files.find((f) => f.path === entry.destination);
      if (!file) {
        const near = closestPath(
          entry.destination,
          img.manifest.files.map((f) => f.path),
        );
        problems.push(
          `${at}: destination ${entry.destination} does not exist on image ${name(img)}${near ? `; did you mean ${near}?` : ' (no file of a similar name there)'}`,
        );
        continue;
      }
      digests.add(file.sha256);
      if (file.sha256 === entry.sha256 && modeBits(file.mode) === parseMode(entry.mode)) unchanged.push(name(img));
    }
    if (unchanged.length === targets.length)
      problems.push(
        `${at}: changes nothing on any image given: ${entry.destination} already holds these bytes (sha256:${entry.sha256}) and mode ${entry.mode} on ${unchanged.join(', ')}`,
      );
    return digests.size === 0 ? entry : { ...entry, replaces: [...digests].sort() };
  });
  const pinned: ScriptPayload = {
    ...payload,
    entries,
    images: images.map(name),
    uncheckedPlatforms: [...unchecked].sort() as ScriptPlatform[],
  };
  return { problems, payload: pinned };
}

/** What each image would get from a pinned payload, for the build's report: `NAME: 2 replace, 1 unchanged`. */
export function imageSummary(payload: ScriptPayload, images: GivenImage[]): string[] {
  return images.map((img) => {
    const p = img.manifest.platform.name;
    const mine = payload.entries.filter((e) => p && e.platforms.includes(p));
    if (mine.length === 0) return `${imageName(img.manifest, img.source)}: no entry for platform ${p ?? 'none'}`;
    const replace = mine.filter((e) => {
      const f = img.manifest.files.find((x) => x.path === e.destination);
      return f && !(f.sha256 === e.sha256 && modeBits(f.mode) === parseMode(e.mode));
    }).length;
    return `${imageName(img.manifest, img.source)}: ${replace} replace, ${mine.length - replace} unchanged`;
  });
}

// A script payload checked against the images it targets (build.mjs --scripts DIR --image-manifest FILE,
// docs/hotfix.md "pinned payloads"): every entry's destination must exist on every given image of each
// platform it lists, every listed platform needs an image (or an explicit --unchecked-platform), and an
// entry must change something on some image. The result pins each checked entry to the bytes it replaces
// (`replaces`), so a node whose file differs refuses the payload instead of guessing (pinProblem, the
// node's rule, lives here too so build, preview and node share it). Pure, over the payload's shape only.
import { closestPath, type ImageManifest, imageIdentity, imageName } from './manifest.ts';
import type { ImagePlatform } from './platform.ts';

export interface GivenImage {
  /** The manifest file as given (messages name it). */
  source: string;
  manifest: ImageManifest;
}

/** What pinning reads of a payload entry (hotfix/scripts/format.ts ScriptEntry has these fields). */
export interface PinnableEntry {
  source: string;
  destination: string;
  mode: string;
  platforms: readonly ImagePlatform[];
  sha256: string;
  replaces?: string[];
}

export interface PinnablePayload<E extends PinnableEntry> {
  entries: E[];
  images?: string[];
  uncheckedPlatforms?: ImagePlatform[];
}

export interface PinResult<P> {
  problems: string[];
  /** The payload with `replaces` on every checked entry, `images` and `uncheckedPlatforms` set. */
  payload: P;
}

/** Permission bits of an octal mode text ("0755"), -1 when it is not one. */
export const modeBits = (mode: string) => {
  const n = Number.parseInt(mode, 8);
  return Number.isNaN(n) ? -1 : n & 0o777;
};

const digests = (list: readonly string[]) => list.map((d) => `sha256:${d}`).join(' or ');

/**
 * Why a pinned entry (`replaces`) cannot apply over what the destination holds (`current`, undefined when
 * the file is missing), or undefined: it holds the image's bytes, the new bytes, or the entry is unpinned.
 */
export function pinProblem(entry: PinnableEntry, current: string | undefined): string | undefined {
  if (!entry.replaces) return undefined;
  const built = `the image's ${digests(entry.replaces)} (what the payload was built against)`;
  if (current === undefined) return `a hotfix for another image build: the file is missing here, not ${built}`;
  if (current === entry.sha256 || entry.replaces.includes(current)) return undefined;
  return `a hotfix for another image build: the file holds sha256:${current}, not ${built} nor the new sha256:${entry.sha256}`;
}

export function pinPayload<E extends PinnableEntry, P extends PinnablePayload<E>>(
  payload: P,
  images: GivenImage[],
  unchecked: readonly ImagePlatform[],
): PinResult<P> {
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
  const entries = payload.entries.map((entry, i): E => {
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
      if (file.sha256 === entry.sha256 && modeBits(file.mode) === modeBits(entry.mode)) unchanged.push(name(img));
    }
    if (unchanged.length === targets.length)
      problems.push(
        `${at}: changes nothing on any image given: ${entry.destination} already holds these bytes (sha256:${entry.sha256}) and mode ${entry.mode} on ${unchanged.join(', ')}`,
      );
    return digests.size === 0 ? entry : { ...entry, replaces: [...digests].sort() };
  });
  const pinned: P = {
    ...payload,
    entries,
    images: images.map((img) => imageIdentity(img.manifest)),
    uncheckedPlatforms: [...unchecked].sort(),
  };
  return { problems, payload: pinned };
}

/** What each image would get from a pinned payload, for the build's report: `NAME: 2 replace, 1 unchanged`. */
export function imageSummary(payload: PinnablePayload<PinnableEntry>, images: GivenImage[]): string[] {
  return images.map((img) => {
    const p = img.manifest.platform.name;
    const mine = payload.entries.filter((e) => p && e.platforms.includes(p));
    if (mine.length === 0) return `${imageName(img.manifest, img.source)}: no entry for platform ${p ?? 'none'}`;
    const replace = mine.filter((e) => {
      const f = img.manifest.files.find((x) => x.path === e.destination);
      return f && !(f.sha256 === e.sha256 && modeBits(f.mode) === modeBits(e.mode));
    }).length;
    return `${imageName(img.manifest, img.source)}: ${replace} replace, ${mine.length - replace} unchanged`;
  });
}

// What a script payload would do on an image, from that image's manifest instead of this machine's files
// (`hotfix scripts --image-manifest`, `hotfix explain --image-manifest`): the same actions, pins and no-op
// verdict the node's plan (hotfix/scripts/plan.ts) gives, per entry with the digests. Pure.
import { type ImageManifest, imageName } from './manifest.ts';
import { modeBits, type PinnableEntry, type PinnablePayload, pinProblem } from './pins.ts';

/** The node plan's actions (hotfix/scripts/plan.ts). */
export type PlanAction = 'replace' | 'unchanged' | 'missing' | 'refused';

export interface ImagePlanEntry {
  destination: string;
  action: PlanAction;
  mode: string;
  sha256: string;
  current?: string;
  replaces?: string[];
  reason?: string;
}

export interface ImagePlan {
  image: string;
  platform: string | null;
  /** The payload has nothing for this image's platform. */
  skipped?: string;
  /** It lists the platform but nothing would change: never a fix. */
  noop?: string;
  entries: ImagePlanEntry[];
  /** True when the image takes the payload: something is replaced and nothing is refused. */
  takes: boolean;
}

export function planOnImage(payload: PinnablePayload<PinnableEntry>, manifest: ImageManifest, source: string): ImagePlan {
  const image = imageName(manifest, source);
  const platform = manifest.platform.name;
  if (!platform) {
    const skipped = `no script hotfix on this image: os-release ID=${manifest.platform.id || '(none)'} matches no payload platform`;
    return { image, platform: null, skipped, entries: [], takes: false };
  }
  const mine = payload.entries.filter((e) => e.platforms.includes(platform));
  if (mine.length === 0)
    return {
      image,
      platform,
      skipped: `no script hotfix on this image: the payload has no entry for platform ${platform}`,
      entries: [],
      takes: false,
    };
  const pinned = !(payload.uncheckedPlatforms ?? []).includes(platform);
  const entries = mine.map((entry): ImagePlanEntry => {
    const file = manifest.files.find((f) => f.path === entry.destination);
    const base = {
      destination: entry.destination,
      mode: entry.mode,
      sha256: entry.sha256,
      ...(file ? { current: file.sha256 } : {}),
      ...(entry.replaces ? { replaces: entry.replaces } : {}),
    };
    const pin = pinned ? pinProblem(entry, file?.sha256) : undefined;
    if (pin) return { ...base, action: 'refused', reason: pin };
    if (!file) return { ...base, action: 'missing', reason: 'not on this image (replace-only: nothing is written)' };
    const same = file.sha256 === entry.sha256 && modeBits(file.mode) === modeBits(entry.mode);
    return same ? { ...base, action: 'unchanged', reason: 'the image already holds these bytes and mode' } : { ...base, action: 'replace' };
  });
  const refused = entries.some((e) => e.action === 'refused');
  const replaces = entries.some((e) => e.action === 'replace');
  const noop =
    !refused && !replaces ? `no entry applies on this image: ${entries.map((e) => `${e.destination} ${e.action}`).join(', ')}` : undefined;
  return { image, platform, ...(noop ? { noop } : {}), entries, takes: replaces && !refused };
}

/** Whether a preview over images should fail: an entry refused, or a no-op where the platform is listed, or nothing taken. */
export function imagePlansFail(plans: readonly ImagePlan[]): boolean {
  return plans.some((p) => p.noop || p.entries.some((e) => e.action === 'refused')) || !plans.some((p) => p.takes);
}

/** The text screen of one image's plan. */
export function renderImagePlan(p: ImagePlan): string[] {
  const verdict = p.skipped
    ? p.skipped
    : p.noop
      ? `NOTHING APPLIES: ${p.noop}`
      : p.takes
        ? 'takes the payload'
        : 'REFUSES the payload (the launcher would fall back to the baked agent; the health gate never promotes it)';
  const out = [`on image ${p.image}: ${verdict}`];
  for (const e of p.entries) {
    const digests = `${e.current ? `sha256:${e.current.slice(0, 12)}` : '(none)'} -> sha256:${e.sha256.slice(0, 12)}`;
    out.push(`  ${e.action.padEnd(9)} ${e.destination}  ${digests}${e.reason ? `  (${e.reason})` : ''}`);
  }
  return out;
}

// Which platform's entries of a script payload apply on this node: the image room's classification of
// /etc/os-release (image/platform.ts), so the image manifest and the node never disagree.
import { classifyOsRelease } from '../../image/platform.ts';
import type { ScriptPlatform } from './format.ts';

export interface NodePlatform {
  platform: ScriptPlatform | undefined;
  /** ID and VARIANT_ID as read (for the log and the dry-run plan). */
  id: string;
  variantId: string;
}

export function scriptPlatform(osRelease: string): NodePlatform {
  const { platform, id, variantId } = classifyOsRelease(osRelease);
  return { platform, id, variantId };
}

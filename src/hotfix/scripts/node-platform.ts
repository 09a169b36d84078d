// Which platform's entries of a script payload apply on this node, from /etc/os-release (issue 21):
// VARIANT_ID=osguard -> azlosguard; VARIANT_ID or ID azurecontainerlinux -> acl; ID ubuntu -> ubuntu;
// ID flatcar -> flatcar; ID mariner or azurelinux -> mariner; anything else: no script hotfix here.
import { parseOsReleaseField } from '../../platform/os-release.ts';
import type { ScriptPlatform } from './format.ts';

export interface NodePlatform {
  platform: ScriptPlatform | undefined;
  /** ID and VARIANT_ID as read (for the log and the dry-run plan). */
  id: string;
  variantId: string;
}

export function scriptPlatform(osRelease: string): NodePlatform {
  const field = (key: string) => (parseOsReleaseField(osRelease, key) ?? '').toLowerCase();
  const id = field('ID');
  const variantId = field('VARIANT_ID');
  const platform: ScriptPlatform | undefined =
    variantId === 'osguard'
      ? 'azlosguard'
      : variantId === 'azurecontainerlinux' || id === 'azurecontainerlinux'
        ? 'acl'
        : id === 'ubuntu'
          ? 'ubuntu'
          : id === 'flatcar'
            ? 'flatcar'
            : id === 'mariner' || id === 'azurelinux'
              ? 'mariner'
              : undefined;
  return { platform, id, variantId };
}

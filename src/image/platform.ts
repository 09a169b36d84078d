// The node's own classification of an image, from /etc/os-release (issue 21): VARIANT_ID=osguard ->
// azlosguard; VARIANT_ID or ID azurecontainerlinux -> acl; ID ubuntu -> ubuntu; ID flatcar -> flatcar;
// ID mariner or azurelinux -> mariner; anything else: none. The image manifest records it, and a script
// payload's `platforms` name these values, so the build and the node classify alike.
import { parseOsReleaseField } from '../platform/os-release.ts';

export const IMAGE_PLATFORMS = ['ubuntu', 'mariner', 'acl', 'azlosguard', 'flatcar'] as const;
export type ImagePlatform = (typeof IMAGE_PLATFORMS)[number];

export interface OsIdentity {
  platform: ImagePlatform | undefined;
  /** ID, VERSION_ID and VARIANT_ID as read (lowercased ID and VARIANT_ID; '' when absent). */
  id: string;
  versionId: string;
  variantId: string;
}

export function classifyOsRelease(osRelease: string): OsIdentity {
  const raw = (key: string) => parseOsReleaseField(osRelease, key) ?? '';
  const id = raw('ID').toLowerCase();
  const variantId = raw('VARIANT_ID').toLowerCase();
  const platform: ImagePlatform | undefined =
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
  return { platform, id, versionId: raw('VERSION_ID'), variantId };
}

// Image-based Azure Linux refuses self-update (spec 11.3, D20): on `ID=azurelinux` with `VARIANT_ID`
// `azurecontainerlinux` or `osguard` the image is immutable, so a package install cannot take. The
// reference's detectPackageManager says so in these words; here it is a node-local refusal of the one
// decision (eligibility.ts), so download-hotfix installs nothing by any path (repository fast path,
// delta, package manager) and `status` and `hotfix explain` say the same.
import type { FileSystem } from '../platform/fs.ts';
import { goToLower } from '../platform/go/strings.ts';
import { parseOsReleaseField, parseOsReleaseId } from '../platform/os-release.ts';

const IMAGE_BASED_VARIANTS = ['azurecontainerlinux', 'osguard'];

/** The reference's error text, or undefined when this OS may self-update (an unreadable file: the install step reports it). */
export function imageBasedRefusal(fs: Pick<FileSystem, 'exists' | 'readText'>, osReleasePath: string): string | undefined {
  let text: string;
  try {
    if (!fs.exists(osReleasePath)) return undefined;
    text = fs.readText(osReleasePath, 'osRelease');
  } catch {
    return undefined;
  }
  const id = parseOsReleaseId(text) ?? '';
  const variant = goToLower(parseOsReleaseField(text, 'VARIANT_ID') ?? '');
  if (id !== 'azurelinux' || !IMAGE_BASED_VARIANTS.includes(variant)) return undefined;
  return `PMC package-based ANC self-update is not supported on image-based OS ${JSON.stringify(id)} variant ${JSON.stringify(variant)}`;
}

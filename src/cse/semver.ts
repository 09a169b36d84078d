// Version comparisons used by the env builder (config-contract 3.3.7) on the shared Masterminds semver
// (platform/go/semver.ts), and the `containerd --version` extraction of 3.3.10. Pure.
import { isSemVerGe } from '../platform/go/semver.ts';
import { goFields } from '../platform/go/strings.ts';

/** `actual >= min`; any parse failure is false (IsKubernetesVersionGe). */
export function isVersionGe(actual: string | undefined, min: string): boolean {
  return isSemVerGe(actual ?? '', min);
}

/**
 * The version in `containerd --version` output: third field of Go strings.Fields (Unicode White_Space,
 * so a U+FEFF is part of a field), one leading `v` stripped, cut at the first `-` (unless at position 0);
 * must be three all-digit parts, else ''.
 */
export function containerdVersionFromOutput(output: string): string {
  const fields = goFields(output);
  if (fields.length < 3) return '';
  let version = fields[2]!;
  if (version.startsWith('v')) version = version.slice(1);
  const dash = version.indexOf('-');
  if (dash > 0) version = version.slice(0, dash);
  return /^[0-9]+\.[0-9]+\.[0-9]+$/.test(version) ? version : '';
}

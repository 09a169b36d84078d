// Version comparisons used by the env builder (config-contract 3.3.7): Masterminds semver v3 `NewVersion`
// in its default coerce mode, and the `containerd --version` extraction of 3.3.10. Pure.

interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

const VERSION_RE =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** Parses like Masterminds `NewVersion` (coerce mode); undefined when it would return an error. */
export function parseSemver(text: string): SemVer | undefined {
  const m = VERSION_RE.exec(text);
  if (!m) return undefined;
  const pre = m[4] ? m[4].split('.') : [];
  // A numeric prerelease identifier with a leading zero is invalid (`1.34.0-01`).
  if (pre.some((id) => /^[0-9]+$/.test(id) && id.length > 1 && id.startsWith('0'))) return undefined;
  const num = (part: string | undefined) => BigInt(part ? part.slice(1) : '0');
  return { major: BigInt(m[1]!), minor: num(m[2]), patch: num(m[3]), pre };
}

function comparePrerelease(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xNum = /^[0-9]+$/.test(x);
    const yNum = /^[0-9]+$/.test(y);
    if (xNum && yNum) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareSemver(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return comparePrerelease(a.pre, b.pre);
}

/** `actual >= min`; any parse failure is false (IsKubernetesVersionGe). */
export function isVersionGe(actual: string | undefined, min: string): boolean {
  const a = parseSemver(actual ?? '');
  const b = parseSemver(min);
  return a !== undefined && b !== undefined && compareSemver(a, b) >= 0;
}

/**
 * The version in `containerd --version` output: third whitespace field, one leading `v` stripped, cut
 * at the first `-` (unless at position 0); must be three all-digit parts, else ''.
 */
export function containerdVersionFromOutput(output: string): string {
  const fields = output.trim().split(/\s+/);
  if (fields.length < 3) return '';
  let version = fields[2]!;
  if (version.startsWith('v')) version = version.slice(1);
  const dash = version.indexOf('-');
  if (dash > 0) version = version.slice(0, dash);
  return /^[0-9]+\.[0-9]+\.[0-9]+$/.test(version) ? version : '';
}

// Masterminds semver v3 `NewVersion` in its default coerce mode and `Compare`, the one semantic-version
// implementation of the agent (config-contract 3.3.7: kubernetesVersion gates and the detected containerd
// version; reference-agent 6.2: the hotfix upgrade gate). Numbers are Go uint64: a part beyond
// 18446744073709551615 does not parse (so every comparison with it is false), and a prerelease identifier
// of digits beyond that range compares as text, as strconv.ParseUint failing makes it there. Pure.
import { goParseUint } from './strconv.ts';

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** Dot-separated identifiers after `-`, '' when none. */
  prerelease: string;
  /** After `+`, '' when none; ignored by comparisons. */
  metadata: string;
}

export type ParsedSemVer = { ok: true; value: SemVer } | { ok: false; error: string };

const IDENT = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const VERSION_RE = new RegExp(`^v?([0-9]+)(?:\\.([0-9]+))?(?:\\.([0-9]+))?(?:-(${IDENT}))?(?:\\+(${IDENT}))?$`);

export function parseSemVer(text: string): ParsedSemVer {
  const m = VERSION_RE.exec(text);
  if (!m) return { ok: false, error: `invalid semantic version ${JSON.stringify(text)}` };
  const [major, minor, patch] = [m[1], m[2] ?? '0', m[3] ?? '0'].map((p) => goParseUint(p!, 10, 64));
  if (major === undefined || minor === undefined || patch === undefined) {
    return { ok: false, error: `version segment out of range in ${JSON.stringify(text)}` };
  }
  const prerelease = m[4] ?? '';
  if (prerelease.split('.').some((id) => id.length > 1 && /^[0-9]+$/.test(id) && id.startsWith('0'))) {
    return { ok: false, error: `invalid prerelease ${JSON.stringify(prerelease)}: numeric identifier with leading zero` };
  }
  return { ok: true, value: { major, minor, patch, prerelease, metadata: m[5] ?? '' } };
}

/** One prerelease identifier against another ('' = missing, which sorts first). */
function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const si = goParseUint(s, 10, 64);
  const oi = goParseUint(o, 10, 64);
  if (si === undefined && oi === undefined) return s > o ? 1 : -1;
  if (si === undefined) return 1;
  if (oi === undefined) return -1;
  return si > oi ? 1 : -1;
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = comparePrePart(x[i] ?? '', y[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** -1, 0 or 1; build metadata ignored. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return comparePrerelease(a.prerelease, b.prerelease);
}

/** `actual >= min`; a parse failure of either side is false (IsKubernetesVersionGe). */
export function isSemVerGe(actual: string, min: string): boolean {
  const a = parseSemVer(actual);
  const b = parseSemVer(min);
  return a.ok && b.ok && compareSemVer(a.value, b.value) >= 0;
}

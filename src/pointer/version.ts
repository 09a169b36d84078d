// Hotfix version rules (spec 6.2, D5). Pure: data in, data out, no I/O and no platform runtime.
import { parseSemVer, type SemVer } from '../platform/go/semver.ts';
import { goTrimSpace } from '../platform/go/strings.ts';

// ANC versions look like YYYYMM.DD.PATCH. The *base* is the first two segments kept as text (the leading
// zero of the day matters: the pointer map is keyed by it). The upgrade gate compares versions the way
// the reference agent's semver library does in its coercing mode.

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Base `YYYYMM.DD` of a version, literally (spec 6.2): `202604.01.0` -> `202604.01`. */
export function hotfixBaseFromVersion(version: string): Checked<string> {
  const trimmed = goTrimSpace(version);
  const parts = splitN(trimmed, '.', 3);
  if (parts.length !== 3 || parts.some((p) => p === '')) {
    return { ok: false, error: `invalid ANC version ${JSON.stringify(trimmed)}: expected YYYYMM.DD.PATCH` };
  }
  return { ok: true, value: `${parts[0]}.${parts[1]}` };
}

/** Go strings.SplitN: at most n parts, the last one keeps the remaining separators. */
function splitN(text: string, sep: string, n: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (parts.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at < 0) break;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  parts.push(rest);
  return parts;
}

/** Coercing semver parse (spec 6.2): the agent's one Masterminds implementation. */
export { parseSemVer, type SemVer };

/**
 * The upgrade gate (spec 6.2): same major and minor (numerically), strictly higher patch; prerelease and
 * metadata ignored. A parse error of either side is an error (the caller skips: fail-open).
 */
export function shouldUpgradeToHotfix(current: string, target: string): Checked<boolean> {
  const cur = parseSemVer(goTrimSpace(current));
  if (!cur.ok) return { ok: false, error: `parsing current version: ${cur.error}` };
  const tgt = parseSemVer(goTrimSpace(target));
  if (!tgt.ok) return { ok: false, error: `parsing hotfix version: ${tgt.error}` };
  const a = cur.value;
  const b = tgt.value;
  return { ok: true, value: a.major === b.major && a.minor === b.minor && b.patch > a.patch };
}

/** D5: the only shape of version that may reach a package-manager argument. */
export const SAFE_HOTFIX_VERSION = /^\d{6}\.\d{2}\.\d+(-\d+)?$/;

/** A stamped agent version, D13: `YYYYMM.DD.PATCH` (what `<binary> version` prints). */
export const STAMPED_VERSION = /^\d{6}\.\d{2}\.\d+$/;

/** An image base, `YYYYMM.DD` (a key of the pointer's `hotfixes` and `rollout`). */
export const HOTFIX_BASE = /^\d{6}\.\d{2}$/;

export function isSafeHotfixVersion(version: string): boolean {
  return SAFE_HOTFIX_VERSION.test(version);
}

/** The version the installed binary must print: the resolved version without the package revision. */
export function expectedBinaryVersion(version: string): string {
  return version.replace(/-\d+$/, '');
}

// Which hotfix (if any) this agent should install (spec 6.2, D5). Pure: pointer + own version in, one
// structured decision out. download-hotfix acts on it, check-hotfix judges its outcome with it and
// `hotfix explain` prints it.
import { goTrimSpace } from '../platform/go/strings.ts';
import type { HotfixPointer } from './document.ts';
import { hotfixBaseFromVersion, isSafeHotfixVersion, shouldUpgradeToHotfix } from './version.ts';

/** Closed set of reasons; `upgrade` is the only one with `upgrade: true`. */
export const HOTFIX_REASONS = {
  'no-request': 'the pointer requests no version (no map, no legacy version)',
  'base-unknown': 'the pointer has a map but the current version has no YYYYMM.DD base',
  'not-listed': 'the map has no entry for this base (default deny)',
  'compare-failed': 'the current or the requested version is not a valid version',
  'not-newer': 'the requested version is not a higher patch of the same base',
  'unsafe-version': 'the requested version is not YYYYMM.DD.PATCH[-REV] (D5)',
  upgrade: 'the requested version is a higher patch of the same base',
} as const;

export type HotfixReason = keyof typeof HOTFIX_REASONS;

export interface HotfixDecision {
  /** The running agent's version, as given. */
  current: string;
  /** Base of the current version, or null when it has none (e.g. `dev`). */
  base: string | null;
  /** The trimmed requested version ('' when nothing is requested). */
  resolved: string;
  /** Where `resolved` came from. */
  source: 'map' | 'legacy' | 'none';
  upgrade: boolean;
  reason: HotfixReason;
  /** Details for logs: the parse error behind `base-unknown` / `compare-failed`. */
  detail?: string;
}

/** Map entry for the current base (spec 6.2): a non-empty map takes precedence over the legacy field. */
export function resolveVersion(
  pointer: HotfixPointer,
  current: string,
): { resolved: string; source: HotfixDecision['source']; baseError?: string } {
  const keys = Object.keys(pointer.hotfixes);
  if (keys.length > 0) {
    const base = hotfixBaseFromVersion(current);
    if (!base.ok) return { resolved: '', source: 'map', baseError: base.error };
    const own = Object.hasOwn(pointer.hotfixes, base.value);
    return { resolved: own ? goTrimSpace(pointer.hotfixes[base.value] ?? '') : '', source: 'map' };
  }
  const legacy = goTrimSpace(pointer.version);
  return { resolved: legacy, source: legacy === '' ? 'none' : 'legacy' };
}

export function decideHotfix(pointer: HotfixPointer, current: string): HotfixDecision {
  const baseResult = hotfixBaseFromVersion(current);
  const base = baseResult.ok ? baseResult.value : null;
  const { resolved, source, baseError } = resolveVersion(pointer, current);
  const decision = (reason: HotfixReason, detail?: string): HotfixDecision => ({
    current,
    base,
    resolved,
    source,
    upgrade: reason === 'upgrade',
    reason,
    ...(detail === undefined ? {} : { detail }),
  });
  if (baseError !== undefined) return decision('base-unknown', baseError);
  if (resolved === '') return decision(source === 'map' ? 'not-listed' : 'no-request');
  const gate = shouldUpgradeToHotfix(current, resolved);
  if (!gate.ok) return decision('compare-failed', gate.error);
  if (!gate.value) return decision('not-newer');
  if (!isSafeHotfixVersion(resolved)) return decision('unsafe-version');
  return decision('upgrade');
}

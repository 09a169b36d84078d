// Replay protection for signed metadata: an expired index (Valid-Until in the past), an index dated in
// the future (beyond CLOCK_SKEW_MS, as apt refuses one) and an index older than the newest one this node
// has already verified for the same repository are all refused. The newest verified date per repository
// is kept in one small JSON file (paths.repositoryState); a future date never becomes that floor, and a
// floor already in the future (written before this rule) is ignored rather than blocking every release.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import { integrityError } from './errors.ts';
import { readStateFile } from '../../config/json-offset.ts';

type State = Record<string, string>;

/** How far a signed Date may run ahead of this node's clock (docs/hotfix.md "replay protection"). */
export const CLOCK_SKEW_MS = 10 * 60_000;

function readState(deps: Deps): State {
  try {
    const parsed: unknown = readStateFile(deps.fs, deps.paths.repositoryState);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as State) : {};
  } catch (error) {
    deps.log.warn('ignoring unreadable repository state', { path: deps.paths.repositoryState, error: errorMessage(error) });
    return {};
  }
}

function inFuture(deps: Deps, iso: string): boolean {
  return Date.parse(iso) > deps.clock.now().getTime() + CLOCK_SKEW_MS;
}

/** Throws an integrity error for an expired or replayed index. `date` undefined: only Valid-Until counts. */
export function checkFreshness(deps: Deps, repository: string, what: string, date: Date | undefined, validUntil: Date | undefined): void {
  const now = deps.clock.now();
  if (validUntil && validUntil.getTime() < now.getTime()) {
    throw integrityError(`${what} expired: Valid-Until ${validUntil.toISOString()} is before now (${now.toISOString()})`);
  }
  if (date && date.getTime() > now.getTime() + CLOCK_SKEW_MS) {
    throw integrityError(
      `${what} is dated ${date.toISOString()}, in the future (now ${now.toISOString()}, allowed clock skew ${CLOCK_SKEW_MS / 60_000} min)`,
    );
  }
  const seen = readState(deps)[repository];
  if (seen && inFuture(deps, seen)) {
    deps.log.warn('ignoring a replay floor dated in the future', { path: deps.paths.repositoryState, repository, floor: seen });
  } else if (date && seen && date.getTime() < Date.parse(seen)) {
    throw integrityError(
      `${what} dated ${date.toISOString()} is older than the ${seen} index already verified on this node (replayed metadata)`,
    );
  }
}

/** Records `date` as the newest verified index of `repository` (after a successful verification). */
export function recordFreshness(deps: Deps, repository: string, date: Date | undefined): void {
  if (!date) return;
  const state = readState(deps);
  const floor = state[repository];
  if (floor && !inFuture(deps, floor) && Date.parse(floor) >= date.getTime()) return;
  state[repository] = date.toISOString();
  try {
    deps.fs.atomicWrite(deps.paths.repositoryState, `${JSON.stringify(state)}\n`, { mode: 0o644 });
  } catch (error) {
    deps.log.warn('could not record the verified repository date', { path: deps.paths.repositoryState, error: errorMessage(error) });
  }
}

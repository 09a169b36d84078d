// Puts the originals back from the record (backup.ts): after a fallback to the baked agent (`hotfix
// fallback`), when a binary without this payload provisions, before another payload applies, and as the
// rollback of a failed apply. Per entry: still the payload's bytes -> the backup is written back (mode
// and owner too); already the original -> nothing; changed by someone else since -> left alone and
// reported. Only a complete restore removes the record, so a failed one is retried by the next.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import { clearRecord, type LastRestore, readBackup, readRecord, type RecordEntry, type ScriptRecord, writeLastRestore } from './backup.ts';
import { inspectDestination, replaceFile } from './destination.ts';
import { parseMode } from './format.ts';

type RestoreDeps = Pick<Deps, 'fs' | 'paths' | 'clock' | 'log' | 'events'>;

function restoreEntry(deps: RestoreDeps, e: RecordEntry): 'restored' | 'unchanged' | string {
  const state = inspectDestination(deps, e.destination);
  if (state.kind === 'refused') return `${e.destination}: ${state.reason}`;
  const mode = parseMode(e.oldMode);
  if (state.kind === 'file' && state.sha256 === e.oldSha256 && state.mode === mode) return 'unchanged';
  if (state.kind === 'file' && state.sha256 !== e.newSha256 && state.sha256 !== e.oldSha256) {
    return `${e.destination} changed since the payload was applied (sha256 ${state.sha256.slice(0, 12)}); left as it is`;
  }
  const data = readBackup(deps, e.backup);
  replaceFile(deps, deps.paths.under(e.destination), data, typeof mode === 'number' ? mode : 0o644, { uid: e.uid, gid: e.gid });
  return 'restored';
}

/**
 * Restores every entry of `record` (last first). Emits one `ScriptHotfix` event with the counts unless
 * `quiet` (a rollback inside apply, whose own event carries them). Returns what it did.
 */
export function restoreRecorded(deps: RestoreDeps, record: ScriptRecord, reason: string, options: { quiet?: boolean } = {}): LastRestore {
  const start = deps.clock.now();
  const result: LastRestore = {
    label: record.label,
    digest: record.digest,
    reason,
    restoredAt: start.toISOString(),
    restored: [],
    unchanged: [],
    problems: [],
  };
  for (const e of [...record.entries].reverse()) {
    try {
      const outcome = restoreEntry(deps, e);
      if (outcome === 'restored') result.restored.push(e.destination);
      else if (outcome === 'unchanged') result.unchanged.push(e.destination);
      else result.problems.push(outcome);
    } catch (error) {
      result.problems.push(`${e.destination}: ${errorMessage(error)}`);
    }
  }
  try {
    if (result.problems.length === 0) clearRecord(deps);
    writeLastRestore(deps, result);
  } catch (error) {
    result.problems.push(errorMessage(error));
  }
  const counts = `label=${record.label} reason=${reason} restored=${result.restored.length} unchanged=${result.unchanged.length} problems=${result.problems.length}`;
  if (result.problems.length === 0) deps.log.info('script hotfix restored the original scripts', { ...result });
  else deps.log.error('script hotfix restore incomplete; the record stays for the next restore', { ...result });
  if (!options.quiet) {
    const level = result.problems.length === 0 ? 'Informational' : 'Error';
    const detail = result.problems.length === 0 ? '' : ` (${result.problems.join('; ')})`;
    deps.events.emit({ task: 'ScriptHotfix', message: `restore ${counts}${detail}`, level, start, end: deps.clock.now() });
  }
  return result;
}

/** `hotfix fallback`: the baked agent puts the baked scripts back before its provision. */
export function restoreForFallback(deps: RestoreDeps): LastRestore | undefined {
  let record: ScriptRecord | undefined;
  try {
    record = readRecord(deps);
  } catch (error) {
    deps.log.error('script hotfix record unreadable; nothing restored', { error: errorMessage(error) });
    return {
      label: 'unknown',
      digest: '',
      reason: 'fallback',
      restoredAt: '',
      restored: [],
      unchanged: [],
      problems: [errorMessage(error)],
    };
  }
  return record ? restoreRecorded(deps, record, 'fallback') : undefined;
}

// Puts the image's scripts back (backup.ts): after a fallback to the baked agent (`hotfix fallback`),
// when a binary without this payload provisions, before another payload applies, and as the rollback of
// a failed apply. The record says which entries; when it is unreadable, the self-describing backups
// alone do. Per entry, nothing trusted blindly (issue 34): the destination rules are applied again, the
// backup name is confined to backups/, nothing follows a symlink, the backup's bytes must match the
// original's sha256. Then: still the payload's bytes -> the backup is written back (mode and owner too);
// already the original -> nothing; changed by someone else since -> left alone and reported. A
// destination that still holds the payload's bytes and cannot be put back is `unrestorable`: the caller
// never provisions over it. Only a complete restore removes the record, so a failed one is retried.
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';
import {
  clearRecord,
  type LastRestore,
  listBackups,
  readBackup,
  readRecord,
  type RecordEntry,
  type ScriptRecord,
  stateDirProblem,
  writeLastRestore,
} from './backup.ts';
import { inspectDestination, replaceFile } from './destination.ts';
import { destinationProblem, parseMode } from './format.ts';

type RestoreDeps = Pick<Deps, 'fs' | 'paths' | 'clock' | 'log' | 'events'>;

type Outcome = { kind: 'restored' } | { kind: 'unchanged' } | { kind: 'problem'; text: string; unrestorable?: boolean };

const problem = (text: string, unrestorable = false): Outcome => ({ kind: 'problem', text, unrestorable });

function restoreEntry(deps: RestoreDeps, e: RecordEntry): Outcome {
  const rule = destinationProblem(e.destination);
  if (rule) return problem(`${String(e.destination).slice(0, 300)}: refused (${rule}); never written`);
  const state = inspectDestination(deps, e.destination);
  if (state.kind === 'refused') return problem(`${e.destination}: ${state.reason}`);
  const mode = parseMode(e.oldMode);
  if (state.kind === 'file' && state.sha256 === e.oldSha256 && state.mode === mode) return { kind: 'unchanged' };
  if (state.kind === 'file' && state.sha256 !== e.newSha256 && state.sha256 !== e.oldSha256) {
    return problem(`${e.destination} changed since the payload was applied (sha256 ${state.sha256.slice(0, 12)}); left as it is`);
  }
  const hotfixBytes = state.kind === 'file' && state.sha256 === e.newSha256 && e.newSha256 !== e.oldSha256;
  let backup: ReturnType<typeof readBackup>;
  try {
    backup = readBackup(deps, e.backup);
    if (backup.header.destination !== e.destination || backup.header.sha256 !== e.oldSha256) {
      throw new AgentError('ANC_SCRIPT_HOTFIX', `backup ${e.backup} is not the original of ${e.destination}`);
    }
  } catch (error) {
    return problem(`${e.destination}: ${errorMessage(error)}`, hotfixBytes);
  }
  const headerMode = parseMode(backup.header.mode);
  const owner = { uid: backup.header.uid, gid: backup.header.gid };
  replaceFile(deps, deps.paths.under(e.destination), backup.data, typeof headerMode === 'number' ? headerMode : 0o644, owner);
  return { kind: 'restored' };
}

/** The entries the backups describe (the record is unreadable); a backup that cannot say is unrestorable. */
function entriesFromBackups(deps: RestoreDeps, problems: string[], unrestorable: string[]): RecordEntry[] {
  const entries: RecordEntry[] = [];
  for (const name of listBackups(deps)) {
    try {
      const { header } = readBackup(deps, name);
      entries.push({
        destination: header.destination,
        backup: name,
        oldSha256: header.sha256,
        newSha256: header.newSha256,
        oldMode: header.mode,
        newMode: '',
        uid: header.uid,
        gid: header.gid,
      });
    } catch (error) {
      const text = `${errorMessage(error)} (and the record cannot say which script it was)`;
      problems.push(text);
      unrestorable.push(`backup ${name}`);
    }
  }
  return entries;
}

export interface RestoreSource {
  /** The record; undefined = work from the backups alone. */
  record?: ScriptRecord;
  label: string;
  digest: string;
}

/**
 * Restores every entry (last first). Emits one `ScriptHotfix` event with the counts unless `quiet` (a
 * rollback inside apply, whose own event carries them). Returns what it did.
 */
export function restoreRecorded(
  deps: RestoreDeps,
  source: RestoreSource | ScriptRecord,
  reason: string,
  options: { quiet?: boolean } = {},
): LastRestore {
  const from: RestoreSource = 'entries' in source ? { record: source, label: source.label, digest: source.digest } : source;
  const start = deps.clock.now();
  const result: LastRestore = {
    label: from.label,
    digest: from.digest,
    reason,
    restoredAt: start.toISOString(),
    restored: [],
    unchanged: [],
    problems: [],
    unrestorable: [],
  };
  const unrestorable = result.unrestorable!;
  let entries: RecordEntry[] = [];
  try {
    entries = from.record ? from.record.entries : entriesFromBackups(deps, result.problems, unrestorable);
  } catch (error) {
    result.problems.push(errorMessage(error));
    unrestorable.push('the backups');
  }
  for (const e of [...entries].reverse()) {
    try {
      const outcome = restoreEntry(deps, e);
      if (outcome.kind === 'restored') result.restored.push(e.destination);
      else if (outcome.kind === 'unchanged') result.unchanged.push(e.destination);
      else {
        result.problems.push(outcome.text);
        if (outcome.unrestorable) unrestorable.push(e.destination);
      }
    } catch (error) {
      result.problems.push(`${e.destination}: ${errorMessage(error)}`);
      unrestorable.push(e.destination);
    }
  }
  try {
    if (result.problems.length === 0) clearRecord(deps);
    writeLastRestore(deps, result);
  } catch (error) {
    result.problems.push(errorMessage(error));
  }
  const counts = `label=${from.label} reason=${reason} restored=${result.restored.length} unchanged=${result.unchanged.length} problems=${result.problems.length}`;
  if (result.problems.length === 0) deps.log.info('script hotfix restored the original scripts', { ...result });
  else deps.log.error('script hotfix restore incomplete; the record stays for the next restore', { ...result });
  if (!options.quiet) {
    const level = result.problems.length === 0 ? 'Informational' : 'Error';
    const detail = result.problems.length === 0 ? '' : ` (${result.problems.join('; ')})`;
    deps.events.emit({ task: 'ScriptHotfix', message: `restore ${counts}${detail}`, level, start, end: deps.clock.now() });
  }
  return result;
}

/**
 * Restores whatever the state directory says a payload replaced: from the record, or from the backups
 * alone when the record is unreadable (a FIFO, not JSON, over its cap: never an abort). undefined when
 * there is nothing to restore. A state directory that is a symlink is never followed: unrestorable.
 */
export function restoreScripts(deps: RestoreDeps, reason: string): LastRestore | undefined {
  const dirProblem = stateDirProblem(deps);
  if (dirProblem) {
    const at = deps.clock.now().toISOString();
    const result = { label: 'unknown', digest: '', reason, restoredAt: at, restored: [], unchanged: [], problems: [dirProblem] };
    deps.log.error('script hotfix state cannot be trusted; nothing restored', { problem: dirProblem });
    deps.events.emit({
      task: 'ScriptHotfix',
      message: `restore label=unknown reason=${reason} restored=0 unchanged=0 problems=1 (${dirProblem})`,
      level: 'Error',
      start: deps.clock.now(),
      end: deps.clock.now(),
    });
    return { ...result, unrestorable: [`the script hotfix state (${dirProblem})`] };
  }
  let record: ScriptRecord | undefined;
  try {
    record = readRecord(deps);
  } catch (error) {
    deps.log.warn('script hotfix record unreadable; restoring from the self-describing backups', { error: errorMessage(error) });
    return restoreRecorded(deps, { label: 'unknown', digest: '' }, `${reason}; record unreadable: ${errorMessage(error)}`);
  }
  if (record) return restoreRecorded(deps, record, reason);
  // Backups without a record: an apply killed between its backups and its record. Nothing was replaced
  // yet, but the backups say so themselves.
  return listBackups(deps).length > 0
    ? restoreRecorded(deps, { label: 'unknown', digest: '' }, `${reason}; backups without a record`)
    : undefined;
}

/** `hotfix fallback`: the baked agent puts the baked scripts back before its provision. */
export const restoreForFallback = (deps: RestoreDeps) => restoreScripts(deps, 'fallback');

/** The named failure when the image's scripts cannot be put back: no provisioning over a mixed set. */
export function unrestorableError(result: LastRestore): AgentError {
  return new AgentError(
    'ANC_SCRIPTS_UNRESTORABLE',
    `the image's provisioning scripts cannot be restored after script hotfix ${result.label}: ${(result.unrestorable ?? []).join(', ')} (${result.problems.join('; ')}); not provisioning over a half-hotfixed mix`,
    { step: 'scriptHotfix' },
  );
}

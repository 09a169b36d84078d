// Applies the embedded script payload in `provision`, after the configuration is validated and before
// the scripts-started marker (issue 21). All or nothing: back up every original (backup.ts), write the
// record, stage every new file beside its destination, commit by rename, mark the record applied. Any
// failure rolls back what was committed (restore.ts) and is an agent error before the scripts start,
// so the launcher falls back to the baked agent. Idempotent: a second run of the same payload finds its
// record and changes nothing; another payload (or none) first restores the originals, so backups only
// ever hold the image's own bytes. One `ScriptHotfix` event per apply, with the counts.
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';
import { type ScriptRecord, readRecord, type RecordEntry, saveBackup, writeRecord } from './backup.ts';
import { commitStaged, STAGE_PREFIX, stageBeside } from './destination.ts';
import type { EmbeddedPayload } from './embedded.ts';
import { entryBytes, formatMode, parseMode } from './format.ts';
import { countOf, noopVerdict, type PlanItem, planPayload, type ScriptPlan } from './plan.ts';
import { restoreRecorded } from './restore.ts';

type ApplyDeps = Pick<Deps, 'fs' | 'paths' | 'clock' | 'log' | 'events' | 'version'>;

export interface ApplyReport {
  /** Which scripts the provisioning runs: the image's own, or this payload's. */
  scripts: 'baked' | 'hotfix';
  label?: string;
  replaced: string[];
  /** Set when the payload was already applied by an earlier run (a reboot, a re-run). */
  alreadyApplied?: boolean;
  skipped?: string;
  /** Set when the payload lists this platform but changes nothing here (an Error-level event says so). */
  noop?: string;
}

const fail = (message: string, cause?: unknown) => new AgentError('ANC_SCRIPT_HOTFIX', message, { cause, step: 'scriptHotfix' });

function event(deps: ApplyDeps, start: Date, message: string, ok: boolean): void {
  deps.events.emit({ task: 'ScriptHotfix', message, level: ok ? 'Informational' : 'Error', start, end: deps.clock.now() });
}

function counts(plan: ScriptPlan, replaced: number): string {
  const platform = plan.node.platform ?? 'none';
  return `label=${plan.label} platform=${platform} replaced=${replaced} unchanged=${countOf(plan, 'unchanged')} missing=${countOf(plan, 'missing')}`;
}

/** Restores a record that does not belong to `embedded` (or is half-applied); throws when it cannot. */
function restoreForeign(deps: ApplyDeps, record: ScriptRecord, embedded: EmbeddedPayload | undefined): void {
  const reason = !embedded
    ? 'this binary carries no script payload'
    : record.digest !== embedded.digest
      ? `this binary carries another payload (${embedded.payload.label})`
      : 'an earlier apply was interrupted';
  const result = restoreRecorded(deps, record, reason);
  // The baked agent provisions anyway (a file someone else changed since is not ours to judge); a payload
  // never applies over a state it cannot restore.
  if (result.problems.length > 0 && embedded) {
    throw fail(`restoring the scripts of hotfix ${record.label} before provisioning: ${result.problems.join('; ')}`);
  }
}

function commitAll(deps: ApplyDeps, plan: ScriptPlan, items: PlanItem[], start: Date): RecordEntry[] {
  const entries = items.map((item, index): RecordEntry => {
    const current = item.current!;
    return {
      destination: item.entry.destination,
      backup: saveBackup(deps, index, current.data),
      oldSha256: current.sha256,
      newSha256: item.entry.sha256,
      oldMode: formatMode(current.mode),
      newMode: item.entry.mode,
      uid: current.uid,
      gid: current.gid,
    };
  });
  const record: ScriptRecord = {
    schemaVersion: 1,
    label: plan.label,
    digest: plan.digest,
    platform: plan.node.platform!,
    appliedBy: deps.version,
    state: 'applying',
    updatedAt: start.toISOString(),
    entries,
  };
  writeRecord(deps, record);
  const staged: string[] = [];
  try {
    for (const item of items) {
      const mode = parseMode(item.entry.mode) as number;
      const owner = { uid: item.current!.uid, gid: item.current!.gid };
      staged.push(stageBeside(deps, deps.paths.under(item.entry.destination), entryBytes(item.entry), mode, owner));
    }
    items.forEach((item, i) => {
      commitStaged(deps, staged[i]!, deps.paths.under(item.entry.destination));
      staged[i] = '';
    });
    writeRecord(deps, { ...record, state: 'applied', updatedAt: deps.clock.now().toISOString() });
    return entries;
  } catch (error) {
    for (const temp of staged.filter(Boolean)) {
      try {
        deps.fs.unlink(temp);
      } catch {}
    }
    const rollback = restoreRecorded(deps, record, 'rollback of a failed apply', { quiet: true });
    const rolled =
      rollback.problems.length === 0 ? `rolled back ${rollback.restored.length}` : `ROLLBACK INCOMPLETE: ${rollback.problems.join('; ')}`;
    const message = `applying script hotfix ${plan.label}: ${errorMessage(error)}; ${rolled}`;
    event(deps, start, `apply ${counts(plan, 0)} failed: ${errorMessage(error)}; ${rolled}`, false);
    throw fail(message, error);
  }
}

/** Staged files a killed earlier apply left beside the destinations (older than this run). */
function removeStaleStaged(deps: ApplyDeps, embedded: EmbeddedPayload, start: Date): void {
  const dirs = new Set(embedded.payload.entries.map((e) => deps.paths.under(e.destination.slice(0, e.destination.lastIndexOf('/')))));
  for (const dir of dirs) {
    try {
      const removed = deps.fs.removeStaleFiles(dir, STAGE_PREFIX, start);
      if (removed.length > 0) deps.log.info('removed files staged by an interrupted script hotfix', { dir, files: removed });
    } catch (error) {
      deps.log.warn('could not remove files staged by an earlier script hotfix', { dir, error: errorMessage(error) });
    }
  }
}

export function applyScriptHotfix(deps: ApplyDeps, embedded: EmbeddedPayload | undefined): ApplyReport {
  const start = deps.clock.now();
  if (embedded) removeStaleStaged(deps, embedded, start);
  let record = readRecord(deps);
  if (record && (!embedded || record.digest !== embedded.digest || record.state !== 'applied')) {
    restoreForeign(deps, record, embedded);
    record = undefined;
  }
  if (!embedded) return { scripts: 'baked', replaced: [] };
  let plan = planPayload(deps, embedded);
  if (plan.skipped) {
    deps.log.info(plan.skipped, { label: plan.label });
    event(deps, start, `apply label=${plan.label} skipped: ${plan.skipped}`, true);
    return { scripts: 'baked', replaced: [], skipped: plan.skipped };
  }
  const refused = plan.items.filter((i) => i.action === 'refused');
  if (refused.length > 0) {
    const why = refused.map((i) => `${i.entry.destination}: ${i.reason}`).join('; ');
    event(deps, start, `apply ${counts(plan, 0)} refused=${refused.length}: ${why}`, false);
    throw fail(`script hotfix ${plan.label} refused on this node: ${why}`);
  }
  if (record && countOf(plan, 'replace') === 0) {
    const replaced = record.entries.map((e) => e.destination);
    event(deps, start, `apply ${counts(plan, 0)} already applied (${replaced.length} replaced earlier)`, true);
    return { scripts: 'hotfix', label: plan.label, replaced, alreadyApplied: true };
  }
  const noop = record ? undefined : noopVerdict(plan);
  if (noop) {
    // Never reported as a fix: the baked scripts run unchanged, and the event and `status` say why.
    deps.log.error('script hotfix changes nothing on this image', { label: plan.label, platform: plan.node.platform, noop });
    event(deps, start, `apply ${counts(plan, 0)}: ${noop}`, false);
    return { scripts: 'baked', replaced: [], noop };
  }
  if (record) {
    // Someone changed a replaced file since: start over from the originals.
    restoreForeign(deps, { ...record, state: 'applying' }, embedded);
    plan = planPayload(deps, embedded);
  }
  const items = plan.items.filter((i) => i.action === 'replace');
  const entries = commitAll(deps, plan, items, start);
  const replaced = entries.map((e) => e.destination);
  deps.log.info('script hotfix applied', { label: plan.label, digest: plan.digest, platform: plan.node.platform, replaced });
  event(deps, start, `apply ${counts(plan, replaced.length)}`, true);
  return { scripts: 'hotfix', label: plan.label, replaced };
}

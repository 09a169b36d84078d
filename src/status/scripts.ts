// Which provisioning scripts ran (issue 21): `baked`, or `hotfix <label>` with the files it replaced,
// from the script hotfix record; and the last restore of the baked scripts (after a fallback, before
// another payload). Unreadable state becomes a note, like every other source of `status`.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { QuarantineEntry } from '../pointer/quarantine.ts';

export interface ScriptsStatus {
  ran: 'baked' | 'hotfix';
  label: string | null;
  /** The on-node files the payload replaced (empty for baked). */
  replaced: string[];
  /** `applying`: an apply was interrupted (the next provision or fallback restores the originals). */
  state: 'applied' | 'applying' | null;
  lastRestore: { label: string; reason: string; restoredAt: string; restored: string[]; problems: string[] } | null;
  /** Hotfix versions this node gave up (issue 34): failed before the scripts, failed provisioning, or recalled. */
  quarantined: QuarantineEntry[];
}

export async function scriptsStatus(deps: Deps, notes: string[]): Promise<ScriptsStatus> {
  const { readRecord, readLastRestore } = await import('../hotfix/scripts/backup.ts');
  const status: ScriptsStatus = { ran: 'baked', label: null, replaced: [], state: null, lastRestore: null, quarantined: [] };
  try {
    const record = readRecord(deps);
    if (record) {
      Object.assign(status, {
        ran: 'hotfix',
        label: record.label,
        replaced: record.entries.map((e) => e.destination),
        state: record.state,
      });
    }
  } catch (error) {
    notes.push(errorMessage(error));
  }
  try {
    const last = readLastRestore(deps);
    if (last) {
      const { label, reason, restoredAt, restored, problems } = last;
      status.lastRestore = { label, reason, restoredAt, restored, problems };
    }
  } catch (error) {
    notes.push(errorMessage(error));
  }
  try {
    const { readQuarantine } = await import('../pointer/quarantine.ts');
    status.quarantined = readQuarantine(deps);
  } catch (error) {
    notes.push(errorMessage(error));
  }
  return status;
}

/** Why a version was given up, for people. */
function quarantineLine(q: QuarantineEntry): string {
  const why =
    q.cause === 'provisionFailed'
      ? `provisioning failed under it with exit code ${q.exitCode} ${q.exitName ?? ''} after the scripts started`.replace('  ', ' ')
      : q.cause === 'recalled'
        ? 'recalled by the hotfix pointer'
        : q.reason;
  return `  quarantined hotfix ${q.version} at ${q.recordedAt}: ${why}; the image's scripts and the baked agent run from the next provision on`;
}

/** The `scripts:` block of the text screen. */
export function renderScripts(s: ScriptsStatus): string[] {
  const ran =
    s.ran === 'baked'
      ? "baked (the image's own provisioning scripts)"
      : `hotfix ${s.label}${s.state === 'applying' ? ' (INTERRUPTED apply: the next provision restores the originals)' : ''}, ${s.replaced.length} replaced`;
  const out = ['', 'scripts:', `  ran        ${ran}`, ...s.replaced.map((r) => `             ${r}`)];
  const last = s.lastRestore;
  if (last) {
    const problems = last.problems.length > 0 ? `; PROBLEMS: ${last.problems.join('; ')}` : '';
    out.push(
      `  restored   ${last.restored.length} baked scripts of hotfix ${last.label} at ${last.restoredAt} (${last.reason})${problems}`,
    );
  }
  out.push(...s.quarantined.map(quarantineLine));
  return out;
}

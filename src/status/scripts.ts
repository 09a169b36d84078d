// Which provisioning scripts ran (issue 21): `baked`, or `hotfix <label>` with the files it replaced,
// from the script hotfix record; and the last restore of the baked scripts (after a fallback, before
// another payload). Unreadable state becomes a note, like every other source of `status`.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';

export interface ScriptsStatus {
  ran: 'baked' | 'hotfix';
  label: string | null;
  /** The on-node files the payload replaced (empty for baked). */
  replaced: string[];
  /** `applying`: an apply was interrupted (the next provision or fallback restores the originals). */
  state: 'applied' | 'applying' | null;
  lastRestore: { label: string; reason: string; restoredAt: string; restored: string[]; problems: string[] } | null;
}

export async function scriptsStatus(deps: Deps, notes: string[]): Promise<ScriptsStatus> {
  const { readRecord, readLastRestore } = await import('../hotfix/scripts/backup.ts');
  const status: ScriptsStatus = { ran: 'baked', label: null, replaced: [], state: null, lastRestore: null };
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
  return status;
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
  return out;
}

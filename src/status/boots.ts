// The agent log and the timeline cut into boots (issue 31): every command's start line names the kernel's
// boot id, so a line belongs to the boot named last before it, and a timeline row to the latest boot whose
// first log line is not after it. The current boot leads; an earlier boot's fallback stays with it. Pure.
import type { TimelineRow } from './timeline.ts';

export type LogLine = Record<string, unknown> & { msg?: string };

const last = <T>(items: T[], match: (item: T) => boolean): T | undefined => items.filter(match).pop();

/** One boot the log names (by the kernel's boot id), current first; `rows` index the timeline. */
export interface BootGroup {
  bootId: string | null;
  current: boolean;
  /** The first log line of that boot (unix ms), null for rows before any logged boot. */
  firstSeen: number | null;
  /** The hotfix that fell back in that boot (earlier boots: shown with them, never as this boot's). */
  fallback: { hotfix: string; reason: string } | null;
  rows: TimelineRow[];
}

/** The baked agent's last fallback record among these lines (launcher: hotfix failed before the scripts). */
export function fallbackOf(log: LogLine[]): { hotfix: string; reason: string } | null {
  const line = last(log, (l) => typeof l.msg === 'string' && l.msg.startsWith('hotfix failed before the provisioning scripts started'));
  return line ? { hotfix: String(line.hotfix ?? 'unknown'), reason: String(line.reason ?? '') } : null;
}

/** The unix ms of a log line's `time` (RFC 3339 with its zone): the same instant in every reader's zone. */
export const lineInstant = (line: LogLine | undefined) => {
  const t = typeof line?.time === 'string' ? Date.parse(line.time) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};

/** Each log line with the boot it belongs to: the boot id of the nearest line before it that names one. */
function linesByBoot(log: LogLine[]): { line: LogLine; bootId: string | null }[] {
  let boot: string | null = null;
  return log.map((line) => {
    if (typeof line.bootId === 'string' && line.bootId !== '') boot = line.bootId;
    return { line, bootId: boot };
  });
}

/**
 * The timeline cut into boots: a row belongs to the latest boot whose first log line is not after it.
 * The current boot (the kernel's, else the last logged) leads; earlier ones follow, newest first.
 */
export function groupByBoot(timeline: TimelineRow[], log: LogLine[], current: string | undefined): BootGroup[] {
  const tagged = linesByBoot(log);
  const firsts: { bootId: string; firstSeen: number }[] = [];
  for (const { line, bootId } of tagged) {
    const at = lineInstant(line);
    if (bootId === null || at === null || firsts.some((f) => f.bootId === bootId)) continue;
    firsts.push({ bootId, firstSeen: at });
  }
  if (firsts.length === 0) return [{ bootId: current ?? null, current: true, firstSeen: null, fallback: fallbackOf(log), rows: timeline }];
  const currentId = current ?? firsts[firsts.length - 1]!.bootId;
  const groups: BootGroup[] = firsts.map((f) => ({
    ...f,
    current: f.bootId === currentId,
    fallback: fallbackOf(tagged.filter((t) => t.bootId === f.bootId).map((t) => t.line)),
    rows: [],
  }));
  // A boot the kernel names that logged nothing yet (the launcher waits, or exited early).
  if (!groups.some((g) => g.current)) groups.push({ bootId: currentId, current: true, firstSeen: null, fallback: null, rows: [] });
  const before: BootGroup = { bootId: null, current: false, firstSeen: null, fallback: null, rows: [] };
  for (const row of timeline) {
    // Every event of a boot is written after that boot's first log line (an agent logs its start first);
    // an event's name may read up to 1 ms early (status/writers.ts), a boot starts seconds after the last.
    const owner = [...groups].reverse().find((g) => g.firstSeen !== null && row.at !== null && row.at >= g.firstSeen - 2);
    (owner ?? (row.at === null ? groups[groups.length - 1]! : before)).rows.push(row);
  }
  const ordered = [...groups.filter((g) => g.current), ...groups.filter((g) => !g.current).reverse()];
  return before.rows.length > 0 ? [...ordered, before] : ordered;
}

/** `2026-04-01 10:00:00 UTC`: an instant written the same for every reader. */
export const utcText = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

// Which reports count toward a base, and when a silent node counts as failed (silence is failure): the live
// pointer's targets and the times its waves opened. Pure.
import type { RolloutWave } from '../pointer/payload.ts';
import { expectedBinaryVersion } from '../pointer/version.ts';

/** What these rules read of the live pointer (fleet/rollout.ts LiveView). */
interface Targets {
  hotfixes?: Record<string, string>;
  rollout?: Record<string, RolloutWave>;
}

const recallOf = (recall: readonly string[], base: string) => recall.filter((v) => v.startsWith(`${base}.`));

/** Silence is failure: how long a node in an open wave may stay silent, from when, and how many Nodes to expect. */
export interface Silence {
  reportTimeoutMs: number;
  /** When the watch started (ms): no node times out before since + timeout. */
  since?: number;
  expect?: number;
  /** When the watch first saw each node with its current boot (`name boot-id` -> ms): a rebooted node gets the full timeout. */
  firstSeen?: ReadonlyMap<string, number>;
}

export const seenKey = (name: string, bootId: string) => `${name} ${bootId}`;

/** Default --report-timeout: the extension's 15 minutes. */
export const REPORT_TIMEOUT_MS = 15 * 60_000;

/** When the wave a silent node may be in opened: its base's first step over 0% (all bases' when unknown). */
export function openedAt(base: string, live: Targets | undefined, since: number | undefined): number | undefined {
  const bases = live?.hotfixes ? Object.keys(live.hotfixes) : Object.keys(live?.rollout ?? {});
  const times = (Object.hasOwn(live?.hotfixes ?? live?.rollout ?? {}, base) ? [base] : bases).map((b) => {
    const wave = live?.rollout && Object.hasOwn(live.rollout, b) ? live.rollout[b] : undefined;
    if (wave?.schedule) return wave.schedule.find((s) => s.percent > 0)?.atMs;
    return wave && wave.percent === 0 ? undefined : since;
  });
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/**
 * Why a report does not count toward its base: the live pointer does not target the base, or the node runs a
 * version the pointer never offered (its hotfix, a recalled one, or the baked `.0`). undefined: it counts.
 */
export function untargeted(base: string | null, running: string, live: Targets | undefined, recall: readonly string[]): string | undefined {
  if (live?.hotfixes === undefined || base === null) return undefined;
  const recalled = recallOf(recall, base);
  // A recall acts on its base too: the pointer offered those versions once.
  if (!Object.hasOwn(live.hotfixes, base) && recalled.length === 0) return `base ${base} is not targeted by the live pointer`;
  const offered = [...(Object.hasOwn(live.hotfixes, base) ? [live.hotfixes[base]!] : []), `${base}.0`, ...recalled].map(
    expectedBinaryVersion,
  );
  if (!offered.includes(expectedBinaryVersion(running))) return `runs ${running}, which the live pointer never offered`;
  return undefined;
}

// The state each base's rollout is in, as `rollout status` and the watch tell it (docs/operators.md "Rollout
// states"): halted (a halting pointer is live), recalled (the pointer recalls a version of the base),
// stalled (a gated step's time came and no fresh evidence opens it), in-progress, complete. Pure.
import type { NodeObject } from '../kube/nodes.ts';
import { awaitedStep } from '../pointer/evidence-gate.ts';
import { type GroupRow, type LiveView, type RolloutView, rolloutView } from './rollout.ts';
import type { Silence } from './targets.ts';

export type RolloutState = 'in-progress' | 'complete' | 'halted' | 'stalled' | 'recalled';

export interface GroupState {
  state: RolloutState | '-';
  percent?: number | null;
  /** halted: the halt's serial, when it was signed, the frozen percent and whether that wave still admits nodes. */
  halt?: { serial: number | null; at: string; percent: number | null; admitting: boolean };
  /** stalled: the gated step awaiting evidence (1-based) and since when. */
  awaiting?: { step: number; percent: number; since: string };
}

export type StatedGroup = GroupRow & GroupState;
export type StatedView = Omit<RolloutView, 'groups'> & { groups: StatedGroup[]; state: RolloutState };

const ORDER: RolloutState[] = ['halted', 'recalled', 'stalled', 'in-progress', 'complete'];

/** The rollout view with a state per base and platform, and the whole rollout's (the most pressing). */
export function fleetView(nodes: readonly NodeObject[], live: LiveView | undefined, now: Date, silence?: Silence): StatedView {
  const view = rolloutView(nodes, live, now, silence);
  const groups = view.groups.map((g) => ({ ...g, ...groupState(g, live, now) }));
  const states = groups.map((g) => g.state).filter((s): s is RolloutState => s !== '-');
  const pending = view.totals.missing > 0 ? ['in-progress' as const] : [];
  const state = ORDER.find((s) => states.includes(s) || (pending as string[]).includes(s)) ?? 'complete';
  return { ...view, groups, state };
}

function groupState(g: GroupRow, live: LiveView | undefined, now: Date): GroupState {
  // Nodes not heard from this boot keep the rollout in progress, whatever their base.
  if (g.base === '(unknown)') return { state: g.notReported > 0 || g.timedOut > 0 ? 'in-progress' : '-' };
  // Reports the live pointer does not count (unreadable, another base) are not a rollout of their own.
  if (live?.hotfixes !== undefined && !Object.hasOwn(live.hotfixes, g.base) && g.recall.length === 0) return { state: '-' };
  if (live?.halted !== undefined) {
    const percent = g.percent;
    return {
      state: 'halted',
      halt: { serial: live.serial ?? null, at: live.halted, percent, admitting: percent === null || percent > 0 },
    };
  }
  if (g.recall.length > 0) return { state: 'recalled' };
  const wave = live?.rollout && Object.hasOwn(live.rollout, g.base) ? live.rollout[g.base] : undefined;
  const awaiting = wave?.schedule ? awaitedStep(wave.schedule, live?.evidence?.[g.base], live?.serial ?? null, now) : undefined;
  if (awaiting)
    return {
      state: 'stalled',
      awaiting: { step: awaiting.index + 1, percent: awaiting.step.percent, since: awaiting.step.at },
      // The wave in force is the last open step, not the clock's.
      percent: awaiting.index === 0 ? 0 : wave!.schedule![awaiting.index - 1]!.percent,
    };
  if (g.notInWave > 0 || g.notReported > 0 || g.timedOut > 0 || g.nextWaveAt !== null) return { state: 'in-progress' };
  return { state: 'complete' };
}

/** One line per base that is not simply in progress or complete: what the state means and what to do. */
export function stateLines(view: StatedView): string[] {
  const out: string[] = [];
  for (const g of view.groups) {
    const where = `${g.base} ${g.platform}`;
    if (g.halt)
      out.push(
        `${where}: halted by pointer serial ${g.halt.serial ?? '?'} (signed ${g.halt.at}), frozen at ${g.halt.percent ?? 100}%: ${g.halt.admitting ? 'nodes in that wave still take the hotfix at their next boot' : 'no node takes the hotfix any more'}`,
      );
    if (g.awaiting)
      out.push(
        `${where}: stalled: awaiting evidence for step ${g.awaiting.step} (${g.awaiting.percent}%) since ${g.awaiting.since}; nodes stay at the last step they hold evidence for (start \`hotfix rollout watch --evidence-key\` to open it)`,
      );
  }
  return out;
}

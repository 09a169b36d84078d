// The fleet's side of the evidence gate (schedule.ts openPercent): which gated step a base is waiting for,
// given the evidence the live ConfigMap holds. `rollout status` calls a base so waiting `stalled`. Pure.
import { openPercent, type ScheduleStep } from './schedule.ts';

/** What the fleet views read of the live evidence for one base. */
export interface LiveEvidence {
  step: number;
  serial: number;
  expires: string;
}

/** The gated step whose time came and that no fresh evidence for `serial` opens; undefined when none waits. */
export function awaitedStep(
  schedule: readonly ScheduleStep[],
  evidence: LiveEvidence | undefined,
  serial: number | null,
  now: Date,
): { index: number; step: ScheduleStep } | undefined {
  const fresh = evidence !== undefined && evidence.serial === serial && Date.parse(evidence.expires) > now.getTime();
  const { awaiting } = openPercent(schedule, now, fresh ? evidence.step : 0);
  return awaiting === undefined ? undefined : { index: awaiting, step: schedule[awaiting]! };
}

/** What the watch saw of one base: its nodes and how many run the hotfix, and the failures it counts. */
export interface BaseCounts {
  nodes: number;
  onHotfix: number;
  failed: number;
  timedOut: number;
}

export interface EvidencePlan {
  /** The gated step (1-based) the evidence opens; 0: none can be opened yet. */
  step: number;
  percent: number;
  required: number;
  expiresMs: number;
  /** Write now: a higher step than the live evidence opens, or the live one is past half its life. */
  write: boolean;
  /** Why no (further) step opens, for the watch's line. */
  waiting?: string;
}

/** Evidence lives two step intervals from when it is signed (at least a minute): a dead watch stalls soon. */
const lifetime = (schedule: readonly ScheduleStep[], i: number) => Math.max(60_000, 2 * (schedule[i]!.atMs - schedule[i - 1]!.atMs));

/**
 * The evidence the watch may sign for a base: every gated step, in order, whose own time came and whose
 * previous wave is healthy (at least max(minOnHotfix, floor(nodes x its percent)) nodes on the
 * hotfix; failures and silence are the watch's --max-failed, checked before). Never past the schedule.
 */
export function planEvidence(
  schedule: readonly ScheduleStep[],
  live: LiveEvidence | undefined,
  serial: number,
  now: Date,
  counts: BaseCounts,
  minOnHotfix: number,
): EvidencePlan | undefined {
  if (!schedule.some((s) => s.gated)) return undefined;
  let plan: EvidencePlan = { step: 0, percent: 0, required: 0, expiresMs: 0, write: false };
  for (const [i, step] of schedule.entries()) {
    if (!step.gated) continue;
    const before = schedule[i - 1]!;
    const required = Math.max(minOnHotfix, Math.floor((counts.nodes * before.percent) / 100));
    // Evidence speaks for the wave as it stood when the gated step's time came, never earlier: a watch
    // that dies before then leaves nothing behind that could open the step.
    if (step.atMs > now.getTime()) {
      plan.waiting = `step ${i + 1} (${step.percent}%) opens at ${step.at} if the wave before it is healthy then`;
      break;
    }
    if (counts.onHotfix < required) {
      plan.waiting = `step ${i + 1} (${step.percent}%) needs ${required} node(s) on the hotfix, ${counts.onHotfix} are`;
      break;
    }
    plan = { step: i + 1, percent: step.percent, required, expiresMs: now.getTime() + lifetime(schedule, i), write: false };
  }
  if (plan.step === 0) return plan;
  const fresh = live !== undefined && live.serial === serial && Date.parse(live.expires) > now.getTime();
  const half = lifetime(schedule, plan.step - 1) / 2;
  plan.write = !fresh || live.step < plan.step || Date.parse(live.expires) - now.getTime() < half;
  return plan;
}

// Waves on a signed schedule (docs/hotfix.md "Rolling out on a schedule"): a base's rollout may carry
// `schedule`, a list of {"at": RFC 3339 UTC, "percent": N} ascending in both. The percent in force at t is
// that of the last step whose `at` <= t, 0 before the first step. The node's own clock is compared with
// `at`, so a node whose clock runs ahead joins early by as much. The seed rule (wave.ts) is unchanged,
// so a node in at 10% stays in at 50%. Pure: parsing, arithmetic, rendering flags.
import { AgentError } from '../platform/errors.ts';
import { parseRfc3339 } from './time.ts';

export interface ScheduleStep {
  /** RFC 3339 UTC text as signed. */
  at: string;
  /** The instant `at` names (ms since the epoch). */
  atMs: number;
  percent: number;
  /** Opens only with fresh signed evidence that the wave before it is healthy (evidence.ts); never the first step. */
  gated?: boolean;
}

const UTC = /Z$/;

/** A JSON value -> checked steps; `fail` gets a detail naming the step (the caller adds where). */
export function parseSchedule(value: unknown, fail: (detail: string) => never): ScheduleStep[] {
  if (!Array.isArray(value) || value.length === 0) return fail('schedule must be a non-empty list of {"at","percent"}');
  const steps: ScheduleStep[] = [];
  value.forEach((step, i) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) fail(`schedule[${i}] must be an object {"at","percent"}`);
    const { at, percent, gated } = step as Record<string, unknown>;
    if (gated !== undefined && typeof gated !== 'boolean') fail(`schedule[${i}].gated must be true or false`);
    if (gated === true && i === 0) fail('schedule[0] cannot be gated: evidence opens a step after a wave that ran');
    const when = typeof at === 'string' && UTC.test(at) ? parseRfc3339(at) : undefined;
    if (!when) fail(`schedule[${i}].at must be an RFC 3339 UTC time ending in Z, e.g. 2026-12-01T00:00:00Z`);
    if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100)) fail(`schedule[${i}].percent must be a number from 0 to 100`);
    const previous = steps[i - 1];
    if (previous && when!.getTime() <= previous.atMs) fail(`schedule[${i}].at must be later than schedule[${i - 1}].at`);
    if (previous && (percent as number) < previous.percent)
      fail(`schedule[${i}].percent must not be lower than schedule[${i - 1}].percent (a wave only widens)`);
    steps.push({ at: at as string, atMs: when!.getTime(), percent: percent as number, ...(gated === true ? { gated: true } : {}) });
  });
  return steps;
}

/** The percent in force at `now`: the last step with at <= now; 0 before the first. */
export function percentAt(schedule: readonly ScheduleStep[], now: Date): number {
  let percent = 0;
  for (const step of schedule) if (step.atMs <= now.getTime()) percent = step.percent;
  return percent;
}

/** The first step after `now`, or undefined when the schedule is complete. */
export function nextStep(schedule: readonly ScheduleStep[], now: Date): ScheduleStep | undefined {
  return schedule.find((step) => step.atMs > now.getTime());
}

/** When a node with this seed joins: the first step whose percent covers it (seed < percent/100, or 100%). */
export function joinStep(schedule: readonly ScheduleStep[], seed: number | null): ScheduleStep | undefined {
  return schedule.find((step) => step.percent >= 100 || (seed !== null && seed < step.percent / 100));
}

/** `--schedule BASE=P@TIME,P@TIME!,...` (TIME may leave out the seconds: 2026-12-01T00:00Z; `!` gates the step). */
export function parseScheduleFlag(text: string): { base: string; steps: ScheduleStep[] } | { error: string } {
  const at = text.indexOf('=');
  if (at < 0) return { error: 'expected BASE=PERCENT@TIME,PERCENT@TIME,...' };
  const base = text.slice(0, at);
  const raw: Array<{ at: string; percent: number; gated?: boolean }> = [];
  for (const part of text.slice(at + 1).split(',')) {
    const m = /^(\d{1,3}(?:\.\d+)?)@(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?Z(!?)$/.exec(part.trim());
    if (!m) return { error: `step ${JSON.stringify(part)}: expected PERCENT@YYYY-MM-DDTHH:MM[:SS]Z, with ! after it for a gated step` };
    raw.push({ at: `${m[2]}${m[3] ?? ':00'}Z`, percent: Number(m[1]), ...(m[4] === '!' ? { gated: true } : {}) });
  }
  try {
    return {
      base,
      steps: parseSchedule(raw, (detail) => {
        throw new AgentError('ANC_USAGE', detail);
      }),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The schedule as it goes into the pointer JSON. */
export function scheduleJson(schedule: readonly ScheduleStep[]): Array<{ at: string; percent: number; gated?: true }> {
  return schedule.map((s) => ({ at: s.at, percent: s.percent, ...(s.gated ? { gated: true as const } : {}) }));
}

/**
 * A gated schedule travels as two keys: `schedule` holds only the steps before the first gated one, and
 * `gatedSchedule` all of them. An agent that predates gating reads `schedule` and so stays at the last
 * ungated step: it never widens on the clock past a gate it cannot check.
 */
export function splitGated(schedule: readonly ScheduleStep[]): { schedule: ScheduleStep[]; gatedSchedule?: ScheduleStep[] } {
  const first = schedule.findIndex((s) => s.gated === true);
  return first < 0 ? { schedule: [...schedule] } : { schedule: schedule.slice(0, first), gatedSchedule: [...schedule] };
}

/** The two keys read back: the gated schedule when present (its ungated prefix must be `schedule`). */
export function joinGated(schedule: ScheduleStep[] | undefined, gated: ScheduleStep[] | undefined, fail: (detail: string) => never) {
  if (gated === undefined) return schedule;
  const prefix = splitGated(gated).schedule;
  const same =
    schedule !== undefined &&
    schedule.length === prefix.length &&
    prefix.every((s, i) => s.at === schedule[i]!.at && s.percent === schedule[i]!.percent);
  if (!same) fail('schedule must be the steps of gatedSchedule before its first gated step');
  return gated;
}

/**
 * The percent open at `now` when gated steps need evidence: the clock's steps up to the first gated one that
 * `opened` (the highest gated step number, 1-based, the node holds fresh evidence for) does not cover.
 */
export function openPercent(schedule: readonly ScheduleStep[], now: Date, opened: number): { percent: number; awaiting?: number } {
  let percent = 0;
  for (const [i, step] of schedule.entries()) {
    if (step.atMs > now.getTime()) break;
    if (step.gated && i + 1 > opened) return { percent, awaiting: i };
    percent = step.percent;
  }
  return { percent };
}

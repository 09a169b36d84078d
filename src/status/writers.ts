// Which build wrote each agent event: events carry only the reference's bytes (D16), so the writer is the
// process whose start line in the agent log (`task`, `version`, `binary`: platform/build-info.startAttrs)
// came last before the event was written. Both clocks are absolute: an event file is named by its unix
// nanoseconds, a log line's time carries its zone offset. Pure.

export interface EventWriter {
  version: string;
  binary: 'baked' | 'hotfix' | 'unknown';
}

interface StartLine extends EventWriter {
  task: string;
  at: number;
}

/** Runs beside the others (the CustomScript extension starts it while provision runs): never a guess. */
const CONCURRENT_TASKS = new Set(['ProvisionWait']);
/**
 * An event's name (unix ns from a monotonic clock anchored to the wall clock at millisecond precision) may
 * read up to 1 ms before the log line written just ahead of it; the next command of the launcher starts
 * tens of milliseconds later (a process start), so 2 ms never reaches it.
 */
const SLACK_MS = 2;

export function startLines(log: Record<string, unknown>[]): StartLine[] {
  return log.flatMap((l) => {
    const at = typeof l.time === 'string' ? Date.parse(l.time) : Number.NaN;
    if (typeof l.version !== 'string' || typeof l.binary !== 'string' || typeof l.task !== 'string' || !Number.isFinite(at)) return [];
    const binary = l.binary === 'baked' || l.binary === 'hotfix' ? l.binary : 'unknown';
    return [{ task: l.task, version: l.version, binary, at }];
  });
}

/** The writer of an agent event of `task` named `file` (`<unix ns>.json`), or undefined when the log cannot tell. */
export function eventWriter(lines: StartLine[], task: string, file: string): EventWriter | undefined {
  const ns = /^(\d{16,})\.json$/.exec(file)?.[1];
  if (ns === undefined) return undefined;
  const at = Number(BigInt(ns) / 1_000_000n);
  // The last command started before it: its own task's, or one of the sequential boot commands (an event
  // a command writes under another task, CompareEnvs or ScriptHotfix inside provision, is theirs).
  const line = lines.filter((l) => l.at <= at + SLACK_MS && (l.task === task || !CONCURRENT_TASKS.has(l.task))).pop();
  return line ? { version: line.version, binary: line.binary } : undefined;
}

// The guest-agent events of a boot as a timeline: one row per step (task, start, duration, outcome). The
// agent's `Starting` event and its final event are one row; a step that started and has no final event
// yet is `running` (an ongoing boot). The scripts' own events are rows of their own. Pure.

export interface RawEvent {
  /** Event file name: `<unix ns or ms>.json`, the order events were written in. */
  file: string;
  Timestamp?: string;
  OperationId?: string;
  Version?: string;
  TaskName?: string;
  EventLevel?: string;
  Message?: string;
}

export interface TimelineRow {
  task: string;
  /** `YYYY-MM-DD HH:MM:SS.mmm` as the event says (node-local time). */
  start: string;
  /**
   * The start as an instant (unix ms), the same in every reader's time zone: from the event file's name
   * (unix time), else the node-local text read as UTC (an AKS node's zone); null when neither parses.
   */
  at: number | null;
  /** Whole milliseconds, or null while running. */
  durationMs: number | null;
  outcome: 'ok' | 'error' | 'running';
  message: string;
  /** An event of aks-node-controller itself (else of the provisioning scripts). */
  agent: boolean;
  /** Which build wrote the step (agent events only, from the agent log's start lines: status/writers.ts). */
  version?: string;
  binary?: 'baked' | 'hotfix' | 'unknown';
}

const AGENT_PREFIX = 'AKS.AKSNodeController.';

const eventTime = (text: string | undefined) => (text ? Date.parse(`${text.replace(' ', 'T')}Z`) : Number.NaN);

/** 2000-01-01: an event file name below it is not a unix time (hand-made fixtures, other writers). */
const PLAUSIBLE_MS = 946_684_800_000;

/** The unix ms an event file is named after (the agent names them in ns, the scripts in ms). */
export function fileInstant(file: string): number | null {
  const digits = /^\d+/.exec(file)?.[0];
  if (!digits) return null;
  const scale = digits.length >= 18 ? 1_000_000 : digits.length >= 15 ? 1000 : digits.length >= 12 ? 1 : 0.001;
  const ms = Number(digits) / scale;
  return ms >= PLAUSIBLE_MS ? Math.floor(ms) : null;
}

/** An event's start instant, independent of the reader's zone. */
export function eventInstant(event: RawEvent): number | null {
  const named = fileInstant(event.file);
  if (named !== null) return named;
  const parsed = eventTime(event.Timestamp);
  return Number.isFinite(parsed) ? parsed : null;
}

function durationOf(start: RawEvent, end: RawEvent): number | null {
  const fromMessage = /durationMs=(\d+)/.exec(end.Message ?? '');
  if (start === end && fromMessage) return Number(fromMessage[1]);
  const ms = eventTime(end.OperationId) - eventTime(start.Timestamp);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

const messageOf = (event: RawEvent) => (event.Message ?? '').split(' | startTime=')[0]!.replace(/^startTime=.*$/, '');

/** Orders by file name (the write order), numerically. */
export function sortEvents(events: RawEvent[]): RawEvent[] {
  const key = (e: RawEvent) => BigInt(/^\d+/.exec(e.file)?.[0] ?? '0');
  return [...events].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** `writerOf`: which build wrote an agent event (never read from the event's text, D16). */
export function buildTimeline(
  events: RawEvent[],
  writerOf: (task: string, file: string) => { version: string; binary: TimelineRow['binary'] } | undefined = () => undefined,
): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const open = new Map<string, { row: TimelineRow; start: RawEvent }>();
  for (const event of sortEvents(events)) {
    const name = event.TaskName ?? '(no task name)';
    const agent = name.startsWith(AGENT_PREFIX);
    const task = agent ? name.slice(AGENT_PREFIX.length) : name;
    const message = messageOf(event);
    // A recall is an intended undo: its record (level Error on the wire, for the fleet's eyes) is no failed step.
    const error = event.EventLevel === 'Error' && !(agent && task === 'HotfixFallback' && message.startsWith('recall:'));
    const base = {
      task,
      start: event.Timestamp ?? '',
      at: eventInstant(event),
      message,
      agent,
      ...(agent ? writerOf(task, event.file) : undefined),
    };
    if (agent && message === 'Starting') {
      const row: TimelineRow = { ...base, durationMs: null, outcome: 'running' };
      rows.push(row);
      open.set(task, { row, start: event });
      continue;
    }
    const started = agent ? open.get(task) : undefined;
    if (started) {
      open.delete(task);
      Object.assign(started.row, { durationMs: durationOf(started.start, event), outcome: error ? 'error' : 'ok', message });
      continue;
    }
    rows.push({ ...base, durationMs: durationOf(event, event), outcome: error ? 'error' : 'ok' });
  }
  // In time order (the scripts name their event files in another clock than the agent); ties keep file order.
  const at = (row: TimelineRow) => row.at ?? Number.POSITIVE_INFINITY;
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => at(a.row) - at(b.row) || a.i - b.i)
    .map(({ row }) => row);
}

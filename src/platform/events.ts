// Guest-agent telemetry events, byte-compatible with spec 3: one file per event named
// `<unix nanoseconds>.json`, mode 0644, Go json.Marshal field order and escaping, no trailing newline.
import { fs, path } from './builtins.ts';
import type { Clock } from './clock.ts';
import { formatEventTime } from './clock.ts';
import { atomicWrite } from './fs.ts';
import { goJson } from './json.ts';
import { TEMP_PREFIX } from './temp-files.ts';
import { errorMessage } from './errors.ts';
import type { Logger } from './log.ts';

export type EventLevel = 'Informational' | 'Error';

export interface AgentEvent {
  task: string;
  message: string;
  level: EventLevel;
  start: Date;
  end: Date;
}

export interface EventSink {
  emit(event: AgentEvent): void;
}

/** The reference's constant `Version` (spec 3): telemetry downstream of the VM agent keys on the schema. */
export const EVENT_SCHEMA_VERSION = '1.23';

/**
 * The reference's event, byte for byte: the Message ends at `durationMs=<n>` (D16; readers anchored at
 * its end key on that). Which build wrote an event, `status` takes from the agent log's start lines.
 */
export function renderEvent(event: AgentEvent): string {
  const start = formatEventTime(event.start);
  const end = formatEventTime(event.end);
  const durationMs = Math.trunc(event.end.getTime() - event.start.getTime());
  const timing = `startTime=${start} endTime=${end} durationMs=${durationMs}`;
  return goJson({
    Timestamp: start,
    OperationId: end,
    Version: EVENT_SCHEMA_VERSION,
    TaskName: `AKS.AKSNodeController.${event.task}`,
    EventLevel: event.level,
    Message: event.message === '' ? timing : `${event.message} | ${timing}`,
    EventPid: '0',
    EventTid: '0',
  });
}

export function createEventSink(eventsDir: string, clock: Clock, log: Logger): EventSink {
  return {
    emit(event) {
      try {
        fs.mkdirSync(eventsDir, { recursive: true, mode: 0o755 });
        // Whole or nothing (temp, fsync, rename): the guest agent never picks up a 0-byte or cut-off
        // event, even on a full disk. The temp name does not end in .json, so it is never read as one.
        atomicWrite(path.join(eventsDir, `${clock.unixNanos()}.json`), renderEvent(event), {
          mode: 0o644,
          tempPrefix: TEMP_PREFIX.event,
        });
      } catch (error) {
        const op = (error as { syscall?: string }).syscall ?? 'write';
        log.error('failed to write guest agent event', { task: event.task, operation: op, error: errorMessage(error) });
      }
    },
  };
}

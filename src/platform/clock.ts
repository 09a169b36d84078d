// Wall clock and sleeping, injectable so tests can pin time.
import { fs } from './builtins.ts';

export interface Clock {
  now(): Date;
  /** Unix time in nanoseconds, strictly increasing within the process (event file names, spec 3). */
  unixNanos(): bigint;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function createRealClock(): Clock {
  let last = 0n;
  const originNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
  return {
    now: () => new Date(),
    unixNanos() {
      let ns = originNs + process.hrtime.bigint();
      if (ns <= last) ns = last + 1n;
      last = ns;
      return ns;
    },
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Zone names that are UTC under every tz database (links to Etc/UTC). */
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'UCT', 'Etc/UCT', 'Universal', 'Etc/Universal', 'Zulu', 'Etc/Zulu']);

/**
 * Whether the process's local zone is plainly UTC, decided without the runtime's time-zone database:
 * the first local-time call (getHours, getTimezoneOffset) loads that database, ~4 ms of every boot-path
 * command. TZ names a UTC zone, or TZ is unset and /etc/localtime links into the database's UTC entry
 * (a node's default). Anything else, or any doubt, answers false and local time goes the usual way.
 */
export function zoneIsPlainUtc(tz: string | undefined, localtimeLink: () => string | undefined): boolean {
  if (tz !== undefined) return UTC_ZONES.has(tz);
  const link = localtimeLink();
  const zone = link === undefined ? undefined : /\/zoneinfo\/(.+)$/.exec(link)?.[1];
  return zone !== undefined && UTC_ZONES.has(zone);
}

// The zone the runtime reads, not a node file: deliberately not under AKS_NODE_ROOT.
const LOCALTIME = '/etc/localtime';
const zone = { utc: undefined as boolean | undefined };

function localIsUtc(): boolean {
  zone.utc ??= zoneIsPlainUtc(process.env.TZ, () => {
    try {
      return fs.readlinkSync(LOCALTIME);
    } catch {
      return undefined;
    }
  });
  return zone.utc;
}

/** The calendar fields of a date in the local zone (read through the UTC getters when that zone is UTC). */
function localFields(date: Date) {
  if (localIsUtc())
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hours: date.getUTCHours(),
      minutes: date.getUTCMinutes(),
      seconds: date.getUTCSeconds(),
      ms: date.getUTCMilliseconds(),
      offsetMin: 0,
    };
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hours: date.getHours(),
    minutes: date.getMinutes(),
    seconds: date.getSeconds(),
    ms: date.getMilliseconds(),
    offsetMin: -date.getTimezoneOffset(),
  };
}

/** Go layout `2006-01-02 15:04:05.000` in the process's local zone (guest-agent events, spec 3). */
export function formatEventTime(date: Date): string {
  const f = localFields(date);
  return `${f.year}-${pad(f.month)}-${pad(f.day)} ${pad(f.hours)}:${pad(f.minutes)}:${pad(f.seconds)}.${pad(f.ms, 3)}`;
}

/** Go RFC 3339 with trailing fractional zeros trimmed and the local offset (`Z` for UTC), spec 2. */
export function formatLogTime(date: Date): string {
  const f = localFields(date);
  const fraction = f.ms === 0 ? '' : '.' + pad(f.ms, 3).replace(/0+$/, '');
  const offsetMin = f.offsetMin;
  const zone =
    offsetMin === 0 ? 'Z' : `${offsetMin > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
  return `${f.year}-${pad(f.month)}-${pad(f.day)}T${pad(f.hours)}:${pad(f.minutes)}:${pad(f.seconds)}${fraction}${zone}`;
}

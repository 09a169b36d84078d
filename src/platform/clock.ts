// Wall clock and sleeping, injectable so tests can pin time.

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

/** Go layout `2006-01-02 15:04:05.000` in the process's local zone (guest-agent events, spec 3). */
export function formatEventTime(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
  );
}

/** Go RFC 3339 with trailing fractional zeros trimmed and the local offset (`Z` for UTC), spec 2. */
export function formatLogTime(date: Date): string {
  const ms = date.getMilliseconds();
  const fraction = ms === 0 ? '' : '.' + pad(ms, 3).replace(/0+$/, '');
  const offsetMin = -date.getTimezoneOffset();
  const zone =
    offsetMin === 0 ? 'Z' : `${offsetMin > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${fraction}${zone}`
  );
}

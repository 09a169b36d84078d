// RFC 3339 as the pointer reads it (expiry, schedule steps). Pure.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 timestamp with its zone, as a Date; undefined when it is not one. Every field must be in
 * range for its calendar (2027-02-30 and 24:00:00 are refused, as Go's time.Parse refuses them), never
 * rolled over into another date.
 */
export function parseRfc3339(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return undefined;
  const ms = Date.parse(text.toUpperCase());
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

// The pre-publish warning about a pointer's expiry (render, sign, verify): under an hour away, nodes that
// check later stage nothing; over 90 days away, a superseded or leaked pointer stays valid that long
// (docs/pointer-signing.md: weeks, not years). And which key set `verify` checked: a binary that trusts
// no key refuses every signature, and then the binary, not the signature, is what to fix. Pure.
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const MAX_EXPIRY_DAYS = 90;

export function expiryWarning(expires: string | undefined, now: Date): string | undefined {
  const at = expires === undefined ? Number.NaN : Date.parse(expires);
  if (Number.isNaN(at)) return undefined;
  const left = at - now.getTime();
  if (left <= 0) return undefined;
  if (left < HOUR_MS)
    return `the pointer expires in ${Math.ceil(left / 60_000)} minutes (${expires}): nodes that check after that stage nothing; render it with a later --expires`;
  if (left > MAX_EXPIRY_DAYS * DAY_MS)
    return `the pointer expires in ${Math.floor(left / DAY_MS)} days (${expires}), over ${MAX_EXPIRY_DAYS}: a superseded or leaked pointer stays valid that long; use weeks, not years`;
  return undefined;
}

/** verify's key-set line, its warnings (expiry) and, for a binary that trusts no key, the real remedy. */
export function keySetNotes(
  report: { outcome: string; expires?: string; signed: boolean; warnings: string[] },
  keys: ReadonlyArray<{ keyid: string }>,
  source: string,
  fromFile: boolean,
  now: Date,
): { keySet: string; warnings: string[]; hint?: string } {
  const ids = keys.map((k) => k.keyid).join(', ');
  const keySet = fromFile
    ? `the key set in ${source} (${keys.length} keys${ids ? `: ${ids}` : ''})`
    : `the keys baked into ${source} (${keys.length === 0 ? 'none: built without --pointer-keys' : `${keys.length}: ${ids}`})`;
  const expiry = expiryWarning(report.expires, now);
  const warnings = [...report.warnings, ...(expiry ? [expiry] : [])];
  const noKeys = keys.length === 0 && report.signed && report.outcome === 'signatureInvalid';
  const hint = noKeys
    ? `${fromFile ? source : `this binary (${source})`} trusts no pointer signing key, so no signature can verify: the cause is the key set, not the signature. Verify with the agent the nodes run (built with --pointer-keys), or pass --keys FILE`
    : undefined;
  return { keySet, warnings, ...(hint ? { hint } : {}) };
}

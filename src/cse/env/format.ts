// Formatting primitives shared by every area builder (config-contract 3.1). Pure: no I/O.
import { Secret } from '../../platform/secret.ts';

/** A partial CSE environment produced by one area builder. */
export type EnvPart = Record<string, string | Secret>;

/** Go bool formatting. */
export const bool = (value: boolean | undefined): string => (value === true ? 'true' : 'false');

/** Go int32 formatting (base 10, `-` for negatives); unset reads as 0 (getter semantics). */
export const int = (value: number | undefined): string => String(Math.trunc(value ?? 0));

/** Standard base64 with padding of the UTF-8 bytes of a string. */
export const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A secret env value (config-contract 5, D14): prints as `<redacted>` everywhere but the child env. */
export const secret = (value: string | undefined): Secret => new Secret(value ?? '');

/** Go byte-wise (code-point) string order; JS `<` compares UTF-16 code units, which differs for astral chars. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

export const sortedKeys = (map: Record<string, unknown> | undefined): string[] => Object.keys(map ?? {}).sort(compareCodePoints);

/** `k=v` pairs of a map sorted by key, joined by `separator` (KUBELET_FLAGS, KUBELET_NODE_LABELS). */
export const joinSortedPairs = (map: Record<string, string> | undefined, separator: string): string =>
  sortedKeys(map)
    .map((k) => `${k}=${map![k]}`)
    .join(separator);

/**
 * Go `%v` of a float64 (strconv 'g' with the shortest precision): exponent form when the decimal
 * exponent X is < -4 or >= 6 (`1e+06`, `1e-05`), plain decimal otherwise; NaN, +Inf, -Inf, -0.
 */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, expText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const mag = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${mag}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}${fracPart ? `.${fracPart}` : ''}`;
}

/** Removes every `\n` and `\r` (HTTP_PROXY_TRUSTED_CA, CUSTOM_CA_CERT_<i>). */
export const stripNewlines = (text: string | undefined): string => (text ?? '').replace(/[\r\n]/g, '');

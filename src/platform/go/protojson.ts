// protojson's number rules (google.golang.org/protobuf encoding/protojson, which the reference agent
// decodes its config with), config-contract 2.3 and DECISIONS D7 "numeric strings: as the reference".
// A number given as a JSON string is read like this: the string must be unchanged by Go's
// strings.TrimSpace; then ONE number token is read from its start by protojson's own tokenizer, which
// ends a token at any byte outside [-+._a-zA-Z0-9] and ignores whatever follows. So "600 seconds",
// "1,2", "8:00" and "7 x" are 600, 1, 8 and 7, while "1 ", "2x", "1e3x" and "" are errors. The
// tokenizer accepts an exponent without digits ("1e" in "1e x"): the integer reading ignores it (1),
// the floating-point one (strconv.ParseFloat) rejects it. A string holding a lone UTF-16 surrogate escape
// anywhere ("600\ud800") never gets that far: protojson's string tokenizer rejects it whole (issue 32, N5).
// Pure.
import { goTrimSpace } from './strings.ts';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** protojson's isNotDelim: the bytes that may not follow a number token. */
const continuesToken = (c: number): boolean =>
  c === 0x2d || c === 0x2b || c === 0x2e || c === 0x5f || isDigit(c) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** protojson's parseNumber: the length of the number token at the start of `s`, or undefined. */
function numberTokenLength(s: string): number | undefined {
  let n = 0;
  const at = (i: number): number => s.charCodeAt(i); // NaN past the end: every test below is false
  if (at(n) === 0x2d) n++; // '-'
  if (at(n) === 0x30) n++;
  else if (at(n) >= 0x31 && at(n) <= 0x39) while (isDigit(at(n))) n++;
  else return undefined;
  if (at(n) === 0x2e && isDigit(at(n + 1))) {
    n += 2;
    while (isDigit(at(n))) n++;
  }
  if ((at(n) === 0x65 || at(n) === 0x45) && n + 1 < s.length) {
    n++;
    if (at(n) === 0x2b || at(n) === 0x2d) {
      n++;
      if (n >= s.length) return undefined;
    }
    while (isDigit(at(n))) n++;
  }
  return n < s.length && continuesToken(at(n)) ? undefined : n;
}

/**
 * The number token a protojson numeric STRING stands for (its raw text), or undefined when it is an error.
 * `wellFormed`: the scanner's verdict that the string held no lone surrogate escape (json-scan.ts).
 */
export function protojsonStringNumber(text: string, wellFormed: boolean): string | undefined {
  if (!wellFormed || goTrimSpace(text) !== text || text === '') return undefined;
  const length = numberTokenLength(text);
  return length === undefined ? undefined : text.slice(0, length);
}

/**
 * protojson's integer reading of a number token (parseNumberParts + normalizeToIntString +
 * strconv.ParseInt): integral after applying the exponent, at most 20 digits, within `bits`.
 */
export function protojsonInt(raw: string, bits = 32): number | undefined {
  const m = /^(-?)(?:0|([1-9][0-9]*))(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]*))?$/.exec(raw);
  if (!m) return undefined;
  const intp = m[2] ?? '';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const expText = m[4] ?? '';
  if (expText === '+' || expText === '-') return undefined; // a sign with no digits is cut off
  let digits: string;
  if (intp === '' && frac === '') digits = '0';
  else {
    const exp = expText === '' ? 0 : Number(expText);
    if (!Number.isSafeInteger(exp) || exp > 2147483647 || exp < -2147483648) return undefined;
    if (exp >= 0) {
      if (frac.length > exp || intp.length + exp > 20) return undefined;
      digits = intp + frac + '0'.repeat(exp - frac.length);
    } else {
      const point = intp.length + exp;
      if (frac.length > 0 || point < 0 || /[1-9]/.test(intp.slice(point))) return undefined;
      digits = intp.slice(0, point);
    }
  }
  const value = BigInt((m[1] ?? '') + (digits === '' ? '0' : digits));
  const limit = 1n << BigInt(bits - 1);
  return value >= -limit && value < limit ? Number(value) : undefined;
}

/** protojson's floating-point reading of a number token: strconv.ParseFloat(raw, 64), finite only. */
export function protojsonFloat(raw: string): number | undefined {
  if (!/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

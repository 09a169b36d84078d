// Go encoding/json compatibility for the files other programs read (events, provision.json, pointer).
import { goEqualFold } from './go/strings.ts';

/**
 * JSON.stringify, then the HTML-safe escapes Go's json.Marshal applies (`<`, `>`, `&`, U+2028, U+2029),
 * and `\ufffd` for a lone surrogate, which JSON.stringify escapes as itself (`\ud800`) and Go, to which
 * it is invalid UTF-8, writes as `\ufffd`.
 */
export function goJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  // These characters can only occur inside JSON strings, so escaping them textually is safe.
  return text
    .replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    .replace(LONE_SURROGATE_ESCAPE, '$1\\ufffd');
}

/** A `\udXXX` surrogate escape (JSON.stringify writes only lone ones so) after an even run of backslashes. */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * JSON.parse with Go encoding/json's string decoding: a `\u` escape of a UTF-16 surrogate that does not
 * form a pair with the escape right after it decodes to U+FFFD (JSON.parse would keep the lone
 * surrogate, which then prints as `\ud800` instead of U+FFFD and compares unequal). The escapes are
 * rewritten before parsing, keeping the text's length so error offsets stay right. Throws as JSON.parse.
 * Every reader of a document the reference decodes with encoding/json goes through here.
 */
export function parseGoJson(text: string): unknown {
  // A raw lone surrogate (text that came from another JS string) is what invalid UTF-8 is to Go: U+FFFD.
  const wellFormed = text.replace(LONE_SURROGATE, '\ufffd');
  return JSON.parse(wellFormed.includes('\\') ? replaceLoneSurrogateEscapes(wellFormed) : wellFormed);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/y;
const hexAt = (text: string, at: number): number => parseInt(text.slice(at + 2, at + 6), 16);

function replaceLoneSurrogateEscapes(text: string): string {
  let out = '';
  let from = 0;
  for (let i = text.indexOf('\\'); i !== -1; i = text.indexOf('\\', i)) {
    SURROGATE_ESCAPE.lastIndex = i;
    if (!SURROGATE_ESCAPE.test(text)) {
      i += 2; // any other escape, including `\\`, is two characters long as far as this scan cares
      continue;
    }
    const unit = hexAt(text, i);
    SURROGATE_ESCAPE.lastIndex = i + 6;
    if (unit < 0xdc00 && SURROGATE_ESCAPE.test(text) && hexAt(text, i + 6) >= 0xdc00) {
      i += 12; // a high surrogate followed by a low one: a valid pair
      continue;
    }
    out += text.slice(from, i) + '\\ufffd';
    from = i += 6;
  }
  return out + text.slice(from);
}

/**
 * Go encoding/json key matching for a string or struct field: EVERY key equal to `name` exactly or under
 * Go's case folding decodes into the field, in document order, so the last one wins, and a `null` one
 * leaves the earlier value (issue 24). Documents where the exact order matters beyond what JSON.parse
 * keeps (a key repeated around its case variants) go through platform/go/unmarshal instead.
 */
export function goLookupField(obj: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  for (const key of Object.keys(obj)) {
    if (key !== name && !goEqualFold(key, name)) continue;
    if (obj[key] !== null || found === undefined) found = obj[key];
  }
  return found;
}

/** The JSON kind Go names in `cannot unmarshal <kind> into ...` (null, array, object, string, number, boolean). */
export function goJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

// Go encoding/json's syntax check (checkValid, the scanner every Unmarshal runs first), byte for byte:
// the first error in Go's words (`invalid character 'x' after top-level value`, `unexpected end of JSON
// input`, `invalid character '[' exceeded max depth`). It works on bytes, as Go does: a UTF-8 byte order
// mark is the character 'ï' (0xEF), invalid UTF-8 inside a string is no syntax error. The message
// quotes one character at most, never the document. Pure.

/** encoding/json maxNestingDepth. */
export const GO_JSON_MAX_DEPTH = 10_000;

const OBJECT_KEY = 0;
const OBJECT_VALUE = 1;
const ARRAY_VALUE = 2;

type Step = (c: number) => void;

/** Go's quoteChar: the byte as a rune, strconv.Quote'd, between single quotes. */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuoteRune(c)}'`;
}

const SHORT_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 92: '\\\\' };

/** strconv.Quote of one rune below U+0100, without the quotes (Go's IsPrint for that range). */
function goQuoteRune(c: number): string {
  if (SHORT_ESCAPES[c] !== undefined) return SHORT_ESCAPES[c]!;
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  // C1 controls, NO-BREAK SPACE and SOFT HYPHEN are not printable to Go.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u${c.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(c);
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** The first syntax error of `bytes` as Go's json.Unmarshal reports it, or undefined when valid JSON. */
export function goJsonSyntaxError(bytes: Uint8Array, maxDepth = GO_JSON_MAX_DEPTH): string | undefined {
  const stack: number[] = [];
  let error: string | undefined;
  let ended = false;
  let step: Step;

  const fail = (c: number, context: string) => {
    error ??= `invalid character ${goQuoteChar(c)} ${context}`;
    step = () => {};
  };
  const push = (c: number, state: number, next: Step) => {
    stack.push(state);
    if (stack.length <= maxDepth) step = next;
    else fail(c, 'exceeded max depth');
  };
  const literal = (rest: string, name: string, i = 0): Step => {
    return (c) => {
      if (c === rest.charCodeAt(i)) step = i + 1 === rest.length ? endValue : literal(rest, name, i + 1);
      else fail(c, `in literal ${name} (expecting ${goQuoteChar(rest.charCodeAt(i))})`);
    };
  };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7b) return push(c, OBJECT_KEY, beginStringOrEmpty);
    if (c === 0x5b) return push(c, ARRAY_VALUE, beginValueOrEmpty);
    if (c === 0x22) return void (step = inString);
    if (c === 0x2d) return void (step = neg);
    if (c === 0x30) return void (step = zero);
    if (c === 0x74) return void (step = literal('rue', 'true'));
    if (c === 0x66) return void (step = literal('alse', 'false'));
    if (c === 0x6e) return void (step = literal('ull', 'null'));
    if (c >= 0x31 && c <= 0x39) return void (step = one);
    fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) return endValue(c);
    beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      stack[stack.length - 1] = OBJECT_VALUE;
      return endValue(c);
    }
    beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) step = inString;
    else fail(c, 'looking for beginning of object key string');
  };
  const endTop: Step = (c) => {
    if (!isSpace(c)) fail(c, 'after top-level value');
  };
  const endValue: Step = (c) => {
    if (stack.length === 0) {
      step = endTop;
      ended = true;
      return endTop(c);
    }
    if (isSpace(c)) return void (step = endValue);
    const top = stack[stack.length - 1]!;
    if (top === OBJECT_KEY) {
      if (c === 0x3a) {
        stack[stack.length - 1] = OBJECT_VALUE;
        step = beginValue;
      } else fail(c, 'after object key');
    } else if (top === OBJECT_VALUE) {
      if (c === 0x2c) {
        stack[stack.length - 1] = OBJECT_KEY;
        step = beginString;
      } else if (c === 0x7d) pop();
      else fail(c, 'after object key:value pair');
    } else if (c === 0x2c) step = beginValue;
    else if (c === 0x5d) pop();
    else fail(c, 'after array element');
  };
  const pop = () => {
    stack.pop();
    step = endValue;
    if (stack.length === 0) {
      step = endTop;
      ended = true;
    }
  };
  const inString: Step = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inStringEsc;
    else if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEsc: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) step = inString;
    else if (c === 0x75) step = escU(0);
    else fail(c, 'in string escape code');
  };
  const escU =
    (n: number): Step =>
    (c) => {
      if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
      step = n === 3 ? inString : escU(n + 1);
    };
  const neg: Step = (c) => {
    if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = one;
    else fail(c, 'in numeric literal');
  };
  const one: Step = (c) => {
    if (isDigit(c)) return;
    zero(c);
  };
  const zero: Step = (c) => {
    if (c === 0x2e) step = dot;
    else if (c === 0x65 || c === 0x45) step = exp;
    else endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) step = dot0;
    else fail(c, 'after decimal point in numeric literal');
  };
  const dot0: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) step = exp;
    else endValue(c);
  };
  const exp: Step = (c) => {
    if (c === 0x2b || c === 0x2d) step = expSign;
    else expSign(c);
  };
  const expSign: Step = (c) => {
    if (isDigit(c)) step = exp0;
    else fail(c, 'in exponent of numeric literal');
  };
  const exp0: Step = (c) => {
    if (isDigit(c)) return;
    endValue(c);
  };

  step = beginValue;
  for (const c of bytes) {
    step(c);
    if (error !== undefined) return error;
  }
  // Go's eof(): one more space ends a number or literal at the top; anything still open is the end.
  if (ended) return undefined;
  step(0x20);
  if (error !== undefined) return error;
  return ended ? undefined : 'unexpected end of JSON input';
}

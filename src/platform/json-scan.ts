// A small, strict JSON (RFC 8259) parser that keeps what JSON.parse throws away: every object entry in
// document order (so duplicate keys are visible), the raw text of numbers (so int32 integrality and
// range are checked exactly), lone-surrogate escapes, and the offset of every value (for messages).
// It never throws: a syntax error stops the scan and is returned with the partial tree. Containers are
// attached to their parent as soon as they open, so everything completed before the error is kept;
// a scalar whose token is cut short is not. Nesting is walked with an explicit stack, not recursion, so
// a reader that must accept Go's 10,000 levels (platform/go/unmarshal) shares this one parser.

export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonBool | JsonNull;
export interface JsonObject {
  t: 'object';
  at: number;
  entries: JsonEntry[];
  open: boolean;
}
export interface JsonArray {
  t: 'array';
  at: number;
  items: JsonNode[];
  open: boolean;
}
export interface JsonString {
  t: 'string';
  at: number;
  value: string;
  wellFormed: boolean;
}
export interface JsonNumber {
  t: 'number';
  at: number;
  raw: string;
}
export interface JsonBool {
  t: 'bool';
  at: number;
  value: boolean;
}
export interface JsonNull {
  t: 'null';
  at: number;
}
export interface JsonEntry {
  key: string;
  /** The key holds no lone UTF-16 surrogate escape. */
  keyWellFormed: boolean;
  at: number;
  value: JsonNode;
}

export interface ScanError {
  message: string;
  at: number;
  /** The top-level value was complete: the error is extra text after it, starting at `at`. */
  afterValue?: boolean;
}
export interface ScanResult {
  root: JsonNode | undefined;
  error: ScanError | undefined;
  /** A UTF-8 byte order mark preceded the document (it is skipped). */
  bom: boolean;
}

/** Nesting deeper than this is a syntax error (keeps the recursive config decoder far from the stack limit). */
export const MAX_DEPTH = 512;

export interface ScanOptions {
  /** Containers nested deeper than this are an error (default MAX_DEPTH). */
  maxDepth?: number;
  /** The error message for too deep a nesting (default `nesting deeper than N levels`). */
  depthMessage?: string;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class Stop {
  constructor(
    readonly message: string,
    readonly at: number,
  ) {}
}

export function scanJson(text: string, options: ScanOptions = {}): ScanResult {
  const bom = text.charCodeAt(0) === 0xfeff;
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const s = new Scanner(text, bom ? 1 : 0, maxDepth, options.depthMessage ?? `nesting deeper than ${maxDepth} levels`);
  let root: JsonNode | undefined;
  try {
    s.ws();
    if (s.pos >= text.length) throw new Stop('unexpected end of input (empty document)', s.pos);
    root = s.document((node) => (root = node));
    s.ws();
    if (s.pos < text.length) {
      const message = `unexpected ${describeChar(text, s.pos)} after the top-level value`;
      return { root, error: { message, at: s.pos, afterValue: true }, bom };
    }
    return { root, error: undefined, bom };
  } catch (e) {
    if (e instanceof Stop) return { root, error: { message: e.message, at: e.at }, bom };
    return { root, error: { message: `internal parser error: ${String(e)}`, at: s.pos }, bom };
  }
}

function describeChar(text: string, at: number): string {
  if (at >= text.length) return 'end of input';
  const c = text[at] as string;
  const code = c.charCodeAt(0);
  return code < 0x20 || code > 0x7e ? `character U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `character '${c}'`;
}

class Scanner {
  constructor(
    readonly text: string,
    public pos: number,
    readonly maxDepth: number,
    readonly depthMessage: string,
  ) {}

  ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  expect(ch: string, what: string): void {
    if (this.text[this.pos] !== ch) throw new Stop(`expected ${what}, found ${describeChar(this.text, this.pos)}`, this.pos);
    this.pos++;
  }

  /**
   * Parses one whole value. Containers are handed to their parent (or `attachRoot`) before their
   * content is read; `open` holds the containers not yet closed, innermost last.
   */
  document(attachRoot: (node: JsonNode) => void): JsonNode {
    const t = this.text;
    const open: Array<JsonObject | JsonArray> = [];
    let key: { value: string; wellFormed: boolean; at: number } | undefined;
    const attach = (node: JsonNode): void => {
      const parent = open[open.length - 1];
      if (!parent) attachRoot(node);
      else if (parent.t === 'array') parent.items.push(node);
      else if (key) parent.entries.push({ key: key.value, keyWellFormed: key.wellFormed, at: key.at, value: node });
    };
    const readKey = (): void => {
      this.ws();
      if (t[this.pos] !== '"') throw new Stop(`expected a string key, found ${describeChar(t, this.pos)}`, this.pos);
      const k = this.string();
      key = { value: k.value, wellFormed: k.wellFormed, at: k.at };
      this.ws();
      this.expect(':', "':' after an object key");
      this.ws();
    };
    let root: JsonNode | undefined;
    let value = true; // a value starts at pos (else: a value just ended)
    for (;;) {
      if (value) {
        const c = t[this.pos];
        const at = this.pos;
        if (c === '{' || c === '[') {
          if (open.length >= this.maxDepth) throw new Stop(this.depthMessage, at);
          const node: JsonObject | JsonArray =
            c === '{' ? { t: 'object', at, entries: [], open: true } : { t: 'array', at, items: [], open: true };
          attach(node);
          root ??= node;
          open.push(node);
          this.pos++;
          this.ws();
          if (t[this.pos] === (c === '{' ? '}' : ']')) {
            this.pos++;
            node.open = false;
            open.pop();
            value = false;
          } else if (node.t === 'object') readKey();
          else this.ws();
        } else {
          const node = this.scalar();
          attach(node);
          root ??= node;
          value = false;
        }
        continue;
      }
      const parent = open[open.length - 1];
      if (!parent) return root as JsonNode;
      this.ws();
      if (t[this.pos] === ',') {
        this.pos++;
        if (parent.t === 'object') readKey();
        else this.ws();
        value = true;
        continue;
      }
      if (parent.t === 'object') this.expect('}', "',' or '}' in an object");
      else this.expect(']', "',' or ']' in an array");
      parent.open = false;
      open.pop();
    }
  }

  scalar(): JsonNode {
    const t = this.text;
    const at = this.pos;
    const c = t[at];
    if (c === '"') return this.string();
    if (t.startsWith('true', at)) return ((this.pos += 4), { t: 'bool', at, value: true });
    if (t.startsWith('false', at)) return ((this.pos += 5), { t: 'bool', at, value: false });
    if (t.startsWith('null', at)) return ((this.pos += 4), { t: 'null', at });
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(t);
    if (m && (c === '-' || (c !== undefined && c >= '0' && c <= '9'))) {
      this.pos += m[0].length;
      const next = t[this.pos];
      if (next !== undefined && /[0-9.eE+-]/.test(next)) throw new Stop(`invalid number`, at);
      return { t: 'number', at, raw: m[0] };
    }
    throw new Stop(`unexpected ${describeChar(t, at)} (expected a JSON value)`, at);
  }

  string(): JsonString {
    const t = this.text;
    const at = this.pos;
    this.pos++;
    let out = '';
    let start = this.pos;
    for (;;) {
      if (this.pos >= t.length) throw new Stop('unterminated string', at);
      const code = t.charCodeAt(this.pos);
      if (code === 0x22) break;
      if (code < 0x20) throw new Stop(`control character U+${code.toString(16).padStart(4, '0')} in string`, this.pos);
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(start, this.pos);
      const e = t[this.pos + 1];
      if (e === 'u') {
        const hex = t.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Stop('invalid \\u escape in string', this.pos);
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else if (e !== undefined && ESCAPES[e] !== undefined) {
        out += ESCAPES[e];
        this.pos += 2;
      } else {
        throw new Stop('invalid escape in string', this.pos);
      }
      start = this.pos;
    }
    out += t.slice(start, this.pos);
    this.pos++;
    return { t: 'string', at, value: out, wellFormed: !LONE_SURROGATE.test(out) };
  }
}

/** Maps offsets to 1-based line and column (UTF-16 code units); the line table is built on first use. */
export function lineColumns(text: string): (at: number) => { line: number; column: number } {
  let starts: number[] | undefined;
  return (at) => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - (starts[lo] as number) + 1 };
  };
}

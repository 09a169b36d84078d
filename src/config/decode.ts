// protojson decoding rules (config-contract 2.2-2.5) applied to the scanned JSON tree, with the D7
// twist: a bad value drops only itself (the field, or the one array element / map entry) and is
// reported; every sibling is kept. Both spellings of each field are accepted; a field given twice (in
// either spelling) is an error and the FIRST value is kept.
import { ENUMS, MESSAGES } from './generated/catalog.ts';
import type { FieldInfo } from './generated/catalog.ts';
import type { EnumName, MessageName } from './generated/types.ts';
import { childPath, clip, describeFound, indexPath } from './issues.ts';
import type { ConfigIssue } from './issues.ts';
import type { JsonNode, JsonObject, JsonString } from '../platform/json-scan.ts';
import { protojsonFloat, protojsonInt, protojsonStringNumber } from '../platform/go/protojson.ts';

export interface DecodeContext {
  issues: ConfigIssue[];
  /** ` (line L, column C)` for an offset in the input. */
  where(at: number): string;
}

type Decoded =
  | { ok: true; value: unknown }
  | { ok: false; expected: string }
  | { ok: 'drop'; warning: string }
  | { ok: 'kept'; value: unknown; warning: string; expected: string };

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export const EXPECTED = {
  string: 'a JSON string',
  wellFormed: 'a well-formed string (no lone surrogate escape)',
  bool: 'true or false (JSON boolean, not a string or number)',
  int32: `an integer from ${INT32_MIN} to ${INT32_MAX} (JSON number or numeric string)`,
  double: 'a finite number (JSON number or numeric string) or one of "NaN", "Infinity", "-Infinity"',
  repeated: 'a JSON array of strings',
  map: 'a JSON object',
} as const;

const indexes = new Map<MessageName, Map<string, FieldInfo>>();

/** Field lookup by JSON name first, then proto name (exact, case-sensitive). */
export function fieldByKey(message: MessageName, key: string): FieldInfo | undefined {
  let index = indexes.get(message);
  if (!index) {
    index = new Map();
    for (const f of MESSAGES[message].fields) index.set(f.proto, f);
    for (const f of MESSAGES[message].fields) index.set(f.json, f);
    indexes.set(message, index);
  }
  return index.get(key);
}

/** Exact int32 from a JSON number token: integral (exponent/fraction allowed) and in range. */
export function parseInt32(raw: string): number | undefined {
  const value = protojsonInt(raw, 32);
  return value === 0 ? 0 : value;
}

/**
 * The number token of a numeric string (protojson: one token read from the start), and whether text
 * follows it ("600 seconds"), which the reference ignores and we keep the value but warn about.
 */
function stringToken(node: JsonNode): { token: string | undefined; trailing: boolean } {
  if (node.t !== 'string') return { token: undefined, trailing: false };
  const token = protojsonStringNumber(node.value, node.wellFormed);
  return { token, trailing: token !== undefined && token.length < node.value.length };
}

/** protojson double: numbers, numeric strings (as for int32), "NaN", "Infinity", "-Infinity"; finite otherwise. */
export function parseDouble(node: JsonNode): number | undefined {
  if (node.t === 'number') return protojsonFloat(node.raw);
  if (node.t !== 'string') return undefined;
  if (node.value === 'NaN') return NaN;
  if (node.value === 'Infinity') return Infinity;
  if (node.value === '-Infinity') return -Infinity;
  const { token } = stringToken(node);
  return token === undefined ? undefined : protojsonFloat(token);
}

/** int32 or double (JSON number or numeric string); a string with text after its number is kept with a warning. */
function decodeNumber(node: JsonNode, type: 'int32' | 'double'): Decoded {
  const token = stringToken(node);
  const n =
    type === 'double'
      ? parseDouble(node)
      : node.t === 'number'
        ? parseInt32(node.raw)
        : token.token === undefined
          ? undefined
          : parseInt32(token.token);
  const expected = EXPECTED[type];
  // The reference's tokenizer rejects such a string whole (N5); D7: this field alone is dropped.
  if (node.t === 'string' && !node.wellFormed) return { ok: false, expected: `${expected}, in a string without a lone surrogate escape` };
  if (n === undefined) return { ok: false, expected };
  if (!token.trailing) return { ok: true, value: n };
  const text = clip(JSON.stringify((node as JsonString).value));
  const warning = `numeric string ${text} read as ${n}, as the reference reads it: the text after the number is ignored`;
  return { ok: 'kept', value: n, warning, expected };
}

function enumExpected(e: EnumName): string {
  return `an enum ${e} value name (${Object.keys(ENUMS[e]).join(', ')}) or an int32 number`;
}

function decodeEnum(node: JsonNode, e: EnumName): Decoded {
  const values = ENUMS[e];
  if (node.t === 'string') {
    // The reference's tokenizer rejects a lone surrogate escape before any name lookup (N17): D7 bad value.
    if (!node.wellFormed) return { ok: false, expected: `${enumExpected(e)}, in a string without a lone surrogate escape` };
    if (Object.hasOwn(values, node.value)) return { ok: true, value: node.value };
    return { ok: 'drop', warning: `unknown ${e} value name ${clip(JSON.stringify(node.value))} (field left unset)` };
  }
  if (node.t === 'number') {
    const n = parseInt32(node.raw);
    if (n === undefined) return { ok: false, expected: enumExpected(e) };
    const name = Object.keys(values).find((k) => values[k] === n);
    return { ok: true, value: name ?? n };
  }
  return { ok: false, expected: enumExpected(e) };
}

/** Decodes a scalar (string, bool, int32, double) or enum value. */
export function decodeScalar(node: JsonNode, type: string): Decoded {
  switch (type) {
    case 'string':
      if (node.t !== 'string') return { ok: false, expected: EXPECTED.string };
      return node.wellFormed ? { ok: true, value: node.value } : { ok: false, expected: EXPECTED.wellFormed };
    case 'bool':
      return node.t === 'bool' ? { ok: true, value: node.value } : { ok: false, expected: EXPECTED.bool };
    case 'int32':
    case 'double':
      return decodeNumber(node, type);
    default:
      if (Object.hasOwn(ENUMS, type)) return decodeEnum(node, type as EnumName);
      return { ok: false, expected: `a value of type ${type}` };
  }
}

function badValue(ctx: DecodeContext, path: string, node: JsonNode, field: FieldInfo, expected: string, what: string): void {
  const found = describeFound(node, field);
  ctx.issues.push({
    path,
    severity: 'error',
    kind: 'bad-value',
    message: `invalid ${what}: expected ${expected}, found ${found}; ignored${ctx.where(node.at)}`,
    expected,
    found,
  });
}

/** Applies a Decoded result: the value, or an issue. */
function settle(ctx: DecodeContext, path: string, node: JsonNode, field: FieldInfo, d: Decoded, what: string): unknown {
  if (d.ok === true) return d.value;
  if (d.ok === false) badValue(ctx, path, node, field, d.expected, what);
  else
    ctx.issues.push({
      path,
      severity: 'warning',
      kind: 'bad-value',
      message: `${d.warning}${ctx.where(node.at)}`,
      expected: d.ok === 'kept' ? d.expected : enumExpected(field.enum as EnumName),
    });
  return d.ok === 'kept' ? d.value : undefined;
}

function decodeRepeated(ctx: DecodeContext, node: JsonNode, field: FieldInfo, path: string): unknown {
  if (node.t !== 'array')
    return settle(
      ctx,
      path,
      node,
      field,
      { ok: false, expected: field.message ? `a JSON array of objects (${field.message})` : EXPECTED.repeated },
      `value for repeated ${field.type} field ${field.json}`,
    );
  const out: unknown[] = [];
  node.items.forEach((item, i) => {
    // A repeated message (KubeletTaint): an element `{}` is a real (empty) element and is kept.
    if (field.message) {
      const elementPath = indexPath(path, i);
      if (item.t === 'object') out.push(decodeMessage(ctx, item, field.message, elementPath));
      else
        settle(
          ctx,
          elementPath,
          item,
          field,
          { ok: false, expected: `a JSON object (${field.message})` },
          `element of repeated ${field.message} field ${field.json}`,
        );
      return;
    }
    const v = settle(
      ctx,
      indexPath(path, i),
      item,
      field,
      decodeScalar(item, field.type),
      `element of repeated ${field.type} field ${field.json}`,
    );
    if (v !== undefined) out.push(v);
  });
  return out.length > 0 ? out : undefined;
}

function decodeMap(ctx: DecodeContext, node: JsonNode, field: FieldInfo, path: string): unknown {
  if (node.t !== 'object')
    return settle(ctx, path, node, field, { ok: false, expected: EXPECTED.map }, `value for map field ${field.json}`);
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const entry of node.entries) {
    const entryPath = childPath(path, entry.key);
    if (seen.has(entry.key)) {
      const message = `duplicate map key ${clip(JSON.stringify(entry.key))} in ${field.json}; the first entry is kept${ctx.where(entry.at)}`;
      ctx.issues.push({ path: entryPath, severity: 'error', kind: 'duplicate-field', message });
      continue;
    }
    seen.add(entry.key);
    if (!entry.keyWellFormed) {
      // The reference cannot decode such a key (protojson rejects it); D7: the entry alone is dropped.
      const expected = EXPECTED.wellFormed;
      const message = `invalid key in map field ${field.json}: expected ${expected}, found a key with a lone surrogate escape; entry ignored${ctx.where(entry.at)}`;
      ctx.issues.push({
        path: entryPath,
        severity: 'error',
        kind: 'bad-value',
        message,
        expected,
        found: 'a key with a lone surrogate escape',
      });
      continue;
    }
    const what = `value for map field ${field.json}`;
    let v: unknown;
    if (field.mapValueMessage) {
      v =
        entry.value.t === 'object'
          ? decodeMessage(ctx, entry.value, field.mapValueMessage, entryPath)
          : settle(ctx, entryPath, entry.value, field, { ok: false, expected: `a JSON object (${field.mapValueMessage})` }, what);
    } else {
      v = settle(ctx, entryPath, entry.value, field, decodeScalar(entry.value, field.mapValue ?? 'string'), what);
    }
    if (v !== undefined) out[entry.key] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function decodeField(ctx: DecodeContext, node: JsonNode, field: FieldInfo, path: string): unknown {
  if (field.map) return decodeMap(ctx, node, field, path);
  if (field.repeated) return decodeRepeated(ctx, node, field, path);
  if (field.message) {
    if (node.t === 'object') return decodeMessage(ctx, node, field.message, path);
    return settle(
      ctx,
      path,
      node,
      field,
      { ok: false, expected: `a JSON object (${field.message})` },
      `value for message field ${field.json}`,
    );
  }
  const kind = field.kind === 'enum' ? 'enum' : field.type;
  return settle(ctx, path, node, field, decodeScalar(node, field.type), `value for ${kind} field ${field.json}`);
}

/** Decodes one object as the given message. Never throws on any input tree. */
export function decodeMessage(ctx: DecodeContext, node: JsonObject, message: MessageName, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Map<string, string>();
  for (const entry of node.entries) {
    const keyPath = childPath(path, entry.key);
    const field = fieldByKey(message, entry.key);
    if (!field) {
      const message_ = `unknown field ${clip(JSON.stringify(entry.key))} in ${MESSAGES[message].name} (ignored)${ctx.where(entry.at)}`;
      ctx.issues.push({ path: keyPath, severity: 'warning', kind: 'unknown-field', message: message_ });
      continue;
    }
    const first = seen.get(field.proto);
    if (first !== undefined) {
      const message_ = `duplicate field ${JSON.stringify(entry.key)} (already given as ${JSON.stringify(first)}); the first value is kept${ctx.where(entry.at)}`;
      ctx.issues.push({ path: keyPath, severity: 'error', kind: 'duplicate-field', message: message_ });
      continue;
    }
    seen.set(field.proto, entry.key);
    if (entry.value.t === 'null') continue;
    const value = decodeField(ctx, entry.value, field, keyPath);
    if (value !== undefined) out[field.json] = value;
  }
  return out;
}

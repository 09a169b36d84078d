// Go encoding/json Unmarshal into a typed struct, for the documents the reference decodes that way
// (components.json, the custom cloud's customEnvJsonContent). The rules that differ from JSON.parse:
// - the whole text is checked first: a syntax error, or nesting deeper than 10,000, fails the call and
//   nothing is decoded;
// - an object key selects the field whose tag matches exactly, else one that matches under Go's case
//   folding; unknown keys are skipped;
// - a repeated key decodes INTO the value already there: objects merge, `null` leaves a string, bool or
//   struct as it was (it empties a slice), and an array reuses the slice's existing elements, even ones
//   a shorter array cut off before;
// - a value of the wrong JSON type is recorded (the first one), skipped, and decoding goes on; the call
//   still fails with that first error;
// - a lone UTF-16 surrogate escape in a string or key decodes to U+FFFD.
// Pure.
import { scanJson, type JsonNode } from '../json-scan.ts';
import { goEqualFold } from './strings.ts';

/** Go's scanner limit (encoding/json maxNestingDepth). */
export const GO_MAX_DEPTH = 10_000;

export type GoType =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'slice'; elem: GoType; name: string }
  /** `pkg`: the Go package, as a type's name in an UnmarshalTypeError carries it (`gpu.gpuVersion`, N11). */
  | { kind: 'struct'; name: string; pkg?: string; fields: GoField[] };
export interface GoField {
  /** The json tag name (what keys are matched against). */
  tag: string;
  type: GoType;
}

/** A Go slice: `len` elements in use; the backing array keeps the ones a shorter array cut off. */
export interface GoSlice {
  len: number;
  backing: unknown[];
}
export type GoStruct = Record<string, unknown>;

export type UnmarshalError =
  | { kind: 'syntax'; message: string; at: number }
  | { kind: 'depth'; message: string; at: number }
  | { kind: 'type'; message: string };

export interface UnmarshalResult<T> {
  /** What was decoded (the zero value after a syntax or depth error). */
  value: T;
  error: UnmarshalError | undefined;
}

/** The elements of a decoded slice (nil and empty both give []). */
export const sliceItems = (slice: unknown): unknown[] => {
  const s = slice as GoSlice | null;
  return s ? s.backing.slice(0, s.len) : [];
};

export function zeroValue(type: GoType): unknown {
  switch (type.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'slice':
      return null;
    case 'struct':
      return Object.fromEntries(type.fields.map((f) => [f.tag, zeroValue(f.type)]));
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const goText = (text: string, wellFormed: boolean): string => (wellFormed ? text : text.replace(LONE_SURROGATE, '\ufffd'));

/** Go's field lookup for an object key: exact tag first, then case-folded. */
function fieldFor(type: Extract<GoType, { kind: 'struct' }>, key: string): GoField | undefined {
  return type.fields.find((f) => f.tag === key) ?? type.fields.find((f) => goEqualFold(f.tag, key));
}

const goKind = (node: JsonNode): string => (node.t === 'bool' ? 'bool' : node.t);

function goTypeName(type: GoType): string {
  if (type.kind === 'slice') return `[]${goTypeName(type.elem)}`;
  if (type.kind === 'struct') return type.pkg ? `${type.pkg}.${type.name}` : type.name;
  return type.kind;
}

class Decoder {
  error: UnmarshalError | undefined;

  /** Go 1.20+ UnmarshalTypeError text: the innermost struct and the dotted path of keys from the top. */
  mismatch(node: JsonNode, type: GoType, struct: string, path: string[]): void {
    const where = path.length > 0 ? `Go struct field ${struct}.${path.join('.')}` : 'Go value';
    this.error ??= { kind: 'type', message: `json: cannot unmarshal ${goKind(node)} into ${where} of type ${goTypeName(type)}` };
  }

  /** Decodes `node` into `current` (a value of `type`) and returns the result. */
  decode(node: JsonNode, type: GoType, current: unknown, struct: string, path: string[]): unknown {
    if (node.t === 'null') return type.kind === 'slice' ? null : current;
    switch (type.kind) {
      case 'string':
        if (node.t === 'string') return goText(node.value, node.wellFormed);
        break;
      case 'bool':
        if (node.t === 'bool') return node.value;
        break;
      case 'struct':
        if (node.t === 'object') {
          const target = current as GoStruct;
          for (const entry of node.entries) {
            const field = fieldFor(type, goText(entry.key, entry.keyWellFormed));
            if (!field) continue;
            target[field.tag] = this.decode(entry.value, field.type, target[field.tag], type.name, [...path, field.tag]);
          }
          return target;
        }
        break;
      case 'slice':
        if (node.t === 'array') return this.slice(node.items, type, current as GoSlice | null, struct, path);
        break;
    }
    this.mismatch(node, type, struct, path);
    return current;
  }

  /** Go's d.array for a slice: decode into existing elements, grow with zero ones, then cut to length. */
  slice(items: JsonNode[], type: Extract<GoType, { kind: 'slice' }>, current: GoSlice | null, struct: string, path: string[]): GoSlice {
    if (items.length === 0) return { len: 0, backing: [] };
    const slice = current ?? { len: 0, backing: [] };
    items.forEach((item, i) => {
      if (i >= slice.backing.length) slice.backing.push(zeroValue(type.elem));
      if (i >= slice.len) slice.len = i + 1;
      slice.backing[i] = this.decode(item, type.elem, slice.backing[i], struct, path);
    });
    slice.len = items.length;
    return slice;
  }
}

/** A decoded value as plain JSON data: structs as objects (every field), slices as arrays, nil as null. */
export function goPlain(value: unknown, type: GoType): unknown {
  if (type.kind === 'slice') return value === null ? null : sliceItems(value).map((v) => goPlain(v, type.elem));
  if (type.kind !== 'struct') return value;
  const struct = value as GoStruct;
  return Object.fromEntries(type.fields.map((f) => [f.tag, goPlain(struct[f.tag], f.type)]));
}

/** Go json.Unmarshal(text, &v) for a fresh v of `type`. Never throws. */
export function goUnmarshal<T = GoStruct>(text: string, type: GoType): UnmarshalResult<T> {
  const zero = zeroValue(type) as T;
  const scan = scanJson(text, { maxDepth: GO_MAX_DEPTH, depthMessage: 'exceeded max depth' });
  if (scan.bom) return { value: zero, error: { kind: 'syntax', message: 'a byte order mark is not JSON', at: 0 } };
  if (scan.error || !scan.root) {
    const at = scan.error?.at ?? 0;
    const message = scan.error?.message ?? 'unexpected end of JSON input';
    const kind = message === 'exceeded max depth' ? 'depth' : 'syntax';
    return { value: zero, error: { kind, message, at } };
  }
  const decoder = new Decoder();
  const value = decoder.decode(scan.root, type, zero, type.kind === 'struct' ? type.name : '', []) as T;
  return { value, error: decoder.error };
}

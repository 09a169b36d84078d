// Deterministic JSON for a Configuration (the producer format, reference 9 MarshalConfigurationV1):
// proto (snake_case) names in field-declaration order, enums as value names (an undefined number stays a
// number), map keys sorted (code-unit order), unset fields omitted, doubles NaN/Infinity/-Infinity as
// the protojson strings, -0 kept. Every stored value is written, including explicit false/0/"" (so
// `loadConfiguration(marshalConfiguration(c)).config` deep-equals c); pass `omitImplicitZero` to drop
// zero values of implicit-presence scalars (proto3 semantics: they equal "unset") as Go's protojson does.
// Equal configurations give the same bytes whatever the key order of their source documents.
import { MESSAGES } from './generated/catalog.ts';
import type { FieldInfo } from './generated/catalog.ts';
import type { MessageName } from './generated/types.ts';
import type { Configuration } from './types.ts';

export interface MarshalOptions {
  /** Spaces per level; 0 = compact single line. Default 2 (the producer's format). */
  indent?: number;
  /** Omit "", false, 0 and enum 0 of non-`optional` scalars (proto3 implicit presence). Default false. */
  omitImplicitZero?: boolean;
}

interface Writer {
  indent: number;
  omitZero: boolean;
}

function isImplicitZero(field: FieldInfo, value: unknown): boolean {
  if (field.optional || field.repeated || field.map || field.message) return false;
  if (value === '' || value === false || value === 0) return !Object.is(value, -0);
  return field.kind === 'enum' && typeof value === 'string' && value.endsWith('_UNSPECIFIED');
}

function scalarJson(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '"NaN"';
    if (value === Infinity) return '"Infinity"';
    if (value === -Infinity) return '"-Infinity"';
    return Object.is(value, -0) ? '-0' : String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return JSON.stringify(value);
  return 'null';
}

function block(w: Writer, level: number, parts: string[], open: string, close: string): string {
  if (parts.length === 0) return open + close;
  if (w.indent === 0) return open + parts.join(',') + close;
  const pad = ' '.repeat(w.indent * (level + 1));
  return `${open}\n${parts.map((p) => pad + p).join(',\n')}\n${' '.repeat(w.indent * level)}${close}`;
}

function sep(w: Writer): string {
  return w.indent === 0 ? ':' : ': ';
}

function fieldJson(w: Writer, field: FieldInfo, value: unknown, level: number): string {
  if (field.map) {
    const map = value as Record<string, unknown>;
    const keys = Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const parts = keys.map((k) => {
      const v = map[k];
      const body = field.mapValueMessage ? messageJson(w, field.mapValueMessage, v, level + 1) : scalarJson(v);
      return `${JSON.stringify(k)}${sep(w)}${body}`;
    });
    return block(w, level, parts, '{', '}');
  }
  if (field.repeated) {
    const sub = field.message;
    const items = (value as unknown[]).map((e) => (sub ? messageJson(w, sub, e, level + 1) : scalarJson(e)));
    return block(w, level, items, '[', ']');
  }
  if (field.message) return messageJson(w, field.message, value, level);
  return scalarJson(value);
}

function messageJson(w: Writer, message: MessageName, value: unknown, level: number): string {
  const obj = (value ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const field of MESSAGES[message].fields) {
    const v = obj[field.json];
    if (v === undefined || v === null) continue;
    if (w.omitZero && isImplicitZero(field, v)) continue;
    parts.push(`${JSON.stringify(field.proto)}${sep(w)}${fieldJson(w, field, v, level + 1)}`);
  }
  return block(w, level, parts, '{', '}');
}

/** Deterministic JSON text (no trailing newline) of a configuration. */
export function marshalConfiguration(config: Configuration, options: MarshalOptions = {}): string {
  const w: Writer = { indent: Math.max(0, Math.floor(options.indent ?? 2)), omitZero: options.omitImplicitZero === true };
  return messageJson(w, 'Configuration', config, 0);
}

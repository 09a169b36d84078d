// Seeded random configurations for the property tests (no dependency: mulberry32).
import { ENUMS, MESSAGES } from '../../../src/config/types.ts';
import type { FieldInfo, MessageName } from '../../../src/config/types.ts';

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
export const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

const STRINGS = ['', 'a', 'westus3', 'x y', 'ünïcødé', '😀', 'line\nbreak', '"quoted"', '\\back', '1.5', 'NaN', 'null'];

/** A valid value for a scalar type: [json input value, expected stored value]. */
function scalar(rng: Rng, type: string): [unknown, unknown] {
  switch (type) {
    case 'string': {
      const s = pick(rng, STRINGS);
      return [s, s];
    }
    case 'bool': {
      const b = rng() < 0.5;
      return [b, b];
    }
    case 'int32': {
      const n = pick(rng, [0, 1, -1, 42, 2147483647, -2147483648, int(rng, -1e6, 1e6)]);
      return rng() < 0.3 ? [String(n), n] : [n, n];
    }
    case 'double': {
      const n = pick(rng, [0, 1.5, -2.25, 1e-7, 123456.789, 3]);
      return rng() < 0.2 ? [String(n), n] : [n, n];
    }
    default: {
      const values = ENUMS[type as keyof typeof ENUMS];
      const names = Object.keys(values);
      const r = rng();
      if (r < 0.6) {
        const name = pick(rng, names);
        return [name, name];
      }
      if (r < 0.85) {
        const name = pick(rng, names);
        return [values[name], name];
      }
      const n = int(rng, 50, 500);
      return [n, n];
    }
  }
}

/** A valid value for a field: [json input value, expected stored value]. */
export function validValue(rng: Rng, field: FieldInfo, depth: number): [unknown, unknown] {
  if (field.map) {
    const input: Record<string, unknown> = {};
    const stored: Record<string, unknown> = {};
    for (let i = 0, n = int(rng, 1, 3); i < n; i++) {
      const key = pick(rng, ['a', 'b', 'key.with.dots', 'ZZ', '', '9']);
      const [iv, sv] = field.mapValueMessage ? message(rng, field.mapValueMessage, depth + 1) : scalar(rng, field.mapValue ?? 'string');
      input[key] = iv;
      stored[key] = sv;
    }
    return [input, stored];
  }
  if (field.repeated && field.message) {
    const sub = field.message;
    const pairs = Array.from({ length: int(rng, 1, 3) }, () => message(rng, sub, depth + 1));
    return [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
  }
  if (field.repeated) {
    const xs = Array.from({ length: int(rng, 1, 3) }, () => pick(rng, STRINGS));
    return [xs, [...xs]];
  }
  if (field.message) return message(rng, field.message, depth + 1);
  return scalar(rng, field.type);
}

/** A random valid message: [json input (mixed spellings), expected stored value]. */
export function message(rng: Rng, name: MessageName, depth = 0): [Record<string, unknown>, Record<string, unknown>] {
  const input: Record<string, unknown> = {};
  const stored: Record<string, unknown> = {};
  const fields = MESSAGES[name].fields;
  const density = depth === 0 ? 0.4 : depth > 3 ? 0.05 : 0.25;
  for (const field of fields) {
    if (rng() > density) continue;
    if (field.message && depth > 4) continue;
    const [iv, sv] = validValue(rng, field, depth);
    input[rng() < 0.5 ? field.json : field.proto] = iv;
    stored[field.json] = sv;
  }
  return [input, stored];
}

/** A value of the wrong JSON type for a field (always a bad-value error). */
export function badValue(rng: Rng, field: FieldInfo): unknown {
  if (field.map) return pick(rng, [3, 'x', [1], true]);
  if (field.repeated) return pick(rng, ['abc', 3, { a: 'b' }, true]);
  if (field.message) return pick(rng, ['x', 3, [], true]);
  switch (field.type) {
    case 'string':
      return pick(rng, [5, true, ['s'], {}]);
    case 'bool':
      return pick(rng, ['true', 1, 0, 'false', []]);
    case 'int32':
      return pick(rng, [1.5, '1.5', 2147483648, '+5', '0x10', ' 12', true, {}]);
    case 'double':
      return pick(rng, ['nan', '+Infinity', true, ' 1.5', [], '0x1p3']);
    default:
      return pick(rng, [true, 1.5, 4294967296, {}, []]);
  }
}

/** Object with its keys shuffled (recursively). */
export function shuffleKeys(rng: Rng, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(rng, v));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [entries[i], entries[j]] = [entries[j] as [string, unknown], entries[i] as [string, unknown]];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(rng, v)]));
}

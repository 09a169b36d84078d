// Seeded random configurations for the rollout property tests. Value pools deliberately include every
// default the canonical form resolves (azureuser, 900, 148, 16384, v2, 10.0.0.10, -0, NaN, ...) so that
// explicit defaults, implicit zeros and real changes all occur often.
import { ENUMS, MESSAGES } from '../../../src/config/types.ts';
import type { Configuration, FieldInfo, MessageName } from '../../../src/config/types.ts';
import { mulberry32, pick, type Rng } from '../config/gen.ts';

export { mulberry32, type Rng };

type Obj = Record<string, unknown>;

const STRINGS = ['', 'a', 'b', 'azureuser', 'v2', '10.0.0.10', '1.34.0', '1.30.0', '32768 65400', 'akscustom', 'x"y'];
const INTS = [0, 1, -1, 5, 6, 100, 128, 148, 900, 2000, 4096, 8192, 16384, 21600, 21601];
const DOUBLES = [0, -0, 10, 1.5, NaN, Infinity];
const KEYS = ['a', 'b', '.', 'cluster.local', '--max-pods'];

function scalar(rng: Rng, field: FieldInfo, type = field.type): unknown {
  if (field.enum) {
    const names = Object.keys(ENUMS[field.enum]);
    return rng() < 0.85 ? pick(rng, names) : pick(rng, [0, 1, 2, 99]);
  }
  if (type === 'string') return pick(rng, STRINGS);
  if (type === 'bool') return rng() < 0.5;
  if (type === 'int32') return pick(rng, INTS);
  return pick(rng, DOUBLES);
}

export function randomValue(rng: Rng, field: FieldInfo, depth: number): unknown {
  const sub = field.message;
  if (sub && field.repeated) return Array.from({ length: Math.floor(rng() * 3) }, () => randomMessage(rng, sub, depth + 1));
  if (sub) return randomMessage(rng, sub, depth + 1);
  if (field.repeated) return Array.from({ length: Math.floor(rng() * 3) }, () => pick(rng, STRINGS));
  if (field.map) {
    const m: Obj = {};
    for (let i = Math.floor(rng() * 3); i > 0; i--) {
      const k = pick(rng, KEYS);
      if (field.mapValueMessage) m[k] = randomMessage(rng, field.mapValueMessage, depth + 1);
      else m[k] = field.mapValue === 'bool' ? rng() < 0.5 : pick(rng, STRINGS);
    }
    return m;
  }
  return scalar(rng, field);
}

export function randomMessage(rng: Rng, message: MessageName, depth = 0): Obj {
  const out: Obj = {};
  const p = depth === 0 ? 0.35 : 0.45;
  for (const f of MESSAGES[message].fields) if (rng() < p) out[f.json] = randomValue(rng, f, depth);
  return out;
}

export function randomConfiguration(rng: Rng): Configuration {
  return { version: 'v1', ...randomMessage(rng, 'Configuration') } as Configuration;
}

/** Deep copy with 1..3 random edits: set a field (possibly to an equivalent value) or remove one. */
export function mutate(rng: Rng, config: Configuration): Configuration {
  const copy = structuredClone(config) as Obj;
  for (let n = 1 + Math.floor(rng() * 3); n > 0; n--) {
    let obj = copy;
    let message: MessageName = 'Configuration';
    for (;;) {
      const f: FieldInfo = pick(rng, MESSAGES[message].fields);
      const cur = obj[f.json];
      if (f.message && cur && typeof cur === 'object' && rng() < 0.6) {
        obj = cur as Obj;
        message = f.message;
        continue;
      }
      if (rng() < 0.3) delete obj[f.json];
      else obj[f.json] = randomValue(rng, f, 2);
      break;
    }
  }
  return copy as Configuration;
}

const num = (v: number) =>
  Number.isNaN(v) ? '"NaN"' : v === Infinity ? '"Infinity"' : v === -Infinity ? '"-Infinity"' : Object.is(v, -0) ? '-0' : String(v);

function shuffled<T>(rng: Rng, xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

function messageText(rng: Rng, message: MessageName, obj: Obj): string {
  const fields = MESSAGES[message].fields.filter((f) => obj[f.json] !== undefined);
  const parts = shuffled(rng, fields).map((f) => {
    const name = rng() < 0.5 ? f.proto : f.json;
    return `${JSON.stringify(name)}:${valueText(rng, f, obj[f.json])}`;
  });
  return `{${parts.join(',')}}`;
}

function valueText(rng: Rng, f: FieldInfo, v: unknown): string {
  const sub = f.message;
  if (sub && f.repeated) return `[${(v as Obj[]).map((e) => messageText(rng, sub, e)).join(',')}]`;
  if (sub) return messageText(rng, sub, v as Obj);
  if (f.map) {
    const m = v as Obj;
    const entries = shuffled(rng, Object.keys(m)).map((k) => {
      const ev = f.mapValueMessage ? messageText(rng, f.mapValueMessage, m[k] as Obj) : JSON.stringify(m[k]);
      return `${JSON.stringify(k)}:${ev}`;
    });
    return `{${entries.join(',')}}`;
  }
  if (typeof v === 'number') return f.enum ? String(v) : num(v);
  return JSON.stringify(v);
}

/** The configuration as JSON text with random key order and a random spelling (proto / json) per key. */
export function shuffledText(rng: Rng, config: Configuration): string {
  return messageText(rng, 'Configuration', config as Obj);
}

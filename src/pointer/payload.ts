// The signed hotfix pointer (docs/pointer-signing.md): the pointer itself (`hotfixes`, `rollout`) plus
// what makes a signature safe to trust over time: a schema version, a monotonic serial, an expiry time
// and a scope. It is ordinary pointer JSON, so agents that predate signing read the same bytes as an
// unsigned pointer (they ignore the extra keys). Pure: parsing and rendering bytes.
import { AgentError } from '../platform/errors.ts';
import { readingAmbiguity } from './payload-shape.ts';
import { joinGated, parseSchedule, scheduleJson, type ScheduleStep, splitGated } from './schedule.ts';
import { parseRfc3339 } from './time.ts';

export { parseRfc3339 };

export const POINTER_SCHEMA_VERSION = 1;

/** What a scope may name, each matched against a field of the node configuration (scope.ts). */
export const SCOPE_KEYS = ['cluster', 'region', 'subscription', 'resourceGroup'] as const;
export type ScopeKey = (typeof SCOPE_KEYS)[number];

export interface RolloutWave {
  percent: number;
  salt: string;
  /** Steps of the wave in time (schedule.ts); with one, `percent` is what agents that predate schedules use. */
  schedule?: ScheduleStep[];
}

export interface SignedPointer {
  schemaVersion: number;
  serial: number;
  /** RFC 3339 text as signed, and the instant it names. */
  expires: string;
  expiresAt: Date;
  /** Key -> allowed values; every key must match (values: any of them). `{}` = every node. */
  scope: Record<string, string[]>;
  hotfixes: Record<string, string>;
  rollout?: Record<string, RolloutWave>;
  /** Versions nodes must give up (part of the signed bytes). */
  recall?: string[];
  /** Set by `render --halt`: when the rollout was halted (RFC 3339 UTC; nodes ignore it, `rollout status` tells it). */
  halted?: string;
}

function invalid(detail: string): AgentError {
  return new AgentError('ANC_HOTFIX', `signed pointer payload: ${detail}`, { step: 'invalidPayload' });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Own-property map without prototype surprises (`__proto__` stays an ordinary key). */
function define<T>(out: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The signed bytes -> a checked payload. Throws (step `invalidPayload`) naming the field. */
export function parseSignedPointer(bytes: Uint8Array): SignedPointer {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('not UTF-8');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw invalid('not valid JSON');
  }
  if (!isObject(doc)) throw invalid('not a JSON object');
  const ambiguity = readingAmbiguity(text);
  if (ambiguity) throw invalid(ambiguity);
  if (doc.schemaVersion !== POINTER_SCHEMA_VERSION) {
    throw invalid(
      `schemaVersion ${JSON.stringify(doc.schemaVersion ?? null)} is not supported (this agent reads ${POINTER_SCHEMA_VERSION})`,
    );
  }
  const serial = doc.serial;
  if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 1) throw invalid('serial must be an integer >= 1');
  if (typeof doc.expires !== 'string') throw invalid('expires must be an RFC 3339 time');
  const expiresAt = parseRfc3339(doc.expires);
  if (!expiresAt)
    throw invalid(
      `expires ${JSON.stringify(doc.expires)} is not a valid RFC 3339 time (a real calendar date and time with its zone, e.g. 2026-12-01T00:00:00Z)`,
    );
  return {
    schemaVersion: POINTER_SCHEMA_VERSION,
    serial,
    expires: doc.expires,
    expiresAt,
    scope: parseScope(doc.scope),
    hotfixes: parseHotfixes(doc.hotfixes),
    ...(doc.rollout === undefined || doc.rollout === null ? {} : { rollout: parseRollout(doc.rollout) }),
    ...(doc.recall === undefined || doc.recall === null ? {} : { recall: parseRecall(doc.recall) }),
    ...(typeof doc.halted === 'string' && parseRfc3339(doc.halted) ? { halted: doc.halted } : {}),
  };
}

function parseScope(value: unknown): Record<string, string[]> {
  if (!isObject(value)) throw invalid('scope must be an object of key -> list of values ({} = every node)');
  const out: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(value)) {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) throw invalid(`scope.${key} must be a list of strings`);
    define(out, key, values as string[]);
  }
  return out;
}

function parseHotfixes(value: unknown): Record<string, string> {
  if (!isObject(value)) throw invalid('hotfixes must be an object of base -> version');
  const out: Record<string, string> = {};
  for (const [base, version] of Object.entries(value)) {
    if (typeof version !== 'string') throw invalid(`hotfixes[${JSON.stringify(base)}] must be a string`);
    define(out, base, version);
  }
  return out;
}

function parseRollout(value: unknown): Record<string, RolloutWave> {
  if (!isObject(value)) throw invalid('rollout must be an object of base -> {"percent","salt"}');
  const out: Record<string, RolloutWave> = {};
  for (const [base, wave] of Object.entries(value)) {
    const where = `rollout[${JSON.stringify(base)}]`;
    if (!isObject(wave)) throw invalid(`${where} must be an object`);
    const { percent, salt } = wave;
    if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100)) throw invalid(`${where}.percent must be a number from 0 to 100`);
    if (typeof salt !== 'string') throw invalid(`${where}.salt must be a string`);
    const fail = (detail: string): never => {
      throw invalid(`${where}.${detail}`);
    };
    const plain = wave.schedule === undefined ? undefined : parseSchedule(wave.schedule, fail);
    const gated =
      wave.gatedSchedule === undefined
        ? undefined
        : parseSchedule(wave.gatedSchedule, (d) => fail(d.replace(/^schedule/, 'gatedSchedule')));
    const schedule = joinGated(plain, gated, fail);
    define(out, base, { percent, salt, ...(schedule ? { schedule } : {}) });
  }
  return out;
}

function parseRecall(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalid('recall must be a list of versions');
  return [...new Set(value as string[])];
}

export interface PointerFields {
  serial: number;
  expires: string;
  scope: Record<string, string[]>;
  hotfixes: Record<string, string>;
  rollout?: Record<string, RolloutWave>;
  recall?: string[];
  halted?: string;
}

const sorted = <T>(map: Record<string, T>): Record<string, T> => {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) define(out, key, map[key]!);
  return out;
};

/** `schedule`, and `gatedSchedule` when a step is gated (schedule.ts splitGated). */
function scheduleKeys(steps: readonly ScheduleStep[]) {
  const { schedule, gatedSchedule } = splitGated(steps);
  return { schedule: scheduleJson(schedule), ...(gatedSchedule ? { gatedSchedule: scheduleJson(gatedSchedule) } : {}) };
}

/** Compact JSON in a fixed key order with sorted maps: the same fields always give the same bytes. */
export function renderSignedPointer(fields: PointerFields): string {
  const doc: Record<string, unknown> = {
    schemaVersion: POINTER_SCHEMA_VERSION,
    serial: fields.serial,
    expires: fields.expires,
    scope: sorted(fields.scope),
    hotfixes: sorted(fields.hotfixes),
  };
  if (fields.rollout && Object.keys(fields.rollout).length > 0) {
    doc.rollout = sorted(
      Object.fromEntries(
        Object.entries(fields.rollout).map(([k, w]) => [
          k,
          { percent: w.percent, salt: w.salt, ...(w.schedule ? scheduleKeys(w.schedule) : {}) },
        ]),
      ),
    );
  }
  if (fields.recall && fields.recall.length > 0) doc.recall = [...new Set(fields.recall)].sort();
  if (fields.halted !== undefined) doc.halted = fields.halted;
  return JSON.stringify(doc);
}

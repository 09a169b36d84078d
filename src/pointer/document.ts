// The hotfix pointer file (spec 6.1, D2). Pure: parsing and serialising text; reading and writing the file
// is the caller's job. Parsing follows Go encoding/json into the reference struct: keys match
// case-insensitively (exact match preferred), extra keys are ignored, `null` leaves a field empty, a value
// of the wrong type is an error.
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { AgentError } from '../platform/errors.ts';
import { goTrimSpace } from '../platform/go/strings.ts';
import { goJson, goJsonKind, goLookupField, parseGoJson } from '../platform/json.ts';
import { joinGated, parseSchedule, type ScheduleStep, splitGated } from './schedule.ts';

export interface HotfixPointer {
  /** Legacy single pointer (SEED). */
  version: string;
  /** HEAD addition; kept as read, never interpreted by the agent. */
  scriptsVersion: string;
  /** Base `YYYYMM.DD` -> full version `YYYYMM.DD.PATCH`. */
  hotfixes: Record<string, string>;
  /** Staged waves per base (docs/hotfix.md "waves"); absent, or no entry for a base = 100%. */
  rollout?: Record<string, RolloutEntry>;
  /** Versions every node must give up (issue 34): a node that staged one returns to the baked agent. */
  recall?: string[];
}

/** One base's wave: the share of nodes (0..100) that take its hotfix, and the salt that shuffles them. */
export interface RolloutEntry {
  percent: number;
  salt: string;
  /** The wave's steps in time (schedule.ts): when present, the percent in force now replaces `percent`. */
  schedule?: ScheduleStep[];
}

export function emptyPointer(): HotfixPointer {
  return { version: '', scriptsVersion: '', hotfixes: {} };
}

const FIELDS = [
  ['version', 'version'],
  ['scripts_version', 'scriptsVersion'],
  ['hotfixes', 'hotfixes'],
  ['rollout', 'rollout'],
  ['recall', 'recall'],
] as const;

/**
 * Parses pointer text. `null` (file missing), empty or whitespace-only text and a JSON `null` document are
 * "no pointer" (an empty pointer). Errors are `parsing hotfix config <path>: ...`.
 */
export function parsePointer(text: string | null, path: string): HotfixPointer {
  const pointer = emptyPointer();
  if (text === null || goTrimSpace(text) === '') return pointer;
  const fail = (detail: string): never => {
    throw new AgentError('ANC_HOTFIX', `parsing hotfix config ${path}: ${detail}`);
  };
  let doc: unknown;
  try {
    doc = parseGoJson(text);
  } catch {
    // Never the parser's message: it quotes the content (a pointer may be a symlink to any file).
    return fail(jsonSyntaxProblem(text) ?? 'not valid JSON');
  }
  if (doc === null) return pointer;
  if (typeof doc !== 'object' || Array.isArray(doc)) return fail(`cannot unmarshal ${goJsonKind(doc)} into hotfix config object`);
  const obj = doc as Record<string, unknown>;
  for (const [key, field] of FIELDS) {
    const value = goLookupField(obj, key);
    if (value === undefined || value === null) continue;
    if (field === 'hotfixes') pointer.hotfixes = parseMap(value, fail);
    else if (field === 'rollout') pointer.rollout = parseRollout(value, fail);
    else if (field === 'recall') pointer.recall = parseRecall(value, fail);
    else if (typeof value === 'string') pointer[field] = value;
    else fail(`cannot unmarshal ${goJsonKind(value)} into field ${key} of type string`);
  }
  return pointer;
}

function parseMap(value: unknown, fail: (detail: string) => never): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`cannot unmarshal ${goJsonKind(value)} into field hotfixes of type map[string]string`);
  }
  const out: Record<string, string> = {};
  for (const [base, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v !== 'string')
      fail(`cannot unmarshal ${goJsonKind(v)} into field hotfixes[${JSON.stringify(base)}] of type string`);
    // defineProperty: a `__proto__` key stays an ordinary entry.
    Object.defineProperty(out, base, { value: v ?? '', enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `{"<base>": {"percent": 0..100, "salt": "<text>"}}`; anything else is an error (no install: fail-safe). */
function parseRollout(value: unknown, fail: (detail: string) => never): Record<string, RolloutEntry> {
  if (goJsonKind(value) !== 'object') return fail(`cannot unmarshal ${goJsonKind(value)} into field rollout of type map[string]rollout`);
  const out: Record<string, RolloutEntry> = {};
  for (const [base, entry] of Object.entries(value as Record<string, unknown>)) {
    const where = `rollout[${JSON.stringify(base)}]`;
    if (goJsonKind(entry) !== 'object') fail(`cannot unmarshal ${goJsonKind(entry)} into field ${where} of type rollout`);
    const percent = goLookupField(entry as Record<string, unknown>, 'percent');
    const salt = goLookupField(entry as Record<string, unknown>, 'salt') ?? '';
    if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100))
      fail(`${where}.percent: expected a number from 0 to 100, got ${JSON.stringify(percent ?? null)}`);
    if (typeof salt !== 'string') fail(`cannot unmarshal ${goJsonKind(salt)} into field ${where}.salt of type string`);
    const raw = goLookupField(entry as Record<string, unknown>, 'schedule');
    const plain = raw === undefined || raw === null ? undefined : parseSchedule(raw, (detail) => fail(`${where}.${detail}`));
    const rawGated = goLookupField(entry as Record<string, unknown>, 'gatedSchedule');
    const gated =
      rawGated === undefined || rawGated === null
        ? undefined
        : parseSchedule(rawGated, (detail) => fail(`${where}.${detail.replace(/^schedule/, 'gatedSchedule')}`));
    const schedule = joinGated(plain, gated, (detail) => fail(`${where}.${detail}`));
    const value = { percent, salt, ...(schedule ? { schedule } : {}) };
    Object.defineProperty(out, base, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `["202604.01.1", ...]`: the versions to give up. */
function parseRecall(value: unknown, fail: (detail: string) => never): string[] {
  if (!Array.isArray(value)) return fail(`cannot unmarshal ${goJsonKind(value)} into field recall of type []string`);
  value.forEach((v, i) => typeof v === 'string' || fail(`cannot unmarshal ${goJsonKind(v)} into field recall[${i}] of type string`));
  return [...new Set(value as string[])];
}

/**
 * D2 read-modify-write: keep the existing `version` / `scripts_version`, replace `hotfixes` wholesale.
 * A non-empty `legacyVersion` (a legacy pointer served by the ConfigMap) replaces `version`.
 */
export function mergePointer(
  existing: HotfixPointer,
  hotfixes: Record<string, string>,
  legacyVersion?: string,
  rollout?: Record<string, RolloutEntry>,
  recall?: string[],
): HotfixPointer {
  const useLegacy = legacyVersion !== undefined && goTrimSpace(legacyVersion) !== '';
  // The waves travel with the map they stage: replaced together, never mixed with an older map's waves.
  const waves = rollout !== undefined && Object.keys(rollout).length > 0 ? { rollout: { ...rollout } } : {};
  return {
    version: useLegacy ? legacyVersion : existing.version,
    scriptsVersion: existing.scriptsVersion,
    hotfixes: { ...hotfixes },
    ...waves,
    ...(recall !== undefined && recall.length > 0 ? { recall: [...recall] } : {}),
  };
}

/**
 * Compact JSON, key order `version`, `scripts_version` (each omitted when empty, as the reference's
 * `omitempty` tags do: `{"hotfixes":{}}`), `hotfixes` (always present, keys sorted by code point = Go's byte
 * order), `rollout` (omitted when empty, keys sorted), Go HTML-safe escaping. Built by hand so integer-like
 * map keys keep their sorted place. Every writer of the staged pointer goes through here.
 */
export function serializePointer(p: HotfixPointer): string {
  const parts: string[] = [];
  if (p.version !== '') parts.push(`"version":${goJson(p.version)}`);
  if (p.scriptsVersion !== '') parts.push(`"scripts_version":${goJson(p.scriptsVersion)}`);
  const keys = Object.keys(p.hotfixes).sort(compareCodePoints);
  const entries = keys.map((k) => `${goJson(k)}:${goJson(p.hotfixes[k] ?? '')}`);
  parts.push(`"hotfixes":{${entries.join(',')}}`);
  // Left out when empty: a pointer without waves stays byte-identical to the reference's.
  const waves = Object.keys(p.rollout ?? {}).sort(compareCodePoints);
  if (waves.length > 0) {
    const steps = (k: string) => {
      const all = p.rollout![k]!.schedule;
      if (!all) return '';
      const { schedule, gatedSchedule } = splitGated(all);
      const list = (steps: ScheduleStep[]) =>
        `[${steps.map((s) => `{"at":${goJson(s.at)},"percent":${s.percent}${s.gated ? ',"gated":true' : ''}}`).join(',')}]`;
      return `,"schedule":${list(schedule)}${gatedSchedule ? `,"gatedSchedule":${list(gatedSchedule)}` : ''}`;
    };
    const wave = (k: string) => `${goJson(k)}:{"percent":${p.rollout![k]!.percent},"salt":${goJson(p.rollout![k]!.salt)}${steps(k)}}`;
    parts.push(`"rollout":{${waves.map(wave).join(',')}}`);
  }
  const recall = [...new Set(p.recall ?? [])].sort(compareCodePoints);
  if (recall.length > 0) parts.push(`"recall":[${recall.map((v) => goJson(v)).join(',')}]`);
  return `{${parts.join(',')}}`;
}

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const y = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

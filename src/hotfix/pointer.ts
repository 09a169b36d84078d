// The hotfix pointer file (spec 6.1, D2). Pure: parsing and serialising text; reading and writing the file
// is the caller's job. Parsing follows Go encoding/json into the reference struct: keys match
// case-insensitively (exact match preferred), extra keys are ignored, `null` leaves a field empty, a value
// of the wrong type is an error.
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { AgentError } from '../platform/errors.ts';
import { goJson } from '../platform/json.ts';

export interface HotfixPointer {
  /** Legacy single pointer (SEED). */
  version: string;
  /** HEAD addition; kept as read, never interpreted by the agent. */
  scriptsVersion: string;
  /** Base `YYYYMM.DD` -> full version `YYYYMM.DD.PATCH`. */
  hotfixes: Record<string, string>;
}

export function emptyPointer(): HotfixPointer {
  return { version: '', scriptsVersion: '', hotfixes: {} };
}

const FIELDS = [
  ['version', 'version'],
  ['scripts_version', 'scriptsVersion'],
  ['hotfixes', 'hotfixes'],
] as const;

/**
 * Parses pointer text. `null` (file missing), empty or whitespace-only text and a JSON `null` document are
 * "no pointer" (an empty pointer). Errors are `parsing hotfix config <path>: ...`.
 */
export function parsePointer(text: string | null, path: string): HotfixPointer {
  const pointer = emptyPointer();
  if (text === null || text.trim() === '') return pointer;
  const fail = (detail: string): never => {
    throw new AgentError('ANC_HOTFIX', `parsing hotfix config ${path}: ${detail}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // Never the parser's message: it quotes the content (a pointer may be a symlink to any file).
    return fail(jsonSyntaxProblem(text) ?? 'not valid JSON');
  }
  if (doc === null) return pointer;
  if (typeof doc !== 'object' || Array.isArray(doc)) return fail(`cannot unmarshal ${jsonKind(doc)} into hotfix config object`);
  const obj = doc as Record<string, unknown>;
  for (const [key, field] of FIELDS) {
    const value = lookupField(obj, key);
    if (value === undefined || value === null) continue;
    if (field === 'hotfixes') pointer.hotfixes = parseMap(value, fail);
    else if (typeof value === 'string') pointer[field] = value;
    else fail(`cannot unmarshal ${jsonKind(value)} into field ${key} of type string`);
  }
  return pointer;
}

function parseMap(value: unknown, fail: (detail: string) => never): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`cannot unmarshal ${jsonKind(value)} into field hotfixes of type map[string]string`);
  }
  const out: Record<string, string> = {};
  for (const [base, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v !== 'string') fail(`cannot unmarshal ${jsonKind(v)} into field hotfixes[${JSON.stringify(base)}] of type string`);
    // defineProperty: a `__proto__` key stays an ordinary entry.
    Object.defineProperty(out, base, { value: v ?? '', enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Exact key first; otherwise the last key that matches under Go's case folding (later keys overwrite). */
function lookupField(obj: Record<string, unknown>, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(obj, name)) return obj[name];
  let found: unknown;
  for (const key of Object.keys(obj)) if (foldKey(key) === name) found = obj[key];
  return found;
}

/** Go's json key folding for ASCII names: case-insensitive, plus the Kelvin sign (k) and long s (s). */
function foldKey(key: string): string {
  return key.replace(/\u212a/g, 'k').replace(/\u017f/g, 's').toLowerCase();
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * D2 read-modify-write: keep the existing `version` / `scripts_version`, replace `hotfixes` wholesale.
 * A non-empty `legacyVersion` (a legacy pointer served by the ConfigMap) replaces `version`.
 */
export function mergePointer(existing: HotfixPointer, hotfixes: Record<string, string>, legacyVersion?: string): HotfixPointer {
  const useLegacy = legacyVersion !== undefined && legacyVersion.trim() !== '';
  return {
    version: useLegacy ? legacyVersion : existing.version,
    scriptsVersion: existing.scriptsVersion,
    hotfixes: { ...hotfixes },
  };
}

/**
 * Compact JSON, key order `version`, `scripts_version` (omitted when empty), `hotfixes` (always present,
 * keys sorted by code point = Go's byte order), Go HTML-safe escaping. Built by hand so integer-like map
 * keys keep their sorted place.
 */
export function serializePointer(p: HotfixPointer): string {
  const parts = [`"version":${goJson(p.version)}`];
  if (p.scriptsVersion !== '') parts.push(`"scripts_version":${goJson(p.scriptsVersion)}`);
  const keys = Object.keys(p.hotfixes).sort(compareCodePoints);
  const entries = keys.map((k) => `${goJson(k)}:${goJson(p.hotfixes[k] ?? '')}`);
  parts.push(`"hotfixes":{${entries.join(',')}}`);
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

// A node's report is untrusted input: any node may write any annotation on its own Node object. Every field
// the fleet views read is checked here, once, for type, size and known values, before any view looks at it.
// A report that fails is `unreadable` (the reason says which field), never a crash, and never a verdict on
// other nodes. Pure.
import { MAX_REPORT_BYTES, type NodeReport, REPORT_SCHEMA_VERSION } from './report.ts';

export type CheckedReport = { report: NodeReport } | { unreadable: string } | undefined;

// C0/C1 controls, and the bidirectional overrides, isolates and marks that reorder what a terminal shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BASE = /^\d{6}\.\d{2}$/;

class Unreadable extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function str(v: unknown, field: string, max = 64): string {
  if (typeof v !== 'string') throw new Unreadable(`${field} is not a string`);
  if (v.length > max) throw new Unreadable(`${field} is longer than ${max} characters`);
  if (UNSAFE.test(v)) throw new Unreadable(`${field} holds control or bidirectional characters`);
  return v;
}
const strOrNull = (v: unknown, field: string, max = 64) => (v === null ? null : str(v, field, max));
function int(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < -1 || v > 2 ** 31) throw new Unreadable(`${field} is not a small integer`);
  return v;
}
const intOrNull = (v: unknown, field: string) => (v === null || v === undefined ? null : int(v, field));
function oneOf<T extends string>(v: unknown, field: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v))
    throw new Unreadable(`${field} is not one of ${values.join(', ')}`);
  return v as T;
}
function obj(v: unknown, field: string): Record<string, unknown> {
  if (!isObject(v)) throw new Unreadable(`${field} is not an object`);
  return v;
}

/** The annotation text -> a checked report; undefined when the node wrote none. */
export function checkReport(text: string | undefined): CheckedReport {
  if (text === undefined) return undefined;
  if (text.length > 4 * MAX_REPORT_BYTES) return { unreadable: `the report is larger than ${4 * MAX_REPORT_BYTES} bytes` };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { unreadable: 'the report is not JSON' };
  }
  try {
    return { report: checked(doc) };
  } catch (error) {
    if (error instanceof Unreadable) return { unreadable: error.message };
    throw error;
  }
}

function checked(doc: unknown): NodeReport {
  const d = obj(doc, 'the report');
  if (d.schemaVersion !== REPORT_SCHEMA_VERSION) throw new Unreadable(`schemaVersion is not ${REPORT_SCHEMA_VERSION}`);
  const h = obj(d.hotfix, 'hotfix');
  const base = strOrNull(h.base ?? null, 'hotfix.base');
  if (base !== null && !BASE.test(base)) throw new Unreadable('hotfix.base is not YYYYMM.DD');
  const q = h.quarantine === null || h.quarantine === undefined ? null : obj(h.quarantine, 'hotfix.quarantine');
  const w = h.wave === null || h.wave === undefined ? null : obj(h.wave, 'hotfix.wave');
  if (w && (typeof w.percent !== 'number' || !(w.percent >= 0 && w.percent <= 100)))
    throw new Unreadable('hotfix.wave.percent is not a number from 0 to 100');
  const s = obj(d.scripts, 'scripts');
  const p = obj(d.pointer, 'pointer');
  if (typeof p.signed !== 'boolean') throw new Unreadable('pointer.signed is not a boolean');
  const serial = p.serial === null || p.serial === undefined ? null : p.serial;
  if (serial !== null && (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 0))
    throw new Unreadable('pointer.serial is not a serial');
  const pr = obj(d.provision, 'provision');
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    bootId: str(d.bootId, 'bootId'),
    time: str(d.time, 'time'),
    platform: str(d.platform, 'platform'),
    baked: str(d.baked, 'baked'),
    running: str(d.running, 'running'),
    binary: oneOf(d.binary, 'binary', ['baked', 'hotfix', 'unknown']),
    hotfix: {
      base,
      requested: str(h.requested ?? '', 'hotfix.requested'),
      decision: str(h.decision, 'hotfix.decision'),
      path: oneOf(h.path, 'hotfix.path', ['hotfix', 'baked', 'fallback']),
      quarantine: q && {
        version: str(q.version, 'hotfix.quarantine.version'),
        reason: str(q.reason ?? '', 'hotfix.quarantine.reason', 300),
        ...(q.cause === undefined ? {} : { cause: str(q.cause, 'hotfix.quarantine.cause', 32) }),
        ...(q.exitCode === undefined ? {} : { exitCode: int(q.exitCode, 'hotfix.quarantine.exitCode') }),
        ...(q.exitName === undefined ? {} : { exitName: str(q.exitName, 'hotfix.quarantine.exitName') }),
      },
      wave: w && {
        percent: w.percent as number,
        ...(w.joinsAt === undefined ? {} : { joinsAt: strOrNull(w.joinsAt, 'hotfix.wave.joinsAt') }),
      },
    },
    scripts: {
      ran: oneOf(s.ran, 'scripts.ran', ['baked', 'hotfix']),
      label: strOrNull(s.label ?? null, 'scripts.label'),
      replaced: int(s.replaced ?? 0, 'scripts.replaced'),
    },
    pointer: { serial, signed: p.signed },
    provision: {
      state: str(pr.state, 'provision.state'),
      exitCode: intOrNull(pr.exitCode, 'provision.exitCode'),
      name: strOrNull(pr.name ?? null, 'provision.name'),
    },
  };
}

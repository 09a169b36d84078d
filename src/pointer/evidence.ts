// The evidence that opens a gated schedule step (docs/hotfix.md "Steps that open on evidence"): a small JSON
// document, signed in a DSSE envelope by an OBSERVER key (keys.ts roles), that says "for pointer serial S,
// the wave before step N of base B was healthy at time T (these counts)", and expires soon. The watch writes
// it into the anc-hotfix-version ConfigMap (`evidence.dsse.json`); check-hotfix verifies it and stages the
// payload beside the pointer; the node's wave decision reads the staged copy. It can only open steps the
// release key already signed: it names a step number of the signed schedule, nothing else.
import { readStateFile } from '../config/json-offset.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { parseEnvelope, serializeEnvelope } from './dsse.ts';
import type { TrustedKey } from './keys.ts';
import { signPayload, verifyEnvelope } from './signature.ts';
import { parseRfc3339 } from './time.ts';

export const EVIDENCE_PAYLOAD_TYPE = 'application/vnd.aks-node-controller.rollout-evidence+json';
/** ConfigMap data key of the evidence envelope. */
export const EVIDENCE_KEY = 'evidence.dsse.json';
/** The envelope's bound: a few bases' counts, never more. */
export const MAX_EVIDENCE_BYTES = 16 * 1024;

export interface EvidenceCounts {
  nodes: number;
  onHotfix: number;
  required: number;
  failed: number;
  timedOut: number;
}

export interface EvidenceBase {
  /** The gated step it opens (1-based, as `rollout status` numbers steps) and that step's percent. */
  step: number;
  percent: number;
  counts: EvidenceCounts;
}

export interface Evidence {
  schemaVersion: 1;
  serial: number;
  time: string;
  expires: string;
  bases: Record<string, EvidenceBase>;
}

const fail = (detail: string): never => {
  throw new AgentError('ANC_HOTFIX', `rollout evidence: ${detail}`, { step: 'invalidPayload' });
};
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown, where: string) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 1e7 ? v : fail(`${where} is not a count`);

/** The signed bytes -> checked evidence; throws naming the field. */
export function parseEvidence(bytes: Uint8Array): Evidence {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return fail('not UTF-8 JSON');
  }
  if (!isObject(doc) || doc.schemaVersion !== 1) return fail('schemaVersion is not 1');
  const serial = doc.serial;
  if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 1) fail('serial must be an integer >= 1');
  for (const key of ['time', 'expires'] as const)
    if (typeof doc[key] !== 'string' || !parseRfc3339(doc[key] as string)) fail(`${key} must be an RFC 3339 time`);
  if (!isObject(doc.bases)) return fail('bases must be an object of base -> {"step","percent","counts"}');
  const bases: Record<string, EvidenceBase> = {};
  for (const [base, entry] of Object.entries(doc.bases)) {
    const where = `bases[${JSON.stringify(base)}]`;
    if (!/^\d{6}\.\d{2}$/.test(base) || !isObject(entry) || !isObject(entry.counts)) fail(`${where} must be {"step","percent","counts"}`);
    const e = entry as Record<string, unknown>;
    const c = e.counts as Record<string, unknown>;
    if (typeof e.percent !== 'number' || !(e.percent >= 0 && e.percent <= 100)) fail(`${where}.percent must be 0..100`);
    const step = count(e.step, `${where}.step`);
    if (step < 2) fail(`${where}.step must be 2 or more (the first step is never gated)`);
    const counts = {
      nodes: count(c.nodes, `${where}.counts.nodes`),
      onHotfix: count(c.onHotfix, `${where}.counts.onHotfix`),
      required: count(c.required, `${where}.counts.required`),
      failed: count(c.failed, `${where}.counts.failed`),
      timedOut: count(c.timedOut, `${where}.counts.timedOut`),
    };
    Object.defineProperty(bases, base, { value: { step, percent: e.percent as number, counts }, enumerable: true });
  }
  return { schemaVersion: 1, serial: serial as number, time: doc.time as string, expires: doc.expires as string, bases };
}

/** Compact JSON in a fixed key order. */
export function renderEvidence(e: Evidence): string {
  const bases = Object.fromEntries(
    Object.keys(e.bases)
      .sort()
      .map((b) => [b, { step: e.bases[b]!.step, percent: e.bases[b]!.percent, counts: e.bases[b]!.counts }]),
  );
  return JSON.stringify({ schemaVersion: 1, serial: e.serial, time: e.time, expires: e.expires, bases });
}

/** The envelope text over `renderEvidence(e)`, signed by an observer key (the watch's --evidence-key). */
export function signEvidence(e: Evidence, privateKeyPem: string, keyid: string): string {
  const payload = Buffer.from(renderEvidence(e), 'utf8');
  const { sig } = signPayload(payload, privateKeyPem, keyid, EVIDENCE_PAYLOAD_TYPE);
  return serializeEnvelope({ payloadType: EVIDENCE_PAYLOAD_TYPE, payload, signatures: [{ keyid, sig }] });
}

/**
 * Whether a node accepts the served envelope: an observer key's signature, a payload that reads, the serial
 * of the pointer it staged, not expired. Returns the payload bytes to stage, or why it is refused.
 */
export function acceptEvidence(
  text: string,
  keys: readonly TrustedKey[],
  serial: number | null,
  now: Date,
): { payload: Buffer; evidence: Evidence; keyid: string } | { refused: string } {
  try {
    if (Buffer.byteLength(text) > MAX_EVIDENCE_BYTES) return { refused: `the envelope is larger than ${MAX_EVIDENCE_BYTES} bytes` };
    const { keyid, payload } = verifyEnvelope(parseEnvelope(text), keys, EVIDENCE_PAYLOAD_TYPE);
    const evidence = parseEvidence(payload);
    if (serial === null) return { refused: 'the staged pointer is unsigned: evidence binds to a signed serial' };
    if (evidence.serial !== serial) return { refused: `it is for pointer serial ${evidence.serial}, not ${serial}` };
    if (now.getTime() >= parseRfc3339(evidence.expires)!.getTime()) return { refused: `it expired at ${evidence.expires}` };
    return { payload, evidence, keyid };
  } catch (error) {
    return { refused: errorMessage(error) };
  }
}

/**
 * The highest gated step the staged evidence opens for `base` now (0: none), and why it opens none. The
 * staged copy was verified by check-hotfix; its serial must still be the node's accepted one.
 */
export function stagedEvidenceStep(deps: Pick<Deps, 'fs' | 'paths'>, base: string, now: Date): { opened: number; problem?: string } {
  let text: string;
  let serial: number | null = null;
  try {
    if (!deps.fs.stat(deps.paths.hotfixEvidence)) return { opened: 0, problem: 'no evidence is staged' };
    text = deps.fs.readText(deps.paths.hotfixEvidence, 'state');
    const state = readStateFile(deps.fs, deps.paths.hotfixPointerSerial) as { serial?: unknown } | null | undefined;
    if (typeof state?.serial === 'number') serial = state.serial;
  } catch (error) {
    return { opened: 0, problem: `reading the staged evidence: ${errorMessage(error)}` };
  }
  try {
    const evidence = parseEvidence(Buffer.from(text, 'utf8'));
    if (serial === null || evidence.serial !== serial)
      return { opened: 0, problem: `the staged evidence is for serial ${evidence.serial}, not ${serial ?? 'an unsigned pointer'}` };
    if (now.getTime() >= parseRfc3339(evidence.expires)!.getTime())
      return { opened: 0, problem: `the evidence expired at ${evidence.expires}` };
    const entry = Object.hasOwn(evidence.bases, base) ? evidence.bases[base] : undefined;
    return entry ? { opened: entry.step } : { opened: 0, problem: `the evidence names no step of base ${base}` };
  } catch (error) {
    return { opened: 0, problem: errorMessage(error) };
  }
}

/** The live ConfigMap's evidence per base as the fleet views read it (unverified: it only informs `stalled`). */
export function liveEvidence(data: Record<string, string>): Record<string, { step: number; serial: number; expires: string }> {
  const text = data[EVIDENCE_KEY];
  if (text === undefined || text.length > MAX_EVIDENCE_BYTES) return {};
  try {
    const e = parseEvidence(parseEnvelope(text).payload);
    return Object.fromEntries(Object.entries(e.bases).map(([b, v]) => [b, { step: v.step, serial: e.serial, expires: e.expires }]));
  } catch {
    return {};
  }
}

// The node's decision about a pointer it was handed (check-hotfix, its cold start, and `hotfix pointer
// verify` all call this one function, so the tool runs the node's exact checks). In order:
//   envelope present -> signature (signatureInvalid) -> payload -> serial (rolledBack: lower than the
//                       floor, or the floor's serial with another payload) -> expiry (expired)
//                       -> scope (outOfScope) -> accepted, and only the signed bytes are handed on;
//   no envelope      -> enforce: unsigned; unsigned-allowed: the unsigned text, exactly as before.
import { errorMessage, isAgentError } from '../platform/errors.ts';
import { sha256Hex } from '../platform/hash.ts';
import { parseEnvelope } from './dsse.ts';
import type { TrustedKey } from './keys.ts';
import { parseSignedPointer, type SignedPointer } from './payload.ts';
import { describeScope, outOfScopeReason, type NodeFacts } from './scope.ts';
import { verifyEnvelope } from './signature.ts';

export const SIGNING_MODES = ['unsigned-allowed', 'enforce'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];
export const DEFAULT_SIGNING_MODE: SigningMode = 'unsigned-allowed';

/** The five ways a pointer is refused, plus a signed payload that is not a pointer this agent reads. */
export type Rejection = 'unsigned' | 'signatureInvalid' | 'expired' | 'rolledBack' | 'outOfScope' | 'invalidPayload';

export interface GateInput {
  /** The DSSE envelope (JSON text or parsed object), when the pointer came with one. */
  envelope?: unknown;
  /** The unsigned pointer text, when there is one (read only when there is no envelope). */
  unsignedText?: string;
}

export interface GateContext {
  mode: SigningMode;
  keys: readonly TrustedKey[];
  /** The node's facts; undefined = not known (the verify tool without node facts: scope not checked). */
  facts: NodeFacts | undefined;
  /** The highest serial this node accepted before (0 = none). */
  minSerial: number;
  /**
   * sha256 (hex) of the payload accepted at `minSerial`, when known: another payload under that same
   * serial is refused (a reused serial could otherwise replay either payload against the other's nodes).
   */
  floorPayloadSha256?: string;
  now: Date;
}

export type Verdict =
  | { accepted: true; signed: false; text: string }
  | { accepted: true; signed: true; text: string; pointer: SignedPointer; keyid: string; scopeChecked: boolean; payloadSha256: string }
  | { accepted: false; outcome: Rejection; reason: string; pointer?: SignedPointer; keyid?: string };

/** Reads ANC_HOTFIX_POINTER_SIGNING; an unknown value enforces (the safe reading of a typo). */
export function signingMode(value: string | undefined): { mode: SigningMode; warning?: string } {
  const text = (value ?? '').trim();
  if (text === '') return { mode: DEFAULT_SIGNING_MODE };
  if ((SIGNING_MODES as readonly string[]).includes(text)) return { mode: text as SigningMode };
  return { mode: 'enforce', warning: `ANC_HOTFIX_POINTER_SIGNING=${JSON.stringify(text)} is not enforce or unsigned-allowed; enforcing` };
}

export function decidePointer(input: GateInput, context: GateContext): Verdict {
  if (input.envelope === undefined) {
    if (context.mode === 'enforce') {
      return { accepted: false, outcome: 'unsigned', reason: 'the pointer carries no signature and ANC_HOTFIX_POINTER_SIGNING=enforce' };
    }
    return { accepted: true, signed: false, text: input.unsignedText ?? '' };
  }
  let keyid: string;
  let payload: Buffer;
  try {
    ({ keyid, payload } = verifyEnvelope(parseEnvelope(input.envelope), context.keys));
  } catch (error) {
    return { accepted: false, outcome: 'signatureInvalid', reason: reasonOf(error) };
  }
  let pointer: SignedPointer;
  try {
    pointer = parseSignedPointer(payload);
  } catch (error) {
    return { accepted: false, outcome: 'invalidPayload', reason: reasonOf(error), keyid };
  }
  const refuse = (outcome: Rejection, reason: string): Verdict => ({ accepted: false, outcome, reason, pointer, keyid });
  if (pointer.serial < context.minSerial) {
    return refuse('rolledBack', `serial ${pointer.serial} is lower than ${context.minSerial}, the highest this node accepted`);
  }
  if (pointer.serial === context.minSerial && context.floorPayloadSha256 !== undefined) {
    const digest = payloadSha256(payload);
    if (digest !== context.floorPayloadSha256) {
      return refuse(
        'rolledBack',
        `serial ${pointer.serial} was already accepted with another payload (sha256 ${context.floorPayloadSha256.slice(0, 12)}…, this one ${digest.slice(0, 12)}…): a changed pointer needs a higher serial`,
      );
    }
  }
  if (context.now.getTime() >= pointer.expiresAt.getTime()) {
    return refuse('expired', `the pointer expired at ${pointer.expires} (now ${context.now.toISOString()})`);
  }
  if (context.facts !== undefined) {
    const why = outOfScopeReason(pointer.scope, context.facts);
    if (why !== undefined) return refuse('outOfScope', `${why} (scope: ${describeScope(pointer.scope)})`);
  }
  return {
    accepted: true,
    signed: true,
    text: payload.toString('utf8'),
    pointer,
    keyid,
    scopeChecked: context.facts !== undefined,
    payloadSha256: payloadSha256(payload),
  };
}

/** The digest a node records for an accepted payload (the signed bytes, exactly). */
export function payloadSha256(payload: Uint8Array): string {
  return sha256Hex(payload);
}

function reasonOf(error: unknown): string {
  return isAgentError(error) ? error.message : `unexpected error: ${errorMessage(error)}`;
}

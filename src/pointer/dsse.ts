// DSSE v1 envelopes (github.com/secure-systems-lab/dsse, envelope.md and protocol.md), implemented from
// the specification: the JSON envelope, the pre-authentication encoding (PAE) that is what gets signed,
// and strict base64. Pure: no keys, no crypto (signature.ts does that).
import { AgentError } from '../platform/errors.ts';

/** The payload type of a signed hotfix pointer (bound into every signature through PAE). */
export const POINTER_PAYLOAD_TYPE = 'application/vnd.aks-node-controller.hotfix-pointer+json';

export interface DsseSignature {
  keyid: string;
  /** The raw signature bytes (decoded). */
  sig: Buffer;
}

export interface DsseEnvelope {
  payloadType: string;
  /** The signed bytes, exactly (decoded from base64). */
  payload: Buffer;
  signatures: DsseSignature[];
}

/** PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, LEN = decimal byte count. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  const head = Buffer.from(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `, 'utf8');
  return Buffer.concat([head, payload]);
}

export const MAX_SIGNATURES = 16;

const STD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Base64 in either alphabet (DSSE asks receivers to accept both), but only in its canonical form: a
 * re-encoding must give the same text. Lenient decoders skip stray characters and ignore unused bits, so
 * two different texts could carry the same bytes; a tampered envelope must never verify that way.
 */
export function strictBase64(text: unknown, what: string): Buffer {
  if (typeof text !== 'string') throw envelopeError(`${what} is not a string`);
  const alphabet = STD.test(text) ? 'base64' : URL_SAFE.test(text) ? 'base64url' : undefined;
  if (alphabet === undefined) throw envelopeError(`${what} is not base64`);
  const bytes = Buffer.from(text, alphabet);
  const unpadded = bytes.toString(alphabet).replace(/=+$/, '');
  const padded = unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4);
  if (text !== unpadded && text !== padded) throw envelopeError(`${what} is not canonical base64`);
  return bytes;
}

function envelopeError(message: string): AgentError {
  return new AgentError('ANC_HOTFIX', `DSSE envelope: ${message}`, { step: 'signatureInvalid' });
}

/** Parses an envelope given as JSON text or as the already-parsed object (node config). Exact keys. */
export function parseEnvelope(input: unknown): DsseEnvelope {
  let doc = input;
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input);
    } catch {
      throw envelopeError('not valid JSON');
    }
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw envelopeError('not a JSON object');
  const obj = doc as Record<string, unknown>;
  // Unknown fields are refused, so no edit of the envelope text can pass unnoticed (a renamed field too).
  const unknown = (o: object, known: string[], where: string) => {
    const extra = Object.keys(o).find((k) => !known.includes(k));
    if (extra !== undefined) throw envelopeError(`${where}unknown field ${JSON.stringify(extra)}`);
  };
  unknown(obj, ['payloadType', 'payload', 'signatures'], '');
  if (typeof obj.payloadType !== 'string') throw envelopeError('payloadType is missing or not a string');
  const payload = strictBase64(obj.payload, 'payload');
  if (!Array.isArray(obj.signatures) || obj.signatures.length === 0) throw envelopeError('signatures is missing or empty');
  // Each signature may cost a verification per trusted key: a pointer needs a few, never thousands.
  if (obj.signatures.length > MAX_SIGNATURES) throw envelopeError(`${obj.signatures.length} signatures (at most ${MAX_SIGNATURES})`);
  const signatures = obj.signatures.map((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw envelopeError(`signatures[${i}] is not an object`);
    unknown(entry, ['keyid', 'sig'], `signatures[${i}]: `);
    const { keyid, sig } = entry as Record<string, unknown>;
    if (keyid !== undefined && typeof keyid !== 'string') throw envelopeError(`signatures[${i}].keyid is not a string`);
    return { keyid: keyid ?? '', sig: strictBase64(sig, `signatures[${i}].sig`) };
  });
  return { payloadType: obj.payloadType, payload, signatures };
}

/** The envelope as compact JSON, standard padded base64 (what `hotfix pointer sign` writes). */
export function serializeEnvelope(envelope: DsseEnvelope): string {
  return JSON.stringify({
    payloadType: envelope.payloadType,
    payload: envelope.payload.toString('base64'),
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig.toString('base64') })),
  });
}

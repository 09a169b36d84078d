// Ed25519 over DSSE (dsse.ts) with node:crypto (bun's compiled runtime has it too): verify an envelope
// against the trusted key set, and sign one (the publishing tool). Why DSSE + Ed25519: the envelope signs
// the exact payload bytes plus their type (no canonicalisation step to get wrong), it is the format of
// in-toto and Sigstore, and Ed25519 keys and signatures are small, deterministic and fast to check.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { pae, POINTER_PAYLOAD_TYPE, type DsseEnvelope } from './dsse.ts';
import { keysFor, type TrustedKey } from './keys.ts';

export interface VerifiedEnvelope {
  /** The key whose signature verified. */
  keyid: string;
  payload: Buffer;
}

function invalid(message: string): AgentError {
  return new AgentError('ANC_HOTFIX', message, { step: 'signatureInvalid' });
}

function publicKeyOf(key: TrustedKey): KeyObject {
  let object: KeyObject;
  try {
    object = createPublicKey(key.publicKey);
  } catch (error) {
    throw invalid(`trusted key ${key.keyid} cannot be loaded: ${errorMessage(error)}`);
  }
  if (object.asymmetricKeyType !== 'ed25519') throw invalid(`trusted key ${key.keyid} is not an Ed25519 key`);
  return object;
}

/**
 * Accepts when at least one signature verifies with a trusted key: a signature names its key by keyid
 * (then only that key is tried); one without a keyid is tried against every key. Unknown keyids are
 * skipped, so an envelope signed by an old and a new key verifies on nodes that know either.
 */
export function verifyEnvelope(
  envelope: DsseEnvelope,
  allKeys: readonly TrustedKey[],
  payloadType: string = POINTER_PAYLOAD_TYPE,
): VerifiedEnvelope {
  if (envelope.payloadType !== payloadType) {
    throw invalid(`payloadType ${JSON.stringify(envelope.payloadType)} is not ${payloadType}`);
  }
  // Key roles: release keys sign pointers (halts, recalls), observer keys only evidence; never the other.
  const role = payloadType === POINTER_PAYLOAD_TYPE ? 'release' : 'observer';
  const keys = keysFor(allKeys, role);
  if (keys.length === 0)
    throw invalid(
      allKeys.length === 0
        ? 'this binary trusts no pointer-signing keys (built without --pointer-keys)'
        : `this binary trusts no ${role} key (its key set has none with that role)`,
    );
  const message = pae(envelope.payloadType, envelope.payload);
  const named = envelope.signatures.map((s) => s.keyid).filter((id) => id !== '');
  for (const signature of envelope.signatures) {
    const candidates = signature.keyid === '' ? keys : keys.filter((k) => k.keyid === signature.keyid);
    for (const key of candidates) {
      if (signature.sig.length === 64 && verify(null, message, publicKeyOf(key), signature.sig)) {
        return { keyid: key.keyid, payload: envelope.payload };
      }
    }
  }
  const trusted = keys.map((k) => k.keyid).join(', ');
  const wrongRole = named.filter((id) => allKeys.some((k) => k.keyid === id) && !keys.some((k) => k.keyid === id));
  if (wrongRole.length > 0 && !named.some((id) => keys.some((k) => k.keyid === id)))
    throw invalid(
      `signed by ${wrongRole.join(', ')}, a key whose role is not ${role}: ${role === 'release' ? 'an observer key signs only evidence' : 'a release key never signs evidence'}`,
    );
  const known = named.filter((id) => keys.some((k) => k.keyid === id));
  throw invalid(
    known.length > 0
      ? `signature by key ${known.join(', ')} does not verify (payload or signature altered)`
      : `no signature by a trusted key (signed by: ${named.join(', ') || 'unnamed keys'}; trusted: ${trusted})`,
  );
}

/** Whether two SPKI PEM texts are the same public key (their DER bytes; PEM wrapping and line ends aside). */
export function samePublicKey(a: string, b: string): boolean {
  try {
    const der = (pem: string) => createPublicKey(pem).export({ type: 'spki', format: 'der' });
    return der(a).equals(der(b));
  } catch {
    return false;
  }
}

/** Signs `payload` with a PEM private key (PKCS#8). The key text never appears in an error. */
export function signPayload(
  payload: Buffer,
  privateKeyPem: string,
  keyid: string,
  payloadType: string = POINTER_PAYLOAD_TYPE,
): { keyid: string; sig: Buffer; publicKeyPem: string } {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    throw new AgentError('ANC_USAGE', 'the --key file is not a PEM private key', {
      hint: 'Generate one with `openssl genpkey -algorithm ed25519 -out pointer-signing.pem` (docs/pointer-signing.md).',
    });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new AgentError('ANC_USAGE', `the --key file holds a ${key.asymmetricKeyType ?? 'unknown'} key, not an Ed25519 key`, {
      hint: 'Pointer signing uses Ed25519 keys only (docs/pointer-signing.md).',
    });
  }
  const sig = sign(null, pae(payloadType, payload), key);
  const publicKeyPem = String(createPublicKey(key).export({ type: 'spki', format: 'pem' }));
  return { keyid, sig, publicKeyPem };
}

// The anc-hotfix-version ConfigMap as the publishing tool writes and reads it: `hotfixes.json` holds the
// signed payload's exact bytes (older agents read it as an ordinary pointer), `pointer.dsse.json` the
// DSSE envelope over those bytes. Reads JSON or YAML (what `kubectl get -o yaml` prints).
import { AgentError } from '../platform/errors.ts';
import { parseEnvelope, POINTER_PAYLOAD_TYPE, serializeEnvelope, type DsseEnvelope } from './dsse.ts';
import { ENVELOPE_KEY } from './node-gate.ts';
import { parseSignedPointer } from './payload.ts';
import { samePublicKey, signPayload } from './signature.ts';
import type { TrustedKey } from './keys.ts';

export const CONFIGMAP_NAME = 'anc-hotfix-version';
export const CONFIGMAP_NAMESPACE = 'kube-system';
export const POINTER_KEY = 'hotfixes.json';

export interface ConfigMapDoc {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  data: Record<string, string>;
}

export function configMapFor(payloadText: string): ConfigMapDoc {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGMAP_NAME, namespace: CONFIGMAP_NAMESPACE },
    data: { [POINTER_KEY]: payloadText },
  };
}

export async function formatConfigMap(doc: ConfigMapDoc, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  const { stringify } = await import('yaml');
  // Long lines stay whole: the payload must reach the apiserver byte for byte.
  return stringify(doc, { lineWidth: 0 });
}

/** A ConfigMap file (JSON or YAML) -> the document; `where` names it in errors. */
export async function parseConfigMapText(text: string, where: string): Promise<ConfigMapDoc> {
  const fail = (detail: string): never => {
    throw new AgentError('ANC_USAGE', `${where}: ${detail}`, {
      hint: 'Pass a ConfigMap written by `hotfix pointer render` or `kubectl get configmap -o yaml`.',
    });
  };
  let doc: unknown;
  try {
    const { parse } = await import('yaml');
    // JSON is YAML; the core schema keeps the data values strings as written.
    doc = parse(text, { uniqueKeys: true, maxAliasCount: 0 });
  } catch (error) {
    const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    return fail(`not valid YAML or JSON${line ? ` (line ${line})` : ''}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('not a ConfigMap object');
  const cm = doc as Record<string, unknown>;
  if (cm.kind !== 'ConfigMap') fail(`kind is ${JSON.stringify(cm.kind ?? null)}, expected "ConfigMap"`);
  const data = cm.data ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail('data is not a map');
  for (const [key, value] of Object.entries(data)) if (typeof value !== 'string') fail(`data.${key} is not a string`);
  return {
    apiVersion: String(cm.apiVersion ?? 'v1'),
    kind: 'ConfigMap',
    metadata: (cm.metadata ?? {}) as Record<string, unknown>,
    data: data as Record<string, string>,
  };
}

/**
 * Adds a signature by `keyid` over `hotfixes.json` (replacing an earlier one by the same key, keeping
 * the others: signing with the old and the new key is how a rotation overlaps). Refuses a payload the
 * node would not read, and an envelope that signs other bytes than `hotfixes.json`.
 */
/**
 * `trusted`: the key set this binary bakes; a key id it knows with another public key than `privateKeyPem`'s
 * is refused here, at signing, rather than read as "altered" by every node at verify (issue 40).
 */
export function signConfigMap(doc: ConfigMapDoc, privateKeyPem: string, keyid: string, trusted: readonly TrustedKey[] = []): ConfigMapDoc {
  const text = doc.data[POINTER_KEY];
  if (text === undefined)
    throw new AgentError('ANC_USAGE', `the ConfigMap has no data.${POINTER_KEY} to sign`, {
      hint: 'Render it first: aks-node-controller hotfix pointer render ...',
    });
  const payload = Buffer.from(text, 'utf8');
  try {
    parseSignedPointer(payload);
  } catch (error) {
    throw new AgentError('ANC_USAGE', `data.${POINTER_KEY} is not a signable pointer: ${(error as Error).message}`, {
      hint: 'Render it with `hotfix pointer render` (it adds serial, expires and scope).',
    });
  }
  let envelope: DsseEnvelope = { payloadType: POINTER_PAYLOAD_TYPE, payload, signatures: [] };
  const existing = doc.data[ENVELOPE_KEY];
  if (existing !== undefined) {
    const previous = parseEnvelope(existing);
    if (!previous.payload.equals(payload) || previous.payloadType !== POINTER_PAYLOAD_TYPE) {
      throw new AgentError('ANC_USAGE', `data.${ENVELOPE_KEY} signs different bytes than data.${POINTER_KEY}`, {
        hint: `Remove data.${ENVELOPE_KEY} and sign again with every key.`,
      });
    }
    envelope = { ...previous, signatures: previous.signatures.filter((s) => s.keyid !== keyid) };
  }
  const { sig, publicKeyPem } = signPayload(payload, privateKeyPem, keyid);
  const known = trusted.find((k) => k.keyid === keyid);
  if (known && !samePublicKey(known.publicKey, publicKeyPem))
    throw new AgentError(
      'ANC_USAGE',
      `--key does not match key id "${keyid}": this binary bakes another public key under that id, so nodes built like it would refuse the signature (as altered)`,
      {
        hint: `Sign with the private key of "${keyid}", or give the key id the nodes know this key by (\`hotfix pointer verify\` lists the baked key ids).`,
      },
    );
  envelope.signatures.push({ keyid, sig });
  return { ...doc, data: { ...doc.data, [ENVELOPE_KEY]: serializeEnvelope(envelope) } };
}

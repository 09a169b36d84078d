// Pointer-signing keys made at test time (never committed), the agent built with them baked in, and an
// independent DSSE signer (written from the specification, not with the agent's code) so tests can
// craft envelopes the publishing tool refuses to make (expired, unknown key, tampered).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface TestKey {
  keyid: string;
  privateKey: KeyObject;
  privatePem: string;
  publicPem: string;
}

function makeKey(keyid: string): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    keyid,
    privateKey,
    privatePem: String(privateKey.export({ type: 'pkcs8', format: 'pem' })),
    publicPem: String(publicKey.export({ type: 'spki', format: 'pem' })),
  };
}

export const DIR = mkdtempSync(join(tmpdir(), 'anc-pointer-keys-'));
process.on('exit', () => rmSync(DIR, { recursive: true, force: true }));

/** Trusted (baked): the current and the next key of a rotation. Untrusted: a stranger's key. */
export const CURRENT = makeKey('fleet-2026a');
export const NEXT = makeKey('fleet-2026b');
export const STRANGER = makeKey('stranger');

export function keyFile(key: TestKey): string {
  const path = join(DIR, `${key.keyid}.pem`);
  writeFileSync(path, key.privatePem, { mode: 0o600 });
  return path;
}

export const KEYSET_FILE = join(DIR, 'pointer-keys.json');
writeFileSync(
  KEYSET_FILE,
  JSON.stringify({ keys: [CURRENT, NEXT].map((k) => ({ keyid: k.keyid, algorithm: 'ed25519', publicKey: k.publicPem })) }),
);

/** The agent built from this checkout with the test key set baked in (built once per test process). */
export const SIGNED_BIN_DIR = join(DIR, 'bin');
export const BUILD_OUTPUT = execFileSync(
  process.execPath,
  [resolve('build.mjs'), '--outdir', SIGNED_BIN_DIR, '--pointer-keys', KEYSET_FILE],
  { encoding: 'utf8' },
);
export const SIGNED_BIN = join(SIGNED_BIN_DIR, 'aks-node-controller');

export const PAYLOAD_TYPE = 'application/vnd.aks-node-controller.hotfix-pointer+json';

/** DSSE v1 PAE, from the specification. */
function pae(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${body.length} `), body]);
}

export function envelope(payload: string, keys: TestKey[], type = PAYLOAD_TYPE): string {
  const body = Buffer.from(payload);
  return JSON.stringify({
    payloadType: type,
    payload: body.toString('base64'),
    signatures: keys.map((k) => ({ keyid: k.keyid, sig: sign(null, pae(type, body), k.privateKey).toString('base64') })),
  });
}

export interface PayloadFields {
  serial?: number;
  expires?: string;
  scope?: Record<string, string[]>;
  hotfixes?: Record<string, string>;
  rollout?: Record<string, { percent: number; salt: string }>;
}

export const FUTURE = '2099-01-01T00:00:00Z';

export function payload(fields: PayloadFields): string {
  return JSON.stringify({
    schemaVersion: 1,
    serial: fields.serial ?? 1,
    expires: fields.expires ?? FUTURE,
    scope: fields.scope ?? {},
    hotfixes: fields.hotfixes ?? {},
    ...(fields.rollout ? { rollout: fields.rollout } : {}),
  });
}

/** ConfigMap data: the unsigned copy plus the envelope, as `hotfix pointer sign` lays it out. */
export function signedData(fields: PayloadFields, keys: TestKey[] = [CURRENT]): Record<string, string> {
  const text = payload(fields);
  return { 'hotfixes.json': text, 'pointer.dsse.json': envelope(text, keys) };
}

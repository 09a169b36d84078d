// A fleet's pointer-signing key for the rollout tests: a fresh ed25519 key pair, its private key file (for
// `hotfix pointer sign --key-id fleet-a`) and the key set that trusts it (for `--keys`).
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function fleetKeyPair(dir: string, name = 'fleet'): { key: string; keys: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const key = join(dir, `${name}.pem`);
  writeFileSync(key, String(privateKey.export({ type: 'pkcs8', format: 'pem' })), { mode: 0o600 });
  const keys = join(dir, `${name}-keys.json`);
  const entry = { keyid: 'fleet-a', algorithm: 'ed25519', publicKey: String(publicKey.export({ type: 'spki', format: 'pem' })) };
  writeFileSync(keys, JSON.stringify({ keys: [entry] }));
  return { key, keys };
}

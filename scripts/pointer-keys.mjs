// The hotfix-pointer signing key set for build.mjs (`--pointer-keys FILE` / ANC_POINTER_KEYS=FILE),
// in its own file so the build script stays about building. docs/pointer-signing.md.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The pointer-signing key set (src/pointer/keys.ts reads the same format at run time), checked
 * here so a bad file fails the build, not a node: {"keys":[{"keyid","algorithm":"ed25519","publicKey","role"?}]}.
 * Returns the compact JSON to bake ('' = no keys) and the key ids; `fail(message)` reports and exits.
 */
export function readPointerKeys(file, fail) {
  if (file === undefined) return { text: '', ids: [] };
  let doc;
  try {
    doc = JSON.parse(readFileSync(resolve(file), 'utf8'));
  } catch (error) {
    fail(`--pointer-keys ${file}: ${error.code === 'ENOENT' ? 'no such file' : 'not valid JSON'}`);
  }
  if (!Array.isArray(doc?.keys) || doc.keys.length === 0) fail(`--pointer-keys ${file}: "keys" must be a non-empty list`);
  const keys = doc.keys.map((k, i) => {
    const where = `--pointer-keys ${file}: keys[${i}]`;
    if (typeof k?.keyid !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(k.keyid))
      fail(`${where}.keyid must be 1-128 characters of A-Z a-z 0-9 . _ : -`);
    if (k.algorithm !== 'ed25519') fail(`${where}.algorithm must be "ed25519"`);
    let type;
    try {
      type = createPublicKey(String(k.publicKey)).asymmetricKeyType;
    } catch {
      fail(`${where}.publicKey is not a PEM public key`);
    }
    if (type !== 'ed25519') fail(`${where}.publicKey is a ${type} key, not Ed25519`);
    // The key's role (src/pointer/keys.ts): dropping it would bake an observer key as a release key.
    if (k.role !== undefined && k.role !== 'release' && k.role !== 'observer') fail(`${where}.role must be "release" or "observer"`);
    return { keyid: k.keyid, algorithm: 'ed25519', publicKey: k.publicKey, ...(k.role === 'observer' ? { role: 'observer' } : {}) };
  });
  const ids = keys.map((k) => k.keyid);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) fail(`--pointer-keys ${file}: keyid "${twice}" appears twice`);
  return { text: JSON.stringify({ keys }), ids };
}

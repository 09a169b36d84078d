// The trusted pointer-signing keys. build.mjs bakes a key set (`--pointer-keys FILE` or
// ANC_POINTER_KEYS=FILE) into the binary; several keys at once is how keys rotate (by overlap). Format:
//   {"keys":[{"keyid":"<id>","algorithm":"ed25519","publicKey":"<SPKI PEM>"}]}
// Pure: parsing text into entries. Turning PEM into key objects is signature.ts's job.
import { AgentError } from '../platform/errors.ts';

export interface TrustedKey {
  keyid: string;
  algorithm: 'ed25519';
  /** SPKI PEM. */
  publicKey: string;
}

declare const __ANC_POINTER_KEYS__: string | undefined;

/** The key set text build.mjs baked in ('' = none: every signed pointer fails, enforce accepts nothing). */
export const BAKED_POINTER_KEYS: string = typeof __ANC_POINTER_KEYS__ === 'string' ? __ANC_POINTER_KEYS__ : '';

const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Parses and checks a key set file's text; `where` names it in errors. */
export function parseKeySet(text: string, where: string): TrustedKey[] {
  const fail = (detail: string): never => {
    throw new AgentError('ANC_USAGE', `pointer key set ${where}: ${detail}`, {
      hint: 'Expected {"keys":[{"keyid":"<id>","algorithm":"ed25519","publicKey":"<SPKI PEM>"}]} (docs/pointer-signing.md).',
    });
  };
  if (text.trim() === '') return [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return fail('"keys" must be a list');
  const seen = new Set<string>();
  return keys.map((entry, i) => {
    const { keyid, algorithm, publicKey } = (entry ?? {}) as Record<string, unknown>;
    if (typeof keyid !== 'string' || !KEY_ID.test(keyid)) fail(`keys[${i}].keyid must be 1-128 characters of A-Z a-z 0-9 . _ : -`);
    if (seen.has(keyid as string)) fail(`keys[${i}].keyid "${keyid}" appears twice`);
    seen.add(keyid as string);
    if (algorithm !== 'ed25519') fail(`keys[${i}].algorithm must be "ed25519" (got ${JSON.stringify(algorithm ?? null)})`);
    if (typeof publicKey !== 'string' || !publicKey.includes('-----BEGIN PUBLIC KEY-----'))
      fail(`keys[${i}].publicKey must be an SPKI PEM ("-----BEGIN PUBLIC KEY-----")`);
    return { keyid: keyid as string, algorithm: 'ed25519' as const, publicKey: publicKey as string };
  });
}

/** The baked key set (parsed once per run). */
export function bakedKeys(): TrustedKey[] {
  return parseKeySet(BAKED_POINTER_KEYS, '(baked into this binary)');
}

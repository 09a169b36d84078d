// The trusted pointer-signing keys. build.mjs bakes a key set (`--pointer-keys FILE` or
// ANC_POINTER_KEYS=FILE) into the binary; several keys at once is how keys rotate (by overlap). Format:
//   {"keys":[{"keyid":"<id>","algorithm":"ed25519","publicKey":"<SPKI PEM>","role":"release"}]}
// A key has one role: `release` (the default) signs pointers, halts and recalls; `observer` signs only the
// evidence that opens a gated step (evidence.ts). Each is refused for the other's documents.
// Pure: parsing text into entries. Turning PEM into key objects is signature.ts's job.
import { AgentError } from '../platform/errors.ts';

export interface TrustedKey {
  keyid: string;
  algorithm: 'ed25519';
  /** SPKI PEM. */
  publicKey: string;
  /** Absent means release (key sets written before roles). */
  role?: KeyRole;
}

export const KEY_ROLES = ['release', 'observer'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** The keys of one role. */
export function keysFor(keys: readonly TrustedKey[], role: KeyRole): TrustedKey[] {
  return keys.filter((k) => (k.role ?? 'release') === role);
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
    const { keyid, algorithm, publicKey, role } = (entry ?? {}) as Record<string, unknown>;
    if (role !== undefined && !(KEY_ROLES as readonly unknown[]).includes(role))
      fail(`keys[${i}].role must be "release" or "observer" (got ${JSON.stringify(role)})`);
    if (typeof keyid !== 'string' || !KEY_ID.test(keyid)) fail(`keys[${i}].keyid must be 1-128 characters of A-Z a-z 0-9 . _ : -`);
    if (seen.has(keyid as string)) fail(`keys[${i}].keyid "${keyid}" appears twice`);
    seen.add(keyid as string);
    if (algorithm !== 'ed25519') fail(`keys[${i}].algorithm must be "ed25519" (got ${JSON.stringify(algorithm ?? null)})`);
    if (typeof publicKey !== 'string' || !publicKey.includes('-----BEGIN PUBLIC KEY-----'))
      fail(`keys[${i}].publicKey must be an SPKI PEM ("-----BEGIN PUBLIC KEY-----")`);
    return {
      keyid: keyid as string,
      algorithm: 'ed25519' as const,
      publicKey: publicKey as string,
      ...(role === 'observer' ? { role: 'observer' as const } : {}),
    };
  });
}

/** The baked key set (parsed once per run). */
export function bakedKeys(): TrustedKey[] {
  return parseKeySet(BAKED_POINTER_KEYS, '(baked into this binary)');
}

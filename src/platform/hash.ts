// sha256 for commands (custom-data's MIME boundary, config hash/diff): node:crypto, loaded only by the
// commands that need it. Domain code (src/config/rollout.ts) carries its own dependency-free sha256 so
// the rollout library runs on any JavaScript platform; test/unit/rollout checks the two agree.
// Under bun the runtime's native hasher (Bun.CryptoHasher): loading node:crypto costs about 1-5 MiB
// resident and 2-5 ms; under Node (the unit tests) node:crypto, loaded on the first hash.

export interface Sha256 {
  update(data: string | Uint8Array): Sha256;
  digest(encoding: 'hex'): string;
}

const BunHasher = (globalThis as { Bun?: { CryptoHasher: new (algorithm: 'sha256') => Sha256 } }).Bun?.CryptoHasher;

/** An incremental sha256. */
export function createSha256(): Sha256 {
  return BunHasher ? new BunHasher('sha256') : process.getBuiltinModule('node:crypto').createHash('sha256');
}

/** Lowercase hex sha256 of a string's UTF-8 bytes (or of raw bytes). */
export function sha256Hex(data: string | Uint8Array): string {
  return createSha256().update(data).digest('hex');
}

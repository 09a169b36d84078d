// sha256 for commands (custom-data's MIME boundary, config hash/diff): node:crypto, loaded only by the
// commands that need it. Domain code (src/config/rollout.ts) carries its own dependency-free sha256 so
// the rollout library runs on any JavaScript platform; test/unit/rollout checks the two agree.
// node:crypto loads on the first hash, not at start-up (the hotfix decision imports this on every boot).
const createHash = (algorithm: string) => process.getBuiltinModule('node:crypto').createHash(algorithm);

/** Lowercase hex sha256 of a string's UTF-8 bytes (or of raw bytes). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

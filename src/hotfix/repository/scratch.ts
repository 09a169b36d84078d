// A private working directory for one fast-path run, beside the staged binary (same file system, so the
// verified candidate is renamed into place). Removed in every outcome; nothing in it is ever executed
// except the candidate that is then renamed or deleted.
import type { Deps } from '../../platform/deps.ts';
import { TEMP_PREFIX } from '../../platform/temp-files.ts';

export const SCRATCH_PREFIX = TEMP_PREFIX.fetchScratch;

export interface Scratch {
  dir: string;
  file(name: string): string;
  write(name: string, data: string | Uint8Array, mode?: number): string;
  remove(): void;
}

export function createScratch(deps: Deps): Scratch {
  // Web Crypto (built into every runtime): node:crypto is not loaded for a name.
  const random = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(6))).toString('hex');
  const dir = `${deps.paths.containersDir}/${SCRATCH_PREFIX}${random}`;
  deps.fs.mkdirp(deps.paths.containersDir);
  deps.fs.mkdirp(dir, 0o700);
  const file = (name: string) => `${dir}/${name}`;
  return {
    dir,
    file,
    write(name, data, mode = 0o600) {
      deps.fs.writeFile(file(name), data, { mode });
      return file(name);
    },
    remove: () => deps.fs.removeTree(dir),
  };
}

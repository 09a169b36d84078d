// The baked binary is the node's last resort: while a candidate runs in the health gate it holds a second
// name (a hard link, no copy), so a candidate whose runs delete or replace the baked file is refused and
// the baked file is put back. A candidate that rewrites the baked file in place is refused too; that one
// cannot be undone, but it never becomes the hotfix. A guard left by a killed run is settled at the next
// start: it restores a missing baked binary, else it is removed.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import type { FileIdentity } from '../../platform/fs.ts';

export interface BakedGuard {
  /** What the candidate's runs did to the baked binary: undefined when it is intact. Settles the guard. */
  settle(): string | undefined;
}

type GuardDeps = Pick<Deps, 'fs' | 'paths' | 'log'>;

export function guardBaked(deps: GuardDeps): BakedGuard {
  const { bakedBinary: baked, bakedGuard: guard } = deps.paths;
  deps.fs.unlink(guard);
  let linked = false;
  try {
    deps.fs.link(baked, guard);
    linked = true;
  } catch (error) {
    deps.log.warn('could not hold a second name of the baked binary during the health gate', { path: guard, error: errorMessage(error) });
  }
  // Taken after the link: adding a name changes the inode's change time.
  const before = deps.fs.identity(baked);
  return {
    settle() {
      const after = deps.fs.identity(baked);
      if (before && after?.exact === before.exact) {
        deps.fs.unlink(guard);
        return undefined;
      }
      const what = describeChange(before, after);
      const restored = linked && after?.file !== before?.file && restore(deps, before);
      if (!restored) deps.fs.unlink(guard);
      return `the candidate's runs ${what} the baked binary ${baked}${restored ? ' (restored)' : ''}`;
    },
  };
}

function describeChange(before: FileIdentity | undefined, after: FileIdentity | undefined): string {
  if (!before) return 'found no';
  if (!after) return 'deleted';
  return after.file === before.file ? 'modified' : 'replaced';
}

/** Puts the guard back under the baked name when it still holds the original content. */
function restore(deps: GuardDeps, before: FileIdentity | undefined): boolean {
  const held = deps.fs.identity(deps.paths.bakedGuard);
  if (!before || held?.file !== before.file || held.content !== before.content) return false;
  try {
    deps.fs.rename(deps.paths.bakedGuard, deps.paths.bakedBinary);
    return true;
  } catch (error) {
    deps.log.error('could not restore the baked binary', { path: deps.paths.bakedBinary, error: errorMessage(error) });
    return false;
  }
}

/** Start-up: a guard left by a run killed inside the gate restores a missing baked binary, else goes. */
export function settleLeftoverGuard(deps: GuardDeps): void {
  const { bakedBinary: baked, bakedGuard: guard } = deps.paths;
  try {
    if (!deps.fs.identity(guard)) return;
    if (deps.fs.identity(baked)) {
      deps.fs.unlink(guard);
      return;
    }
    deps.fs.rename(guard, baked);
    deps.log.warn('restored the baked binary from the guard an interrupted health gate left', { path: baked });
  } catch (error) {
    deps.log.warn('could not settle the baked-binary guard an earlier run left', { path: guard, error: errorMessage(error) });
  }
}

// Temp files of the atomic writes (fs.atomicWrite) that a killed run left behind. Each command removes
// its own kind at its next start: only files older than the current run, so a concurrent writer's fresh
// temp file is never touched. A hotfix binary's temp file is as large as the agent (~100 MB).
import { errorMessage } from './errors.ts';
import type { FileSystem } from './fs.ts';
import type { Logger } from './log.ts';

/** Prefixes of the temp files, one per owner; all start with `.aks-node-controller-`. */
export const TEMP_PREFIX = {
  pointer: '.aks-node-controller-hotfix-',
  hotfixBinary: '.aks-node-controller-update-',
  status: '.aks-node-controller-status-',
  event: '.aks-node-controller-event-',
  /** The repository fast path's scratch directory (package, index, candidate: up to ~160 MB). */
  fetchScratch: '.aks-node-controller-fetch-',
} as const;

export function removeLeftoverTemps(deps: { fs: FileSystem; log: Logger }, dir: string, prefix: string, runStarted: Date): void {
  try {
    const removed = deps.fs.removeStaleFiles(dir, prefix, runStarted);
    if (removed.length > 0) deps.log.info('removed temp files left by an interrupted earlier run', { dir, files: removed });
  } catch (error) {
    deps.log.warn('could not remove temp files left by an earlier run', { dir, error: errorMessage(error) });
  }
}

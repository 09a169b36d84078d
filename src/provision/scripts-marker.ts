// The scripts-started marker (docs/hotfix.md "fallback table"): written the moment before the agent
// starts the provisioning scripts. The launcher removes it before it runs `provision` and reads it after
// a failure: present = the scripts ran (their failure is final, never retried); absent = the agent
// failed on its own, so a hotfix binary may be replaced by the baked one. No marker, no scripts: if it
// cannot be written, provisioning stops here as an agent error.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';

/** The launcher sets this (to `baked`) when it runs a hotfix binary and will fall back on an early failure. */
export const LAUNCHER_FALLBACK_ENV = 'ANC_LAUNCHER_FALLBACK';

export function markScriptsStarted(deps: Pick<Deps, 'fs' | 'paths' | 'clock' | 'version'>): void {
  const path = deps.paths.scriptsStartedMarker;
  try {
    // Not durable (no fsync): its only readers, the launcher and `status`, ask in the same boot; a
    // crashed boot runs the launcher again, which removes the marker before the next provision.
    deps.fs.atomicWrite(path, `${deps.version} ${deps.clock.now().toISOString()}\n`, { mode: 0o644, durable: false });
  } catch (error) {
    throw new AgentError('ANC_IO', `writing the scripts-started marker ${path}: ${errorMessage(error)}`, { cause: error });
  }
}

/** True when a failure before the scripts leaves the status files to the launcher's baked fallback. */
export function launcherFallsBack(deps: Pick<Deps, 'env'>): boolean {
  return deps.env[LAUNCHER_FALLBACK_ENV] === 'baked';
}

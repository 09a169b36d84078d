// Does THIS agent apply the image's nodecustomdata.yml? (reference HEAD `hotfix.go` at 06836ee, PR #8876;
// spec 11.2). The pointer's `scripts_version`, trimmed, must be a same-base, strictly higher patch of the
// agent's own version: the same patch-only gate as the binary (version.ts). An empty value or one that
// does not parse skips. Pure: download-hotfix acts on it, `hotfix explain` prints it.
import { goTrimSpace } from '../platform/go/strings.ts';
import type { HotfixPointer } from './document.ts';
import { shouldUpgradeToHotfix } from './version.ts';

export const SCRIPTS_VERSION_REASONS = {
  absent: 'the pointer has no scripts_version',
  'compare-failed': 'the agent version or scripts_version is not a valid version',
  'not-newer': 'scripts_version is not a higher patch of the agent version (the scripts were built for another image)',
  newer: 'scripts_version is a higher patch of the agent version: nodecustomdata.yml is applied',
} as const;

export type ScriptsVersionReason = keyof typeof SCRIPTS_VERSION_REASONS;

export interface ScriptsVersionDecision {
  /** The trimmed scripts_version ('' when absent). */
  scriptsVersion: string;
  apply: boolean;
  reason: ScriptsVersionReason;
  detail?: string;
}

export function decideScriptsVersion(pointer: Pick<HotfixPointer, 'scriptsVersion'>, current: string): ScriptsVersionDecision {
  const scriptsVersion = goTrimSpace(pointer.scriptsVersion ?? '');
  if (scriptsVersion === '') return { scriptsVersion, apply: false, reason: 'absent' };
  const gate = shouldUpgradeToHotfix(current, scriptsVersion);
  if (!gate.ok) return { scriptsVersion, apply: false, reason: 'compare-failed', detail: gate.error };
  return gate.value ? { scriptsVersion, apply: true, reason: 'newer' } : { scriptsVersion, apply: false, reason: 'not-newer' };
}

// What the headline of `status` says about a hotfix (issue 40): the one this provisioning failed under (and
// that the node must be reimaged), a recall (still running, or given up), and INTERRUPTED's next step.
import type { NamedExitCode } from './exit-codes.ts';
import type { ScriptsStatus } from './scripts.ts';

type Binary = { kind: string; version: string } | null;

/** INTERRUPTED's next step: the unit's condition lets a reboot provision again. */
/** A run without a result whose liveness this root cannot tell (no boot id, no /proc): said, never "running". */
export const untellableText = (startedText: string, step: string | undefined, pid: number | null) =>
  `provisioning started at ${startedText} and has no result yet${step ? ` (last step: ${step})` : ''}; whether its process (pid ${pid}) still runs cannot be told here (no boot id or /proc under this root to compare): running, or killed without a result`;

/** The FAILED headline: under a hotfix, that hotfix and reimage (the code is its scripts' exit), else the code's meaning. */
export const failedText = (code: NamedExitCode, under: string | undefined, ran: string) =>
  under
    ? `provisioning FAILED with exit code ${code.code} ${code.name} under hotfix ${under}; quarantined; reimage the node (it does not provision again on reboot)`
    : `provisioning FAILED with exit code ${code.code} ${code.name}: ${code.meaning}${ran}`;

export const REBOOT = '; reboot the node: the unit runs provisioning again while provision.complete is absent';

/** `V (script payload L)` when this provisioning failed under hotfix V and the fallback quarantined it after the scripts. */
export function failedUnderHotfix(binary: Binary, scripts: ScriptsStatus, startedAt: number | null): string | undefined {
  if (binary?.kind !== 'hotfix') return undefined;
  const q = scripts.quarantined.find(
    (e) => e.version === binary.version && e.cause === 'provisionFailed' && (startedAt === null || Date.parse(e.recordedAt) >= startedAt),
  );
  if (!q) return undefined;
  return `${q.version}${scripts.ran === 'hotfix' && scripts.label ? ` (script payload ${scripts.label})` : ''}`;
}

/**
 * A recall in the headline: the hotfix this node still runs is recalled (given up at the next download-hotfix),
 * or it was given up and the baked agent runs since.
 */
export function recallText(
  binary: Binary,
  scripts: ScriptsStatus,
  decision: { reason: string; resolved: string } | null,
  hotfixStaged: boolean,
): string {
  if (binary?.kind === 'hotfix' && hotfixStaged && decision?.reason === 'recalled' && decision.resolved === binary.version)
    return ` under hotfix ${binary.version}, which the pointer RECALLS: the next download-hotfix gives it up (the image's scripts restored, version quarantined) and the baked agent runs`;
  const given = scripts.quarantined.filter((q) => q.cause === 'recalled').pop();
  if (binary?.kind === 'baked' && given)
    return `; hotfix ${given.version} recalled at ${given.recordedAt}: this node runs the baked agent ${binary.version} and the image's scripts`;
  return '';
}

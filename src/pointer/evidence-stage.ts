// check-hotfix's side of the evidence gate: after the pointer is staged, the ConfigMap's evidence envelope
// (evidence.ts) is verified with the baked observer keys against the pointer's serial and its payload staged
// beside the pointer. Fail-open like the rest of check-hotfix: evidence that is missing or refused stages
// nothing and removes an earlier copy (a node without fresh evidence stays at the last step it holds).
import { errorMessage } from '../platform/errors.ts';
import { TEMP_PREFIX } from '../platform/temp-files.ts';
import type { Deps } from '../platform/deps.ts';
import { acceptEvidence } from './evidence.ts';
import type { TrustedKey } from './keys.ts';

export function stageEvidence(
  deps: Pick<Deps, 'fs' | 'paths' | 'log' | 'clock'>,
  envelope: unknown,
  keys: readonly TrustedKey[],
  serial: number | null,
): void {
  const path = deps.paths.hotfixEvidence;
  // Quiet when there is nothing to say: most pointers have no gated step and no evidence.
  const drop = (why: string) => {
    try {
      if (!deps.fs.stat(path)) return;
      deps.fs.unlink(path);
      deps.log.info(`removed the staged rollout evidence: ${why}`);
    } catch (error) {
      deps.log.warn('could not remove the staged rollout evidence', { error: errorMessage(error) });
    }
  };
  if (envelope === undefined) return drop('the ConfigMap holds none');
  if (typeof envelope !== 'string') return drop('data.evidence.dsse.json is not a string');
  const accepted = acceptEvidence(envelope, keys, serial, deps.clock.now());
  if ('refused' in accepted) {
    deps.log.warn(`rollout evidence refused (fail-open: gated steps stay closed): ${accepted.refused}`);
    return drop('refused');
  }
  try {
    deps.fs.atomicWrite(path, accepted.payload.toString('utf8'), { mode: 0o644, tempPrefix: TEMP_PREFIX.pointer });
  } catch (error) {
    deps.log.warn('could not stage the rollout evidence (fail-open: gated steps stay closed)', { error: errorMessage(error) });
    return;
  }
  const steps = Object.entries(accepted.evidence.bases).map(([base, e]) => `${base} step ${e.step}`);
  deps.log.info('staged rollout evidence', {
    keyid: accepted.keyid,
    serial: accepted.evidence.serial,
    expires: accepted.evidence.expires,
    opens: steps.join(', '),
  });
}

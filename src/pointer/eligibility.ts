// May THIS node take the hotfix the pointer resolves for its base? Local refusals on top of the
// fleet-wide rules (resolve.ts): the OS is an immutable image (image-based.ts), the version is recalled or
// in the node's quarantine record (it failed here before), or the node is outside the base's staged wave. download-hotfix acts on it, `hotfix explain` prints it.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { HotfixPointer } from './document.ts';
import { decideWave, readProductUuid, type WaveDecision } from './wave.ts';
import type { HotfixDecision } from './resolve.ts';
import { expectedBinaryVersion } from './version.ts';
import { stagedEvidenceStep } from './evidence.ts';
import { quarantineEntryFor, readQuarantine, type QuarantineEntry } from './quarantine.ts';
import { imageBasedRefusal } from './image-based.ts';

export interface Eligibility {
  wave: WaveDecision;
  /** Why the identity could not be used (the node then sits outside any partial wave). */
  identityProblem?: string;
  /** The record's entry for the resolved version. */
  quarantine?: QuarantineEntry;
  /** The quarantine record exists but cannot be read: fail-safe, nothing is staged. */
  quarantineError?: string;
  /** Set when the node must not take the hotfix. */
  refusal?: { outcome: 'imageBased' | 'recalled' | 'quarantined' | 'notInWave' | 'awaitingEvidence'; detail: string };
}

/** Who and when the wave is decided for: another identity (`hotfix explain --uuid`), the node's clock. */
export interface WaveContext {
  uuid?: string;
  now?: Date;
  /** Evidence to decide with instead of the staged copy (`hotfix explain --pointer CONFIGMAP`), per base. */
  evidence?: (base: string) => { opened: number; problem?: string };
}

export function nodeEligibility(
  deps: Pick<Deps, 'fs' | 'paths'> & Partial<Pick<Deps, 'clock'>>,
  pointer: HotfixPointer,
  decision: HotfixDecision,
  context: WaveContext = {},
): Eligibility {
  const entry = decision.base === null ? undefined : ownEntry(pointer.rollout, decision.base);
  const identity = context.uuid !== undefined ? { uuid: context.uuid } : readProductUuid(deps.fs, deps.paths.productUuid);
  const now = context.now ?? deps.clock?.now() ?? new Date();
  const gated = decision.base !== null && entry?.schedule?.some((s) => s.gated) === true;
  const evidence = !gated ? undefined : context.evidence ? context.evidence(decision.base!) : stagedEvidenceStep(deps, decision.base!, now);
  const wave = decideWave(entry, identity.uuid, now, evidence);
  const out: Eligibility = { wave, ...(identity.problem === undefined ? {} : { identityProblem: identity.problem }) };
  const version = expectedBinaryVersion(decision.resolved);
  // An immutable image takes no package at all (spec 11.3, D20): before any other refusal.
  const imageBased = imageBasedRefusal(deps.fs, deps.paths.osRelease);
  if (imageBased !== undefined) {
    out.refusal = { outcome: 'imageBased', detail: imageBased };
    return out;
  }
  // The pointer's recall list is its undo (issue 34): a recalled version is never staged.
  if (decision.resolved !== '' && isRecalled(pointer, decision.resolved)) {
    out.refusal = { outcome: 'recalled', detail: `hotfix ${version} is recalled by the pointer` };
    return out;
  }
  try {
    const found = decision.resolved === '' ? undefined : quarantineEntryFor(readQuarantine(deps), version);
    if (found) {
      out.quarantine = found;
      out.refusal = {
        outcome: 'quarantined',
        detail: `hotfix ${version} is quarantined on this node since ${found.recordedAt}: ${found.reason}`,
      };
    }
  } catch (error) {
    out.quarantineError = errorMessage(error);
    out.refusal = { outcome: 'quarantined', detail: out.quarantineError };
  }
  const waiting = wave.awaitingEvidence;
  const byClock = waiting !== undefined && (waiting.clockPercent >= 100 || (wave.seed !== null && wave.seed < waiting.clockPercent / 100));
  if (!out.refusal && !wave.inWave && waiting && byClock) {
    // The clock reached a gated step that would take this node, and no fresh evidence opens it.
    out.refusal = {
      outcome: 'awaitingEvidence',
      detail: `node waits at the ${wave.percent}% step for base ${decision.base}: step ${waiting.step} (${waiting.percent}%, since ${waiting.since}) opens only on fresh signed evidence that the wave before it is healthy (${waiting.problem})`,
    };
  }
  if (!out.refusal && !wave.inWave) {
    const seed = wave.seed === null ? `no usable identity (${identity.problem})` : `seed ${wave.seed.toFixed(6)}`;
    out.refusal = {
      outcome: 'notInWave',
      detail: `node is outside the ${wave.percent}% wave for base ${decision.base}: ${seed}, cutoff ${wave.cutoff}${wave.joinsAt === undefined ? '' : wave.joinsAt === null ? '; the schedule never reaches it' : `; it joins at ${wave.joinsAt}`}`,
    };
  }
  return out;
}

/** Whether the pointer's recall list names `version` (with or without a package revision). */
export function isRecalled(pointer: Pick<HotfixPointer, 'recall'>, version: string): boolean {
  const bare = expectedBinaryVersion(version);
  return (pointer.recall ?? []).some((v) => v === version || expectedBinaryVersion(v) === bare);
}

function ownEntry(rollout: HotfixPointer['rollout'], base: string) {
  return rollout !== undefined && Object.hasOwn(rollout, base) ? rollout[base] : undefined;
}

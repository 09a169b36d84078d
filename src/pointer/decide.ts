// The one decision: does THIS node take a hotfix? download-hotfix acts on it, `status` and `hotfix explain`
// report it, so the three never disagree. In order:
// - the pointer's signature state: check-hotfix stages a pointer file only after its signing gate accepted
//   it (docs/pointer-signing.md), so a present file is an accepted request and an absent one is none;
// - the fleet-wide rules (resolve.ts): the base's entry, the same-base higher-patch rule, safe versions;
// - the node's own refusals (eligibility.ts): its quarantine record, then the base's staged wave.
import type { Deps } from '../platform/deps.ts';
import type { HotfixPointer } from './document.ts';
import { type Eligibility, nodeEligibility, type WaveContext } from './eligibility.ts';
import { readPointerFile } from './file.ts';
import { decideHotfix, type HotfixDecision, type HotfixReason } from './resolve.ts';

/** Why the node takes or skips: a resolve.ts reason, or a node-local refusal. */
export type NodeReason = HotfixReason | 'imageBased' | 'recalled' | 'quarantined' | 'notInWave' | 'awaitingEvidence';

export interface NodeDecision {
  /** The fleet-wide rules' answer (the pointer's request for this base, against `current`). */
  resolve: HotfixDecision;
  /** The node-local checks (wave, quarantine), computed either way so reports can show them. */
  eligibility: Eligibility;
  /** True only when this node stages `resolve.resolved`. */
  take: boolean;
  reason: NodeReason;
  /** The refusal's explanation (quarantine entry, wave numbers), or the parse detail behind a resolve reason. */
  detail?: string;
  /** Set when the fleet-wide rules said upgrade and the node itself refused. */
  refusal?: NonNullable<Eligibility['refusal']>;
}

type DecideDeps = Pick<Deps, 'fs' | 'paths'> & Partial<Pick<Deps, 'clock'>>;

export function decideForNode(deps: DecideDeps, pointer: HotfixPointer, current: string, context: WaveContext = {}): NodeDecision {
  const resolve = decideHotfix(pointer, current);
  const eligibility = nodeEligibility(deps, pointer, resolve, context);
  if (!resolve.upgrade) {
    return { resolve, eligibility, take: false, reason: resolve.reason, ...detailOf(resolve.detail) };
  }
  const refusal = eligibility.refusal;
  if (refusal) return { resolve, eligibility, take: false, reason: refusal.outcome, detail: refusal.detail, refusal };
  return { resolve, eligibility, take: true, reason: 'upgrade' };
}

/** The same decision from the staged pointer file (a missing file is an empty pointer: `no-request`). */
export function decideFromPointerFile(deps: DecideDeps, pointerPath: string, current: string): NodeDecision & { pointer: HotfixPointer } {
  const pointer = readPointerFile(deps.fs, pointerPath);
  return { ...decideForNode(deps, pointer, current), pointer };
}

const detailOf = (detail: string | undefined) => (detail === undefined ? {} : { detail });

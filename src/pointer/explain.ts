// `hotfix explain`: what download-hotfix would do on this node and which binary the launcher would run,
// as one JSON object for operators and scripts. Reads files only; never installs, never emits events.
import type { Deps } from '../platform/deps.ts';
import type { HotfixPointer } from './document.ts';
import { decideForNode, type NodeDecision } from './decide.ts';
import { readPointerFile } from './file.ts';

export interface HotfixExplanation {
  current: string;
  base: string | null;
  resolved: string;
  /** True only when download-hotfix would install and stage `resolved` on this node. */
  upgrade: boolean;
  /** A resolve.ts reason, or the node-local refusal: `quarantined`, `notInWave`. */
  reason: string;
  /** The refusal's explanation (quarantine entry, wave numbers). */
  detail?: string;
  /** The wave of this base: percent, the node's seed (null without a usable identity), cutoff, decision. */
  percent: number;
  seed: number | null;
  cutoff: number;
  inWave: boolean;
  identityProblem?: string;
  /** The quarantine record's entry for `resolved` (null when none), or the error reading the record. */
  quarantine: { version: string; reason: string; recordedAt: string } | null;
  quarantineError?: string;
  /** What the launcher would start now: the staged hotfix when it is an executable file, else baked. */
  binary: 'hotfix' | 'baked';
  binaryPath: string;
}

export function explainHotfix(deps: Pick<Deps, 'fs' | 'paths'>, pointerPath: string, current: string): HotfixExplanation {
  return explainPointer(deps, readPointerFile(deps.fs, pointerPath), current);
}

/** The same for a pointer already read (a ConfigMap file gated like check-hotfix gates it). */
export function explainPointer(deps: Pick<Deps, 'fs' | 'paths'>, pointer: HotfixPointer, current: string): HotfixExplanation {
  const decision: NodeDecision = decideForNode(deps, pointer, current);
  const { resolve: d, eligibility: e } = decision;
  const staged = deps.fs.stat(deps.paths.hotfixBinary);
  const hotfix = staged?.isFile === true && (staged.mode & 0o111) !== 0;
  return {
    current: d.current,
    base: d.base,
    resolved: d.resolved,
    upgrade: decision.take,
    reason: decision.reason,
    ...(decision.refusal ? { detail: decision.refusal.detail } : {}),
    percent: e.wave.percent,
    seed: e.wave.seed,
    cutoff: e.wave.cutoff,
    inWave: e.wave.inWave,
    ...(e.identityProblem === undefined ? {} : { identityProblem: e.identityProblem }),
    quarantine: e.quarantine ?? null,
    ...(e.quarantineError === undefined ? {} : { quarantineError: e.quarantineError }),
    binary: hotfix ? 'hotfix' : 'baked',
    binaryPath: hotfix ? deps.paths.hotfixBinary : deps.paths.bakedBinary,
  };
}

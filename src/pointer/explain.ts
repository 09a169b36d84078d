// `hotfix explain`: what download-hotfix would do on this node and which binary the launcher would run,
// as one JSON object for operators and scripts. Reads files only; never installs, never emits events.
import { stagedHotfixVerdict } from './staged.ts';
import type { Deps } from '../platform/deps.ts';
import type { HotfixPointer } from './document.ts';
import { decideForNode, type NodeDecision } from './decide.ts';
import type { WaveContext } from './eligibility.ts';
import { readPointerFile } from './file.ts';
import type { HotfixReason } from './resolve.ts';
import { decideScriptsVersion, SCRIPTS_VERSION_REASONS, type ScriptsVersionReason } from './scripts-version.ts';

/** Why a node stays, for the summary sentence. */
const STAY_BECAUSE: Record<HotfixReason, string> = {
  'no-request': 'no hotfix is requested (no pointer staged, or it requests nothing)',
  'base-unknown': 'its version has no YYYYMM.DD base to look a hotfix up by',
  'not-listed': 'the pointer lists no hotfix for its base',
  'compare-failed': 'the requested version cannot be compared with it',
  'not-newer': 'the requested version is not a higher patch of its base',
  'unsafe-version': 'the requested version is not YYYYMM.DD.PATCH[-REV]',
  upgrade: 'it takes the hotfix',
};

export interface HotfixExplanation {
  /** One sentence for people: what happens and why. */
  summary: string;
  current: string;
  base: string | null;
  resolved: string;
  /** True only when download-hotfix would install and stage `resolved` on this node. */
  upgrade: boolean;
  /** A resolve.ts reason, or the node-local refusal: `imageBased`, `recalled`, `quarantined`, `notInWave`. */
  reason: string;
  /** The refusal's explanation (quarantine entry, wave numbers). */
  detail?: string;
  /** The wave of this base: percent, the node's seed (null without a usable identity), cutoff, decision. */
  percent: number;
  seed: number | null;
  cutoff: number;
  inWave: boolean;
  /** With a scheduled wave: when this node joins (null: never) and when the next step starts. */
  joinsAt?: string | null;
  nextStepAt?: string | null;
  identityProblem?: string;
  /** A gated step the schedule reached that no fresh evidence opens (wave.ts). */
  awaitingEvidence?: { step: number; percent: number; since: string; problem: string; clockPercent: number };
  /** The quarantine record's entry for `resolved` (null when none), or the error reading the record. */
  quarantine: { version: string; reason: string; recordedAt: string } | null;
  quarantineError?: string;
  /** What the launcher would start now: the staged hotfix when it passes the launcher's rules (pointer/staged.ts), else baked. */
  binary: 'hotfix' | 'baked';
  binaryPath: string;
  /** The pointer's recall list: a staged hotfix of one of these versions is given up at the next download-hotfix. */
  recall?: string[];
  /** Why the launcher refuses the staged hotfix binary (absent when none is staged or it is accepted). */
  stagedRefused?: string;
  /** Whether download-hotfix applies nodecustomdata.yml (spec 11.2); only when the pointer has a scripts_version. */
  scriptsVersion?: { value: string; apply: boolean; reason: ScriptsVersionReason; detail?: string };
}

/** The sentence on nodecustomdata.yml (spec 11.2), when the pointer names a scripts_version. */
function scriptsVersionView(pointer: HotfixPointer, current: string): Pick<HotfixExplanation, 'scriptsVersion'> & { sentence: string } {
  const s = decideScriptsVersion(pointer, current);
  if (s.reason === 'absent') return { sentence: '' };
  const sentence = s.apply
    ? ` download-hotfix applies nodecustomdata.yml first: scripts_version ${s.scriptsVersion} is a higher patch of ${current}.`
    : ` nodecustomdata.yml is not applied: ${SCRIPTS_VERSION_REASONS[s.reason]}.`;
  const view = { value: s.scriptsVersion, apply: s.apply, reason: s.reason, ...(s.detail ? { detail: s.detail } : {}) };
  return { scriptsVersion: view, sentence };
}

type ExplainDeps = Pick<Deps, 'fs' | 'paths'> & Partial<Pick<Deps, 'clock'>>;

export function explainHotfix(deps: ExplainDeps, pointerPath: string, current: string, context: WaveContext = {}): HotfixExplanation {
  return explainPointer(deps, readPointerFile(deps.fs, pointerPath), current, context);
}

/** The same for a pointer already read (a ConfigMap file gated like check-hotfix gates it). */
export function explainPointer(deps: ExplainDeps, pointer: HotfixPointer, current: string, context: WaveContext = {}): HotfixExplanation {
  const decision: NodeDecision = decideForNode(deps, pointer, current, context);
  const { resolve: d, eligibility: e } = decision;
  // The launcher's own acceptance rules: a refused hotfix is not the binary that runs.
  const staged = stagedHotfixVerdict(deps);
  const hotfix = staged.staged && staged.accepted;
  const refused = decision.refusal;
  const stillRuns = hotfix && refused?.outcome === 'recalled';
  const summary = stillRuns
    ? `This node stays on ${d.current}, but it still runs the staged hotfix: hotfix ${d.resolved} is recalled by the pointer, and the next download-hotfix gives the staged hotfix up if it is that version (the image's scripts restored, the version quarantined).`
    : decision.take
      ? `This node takes hotfix ${d.resolved}: the pointer asks for it for base ${d.base}, a higher patch of ${d.current}.`
      : `This node stays on ${d.current}: ${refused ? (refused.outcome === 'imageBased' ? `${refused.detail} (an immutable image: the hotfix ${d.resolved} is not installed)` : refused.outcome === 'recalled' ? `hotfix ${d.resolved} is recalled by the pointer` : refused.outcome === 'quarantined' ? `hotfix ${d.resolved} failed here before (quarantined)` : refused.outcome === 'awaitingEvidence' ? `awaiting evidence: step ${e.wave.awaitingEvidence!.step} (${e.wave.awaitingEvidence!.percent}%) of base ${d.base} is gated and no fresh signed evidence opens it` : `it is outside the ${e.wave.percent}% wave for base ${d.base}${e.wave.joinsAt ? `; it joins at ${e.wave.joinsAt}` : e.wave.joinsAt === null ? '; the schedule never reaches it' : ''}`) : STAY_BECAUSE[decision.reason as HotfixReason]}.`;
  const { sentence, ...scripts } = scriptsVersionView(pointer, current);
  return {
    summary: summary + sentence,
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
    ...(e.wave.joinsAt === undefined ? {} : { joinsAt: e.wave.joinsAt, nextStepAt: e.wave.nextStepAt ?? null }),
    ...(e.wave.awaitingEvidence === undefined ? {} : { awaitingEvidence: e.wave.awaitingEvidence }),
    ...(e.identityProblem === undefined ? {} : { identityProblem: e.identityProblem }),
    quarantine: e.quarantine ?? null,
    ...(e.quarantineError === undefined ? {} : { quarantineError: e.quarantineError }),
    binary: hotfix ? 'hotfix' : 'baked',
    binaryPath: hotfix ? deps.paths.hotfixBinary : deps.paths.bakedBinary,
    ...(pointer.recall && pointer.recall.length > 0 ? { recall: pointer.recall } : {}),
    ...(staged.staged && !staged.accepted ? { stagedRefused: `staged, but the launcher refuses it: ${staged.reason}` } : {}),
    ...scripts,
  };
}

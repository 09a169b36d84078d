// What a script payload would do on this node (the dry run shows it, apply carries it out, `hotfix
// explain` answers with it): this node's platform, then per entry for that platform `replace`,
// `unchanged` (same bytes and mode), `missing` (replace-only: the image chose not to have it) or
// `refused` (a symlink, not a regular file; or, for an entry pinned with `replaces`, a file holding
// neither the image's bytes nor the new ones: the payload was built for another image). A plan that
// replaces nothing on a platform the payload lists is a no-op, never reported as a fix. Reads files only.
import type { Deps } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import { type DestinationState, inspectDestination } from './destination.ts';
import type { EmbeddedPayload } from './embedded.ts';
import { entriesFor, parseMode, type ScriptEntry } from './format.ts';
import { type NodePlatform, scriptPlatform } from './node-platform.ts';
import { pinProblem } from '../../image/pins.ts';

export type { PlanAction } from '../../image/plan.ts';
import type { PlanAction } from '../../image/plan.ts';

export interface PlanItem {
  entry: ScriptEntry;
  action: PlanAction;
  reason?: string;
  current?: Extract<DestinationState, { kind: 'file' }>;
}

export interface ScriptPlan {
  label: string;
  digest: string;
  node: NodePlatform;
  /** Set when no entry applies on this node at all (no platform). */
  skipped?: string;
  items: PlanItem[];
}

export function readNodePlatform(deps: Pick<Deps, 'fs' | 'paths'>): NodePlatform & { problem?: string } {
  try {
    return scriptPlatform(deps.fs.readText(deps.paths.osRelease, 'osRelease'));
  } catch (error) {
    return {
      platform: undefined,
      id: '',
      variantId: '',
      problem: `reading ${deps.paths.strip(deps.paths.osRelease)}: ${errorMessage(error)}`,
    };
  }
}

function planEntry(deps: Pick<Deps, 'fs' | 'paths'>, entry: ScriptEntry, pinned: boolean): PlanItem {
  let state: DestinationState;
  try {
    state = inspectDestination(deps, entry.destination);
  } catch (error) {
    return { entry, action: 'refused', reason: `cannot read ${entry.destination}: ${errorMessage(error)}` };
  }
  if (state.kind === 'refused') return { entry, action: 'refused', reason: state.reason };
  const pin = pinned ? pinProblem(entry, state.kind === 'file' ? state.sha256 : undefined) : undefined;
  if (pin) return { entry, action: 'refused', reason: pin, ...(state.kind === 'file' ? { current: state } : {}) };
  if (state.kind === 'missing') return { entry, action: 'missing', reason: 'not on this node (replace-only)' };
  const same = state.sha256 === entry.sha256 && state.mode === parseMode(entry.mode);
  return { entry, action: same ? 'unchanged' : 'replace', current: state };
}

/** Set when the payload lists this platform but no entry would change anything here. */
export function noopVerdict(plan: ScriptPlan): string | undefined {
  if (plan.skipped || plan.items.length === 0 || plan.items.some((i) => i.action === 'replace' || i.action === 'refused')) return undefined;
  return `no entry applies on this image: ${plan.items.map((i) => `${i.entry.destination} ${i.action}`).join(', ')}`;
}

export function planPayload(deps: Pick<Deps, 'fs' | 'paths'>, embedded: EmbeddedPayload): ScriptPlan {
  const node = readNodePlatform(deps);
  const base = { label: embedded.payload.label, digest: embedded.digest, node };
  if (!node.platform) {
    const why = node.problem ?? `os-release ID=${node.id || '(none)'} VARIANT_ID=${node.variantId || '(none)'} matches no payload platform`;
    return { ...base, skipped: `no script hotfix on this node: ${why}`, items: [] };
  }
  const entries = entriesFor(embedded.payload, node.platform);
  if (entries.length === 0)
    return { ...base, skipped: `no script hotfix on this node: the payload has no entry for platform ${node.platform}`, items: [] };
  // A platform the build left unchecked on purpose has no pins to hold its nodes to (replace-only).
  const pinned = !(embedded.payload.uncheckedPlatforms ?? []).includes(node.platform);
  return { ...base, items: entries.map((e) => planEntry(deps, e, pinned)) };
}

export const countOf = (plan: ScriptPlan, action: PlanAction) => plan.items.filter((i) => i.action === action).length;

/** The plan for people and machines (dry run, explain): no file contents, never the bytes. */
export function planView(plan: ScriptPlan) {
  const noop = noopVerdict(plan);
  return {
    label: plan.label,
    digest: `sha256:${plan.digest}`,
    platform: plan.node.platform ?? null,
    ...(plan.skipped ? { skipped: plan.skipped } : {}),
    ...(noop ? { noop } : {}),
    entries: plan.items.map((i) => ({
      destination: i.entry.destination,
      action: i.action,
      mode: i.entry.mode,
      sha256: i.entry.sha256,
      ...(i.current ? { current: i.current.sha256 } : {}),
      ...(i.entry.replaces ? { replaces: i.entry.replaces } : {}),
      ...(i.reason ? { reason: i.reason } : {}),
    })),
  };
}

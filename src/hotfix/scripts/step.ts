// The script hotfix as `provision` sees it (wired in by commands/provision.ts, so provision/ never
// imports hotfix/): `plan` for --dry-run (writes nothing; refused entries fail it, which is how the
// health gate's self-test keeps such a payload from being promoted), `apply` before the scripts start.
import type { Deps } from '../../platform/deps.ts';
import { AgentError } from '../../platform/errors.ts';
import { type ApplyReport, applyScriptHotfix, removeStaleStaged } from './apply.ts';
import { embeddedPayload } from './embedded.ts';
import { planPayload, planView } from './plan.ts';

export interface ScriptStep {
  /** The dry-run view (undefined without a payload); throws when an entry would be refused. */
  plan(deps: Deps): { view: ReturnType<typeof planView>; refused?: AgentError } | undefined;
  apply(deps: Deps): ApplyReport;
  /** At the start of every real `provision`, payload or not: staged files a killed apply left. */
  cleanup(deps: Deps, start: Date): void;
}

export const scriptStep: ScriptStep = {
  plan(deps) {
    const embedded = embeddedPayload();
    if (!embedded) return undefined;
    const plan = planPayload(deps, embedded);
    const refused = plan.items.filter((i) => i.action === 'refused');
    const why = refused.map((i) => `${i.entry.destination}: ${i.reason}`).join('; ');
    const error =
      refused.length === 0 ? undefined : new AgentError('ANC_SCRIPT_HOTFIX', `script hotfix ${plan.label} refused on this node: ${why}`);
    return { view: planView(plan), refused: error };
  },
  apply: (deps) => applyScriptHotfix(deps, embeddedPayload()),
  cleanup: (deps, start) => removeStaleStaged(deps, start),
};

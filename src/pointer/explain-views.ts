// How `hotfix explain` says its decisions: the leading sentence (with check-hotfix's refusal when that is
// why nothing is requested), the text of a ConfigMap checked for several images, what it decided for.
import type { ConfigMapGate } from './configmap-check.ts';
import type { DecidedFor, LastCheck } from './explain-context.ts';
import type { HotfixExplanation } from './explain.ts';

const CHECK_OK = ['configMapRead', 'noHotfixForBase', 'customDataFallback'];

/** The last check-hotfix outcome beside the decision; a refused pointer is why nothing is requested. */
export function withCheck(e: HotfixExplanation, check: LastCheck | null): HotfixExplanation & { checkHotfix: LastCheck | null } {
  const refused = check !== null && !CHECK_OK.includes(check.outcome);
  const summary =
    refused && e.reason === 'no-request'
      ? `${e.summary.slice(0, -1)}: check-hotfix refused the cluster's pointer (${check.outcome}${check.error ? `: ${check.error}` : ''}), so nothing is staged.`
      : e.summary;
  return { ...e, summary, checkHotfix: check };
}

export const decidedForView = (d: DecidedFor) => ({ source: d.source, ...(d.note ? { note: d.note } : {}) });

/** For people: what a node does with this ConfigMap, then one line per image version. */
export function configMapText({ pointer, decisions }: { pointer: ConfigMapGate; decisions: HotfixExplanation[] }): string {
  const how = `${pointer.signed ? `signed${pointer.serial === undefined ? '' : `, serial ${pointer.serial}`}` : 'unsigned'}, mode ${pointer.mode}`;
  const lines = [
    pointer.accepted
      ? `${pointer.file}: a node would stage this pointer (${how}; scope not matched here)`
      : `${pointer.file}: a node would refuse this pointer (${pointer.outcome}: ${pointer.reason}); it stages nothing (${how})`,
  ];
  for (const d of decisions) {
    const target = d.upgrade ? ` -> ${d.resolved}` : d.resolved ? ` (requested ${d.resolved})` : '';
    lines.push(`  ${d.current}${target}: ${d.upgrade ? 'takes the hotfix' : 'stays'} (${d.reason}${d.detail ? `: ${d.detail}` : ''})`);
  }
  return `${lines.join('\n')}\n`;
}

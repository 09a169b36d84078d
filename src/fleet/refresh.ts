// `report-status --refresh-pointer` (aks-node-controller-report.timer, every 15 minutes): a provisioned node
// never provisions again, so the timer reads the cluster's pointer again to learn of a recall. It is
// check-hotfix itself (the same bounded read, signature gate, serial floor and fail-open wrapper), never a
// download: nothing is installed or switched. The feature flags come from enabled_features.sh as the
// launcher reads them (KEY=VALUE lines, values literal; the file wins over the unit's environment).
import type { Deps } from '../platform/deps.ts';

/** KEY=VALUE lines of enabled_features.sh, parsed as the launcher parses them (never sourced). */
export function parseFeatures(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out[key] = line.slice(at + 1);
  }
  return out;
}

function readFeatures(deps: Pick<Deps, 'fs' | 'paths' | 'log'>): Record<string, string> {
  try {
    return deps.fs.exists(deps.paths.enabledFeatures) ? parseFeatures(deps.fs.readText(deps.paths.enabledFeatures, 'config')) : {};
  } catch (error) {
    deps.log.warn('enabled_features.sh is unreadable; using the unit environment', { error: String(error).slice(0, 200) });
    return {};
  }
}

/** Runs check-hotfix when the node has the hotfix feature on; always resolves (check-hotfix fails open). */
export async function refreshPointer(deps: Deps): Promise<void> {
  const features = readFeatures(deps);
  const enabled = features.ENABLE_PROVISIONING_HOTFIX ?? deps.env.ENABLE_PROVISIONING_HOTFIX;
  if (enabled !== 'true') {
    deps.log.info('report-status: hotfix pointer refresh skipped: ENABLE_PROVISIONING_HOTFIX is not true on this node');
    return;
  }
  const signing = features.ANC_HOTFIX_POINTER_SIGNING ?? deps.env.ANC_HOTFIX_POINTER_SIGNING;
  const env = { ...deps.env, ...(signing === undefined ? {} : { ANC_HOTFIX_POINTER_SIGNING: signing }) };
  const checkDeps = { ...deps, env };
  const { runCheckHotfix } = await import('../pointer/check.ts');
  const { fetchHotfixConfigMap } = await import('../kube/client.ts');
  await runCheckHotfix(checkDeps, { args: [], fetchConfigMap: () => fetchHotfixConfigMap(checkDeps) });
}

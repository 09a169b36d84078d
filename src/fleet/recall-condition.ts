// The recall reaches a provisioned node (issue 37 §5): a node that provisioned under a version the pointer
// now recalls never provisions again, so it is flagged on its own Node object for a reimage. The condition
// AKSNodeControllerRecalled (status True, reason RecalledVersion, the version and the pointer serial in the
// message) is set while the node runs a recalled version, and removed once it no longer does. The same rule
// as `hotfix rollout status`'s "to reimage" (fleet/rollout.ts classify): the report's `running` version,
// without its package revision, is in the pointer's recall list.
import type { ApiCredentials } from '../kube/credentials.ts';
import type { GetOptions } from '../kube/client.ts';
import type { NodeCondition } from '../kube/node-status.ts';
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import { expectedBinaryVersion } from '../pointer/version.ts';

export const RECALL_CONDITION = 'AKSNodeControllerRecalled';
export const RECALL_REASON = 'RecalledVersion';

/** The condition for a node running `running` under a pointer that recalls `recall`; undefined: not recalled. */
export function recallCondition(running: string, recall: readonly string[], serial: number | null, now: Date): NodeCondition | undefined {
  const version = recall.find((v) => expectedBinaryVersion(v) === expectedBinaryVersion(running));
  if (version === undefined) return undefined;
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    type: RECALL_CONDITION,
    status: 'True',
    reason: RECALL_REASON,
    message: `this node runs aks-node-controller ${running}, which the hotfix pointer${serial === null ? '' : ` (serial ${serial})`} recalls${version === running ? '' : ` (${version})`}; it provisioned under it and never provisions again: reimage it`,
    lastTransitionTime: time,
    lastHeartbeatTime: time,
  };
}

/** The recall list and serial this node holds (the staged pointer file, the recorded serial). */
export async function heldRecall(deps: Pick<Deps, 'fs' | 'paths' | 'log'>): Promise<{ recall: string[]; serial: number | null }> {
  const { readPointerFile } = await import('../pointer/file.ts');
  const { readSerialState } = await import('../pointer/serial-state.ts');
  let recall: string[] = [];
  try {
    recall = readPointerFile(deps.fs, deps.paths.hotfixPointer).recall ?? [];
  } catch {
    // an unreadable pointer recalls nothing here (status says why)
  }
  return { recall, serial: readSerialState(deps)?.serial ?? null };
}

export type RecallOutcome = 'flagged' | 'cleared' | 'unchanged' | 'failed';

/** Sets or removes the condition on the node's own status; never throws (the report went out already). */
export async function syncRecallCondition(
  deps: Pick<Deps, 'fs' | 'paths' | 'log' | 'clock'>,
  creds: ApiCredentials,
  name: string,
  running: string,
  options: GetOptions,
): Promise<RecallOutcome> {
  try {
    const { getNodeCondition, patchNodeCondition } = await import('../kube/node-status.ts');
    const held = await heldRecall(deps);
    const wanted = recallCondition(running, held.recall, held.serial, deps.clock.now());
    const current = await getNodeCondition(creds, name, RECALL_CONDITION, options);
    if (wanted) {
      if (current?.status === 'True' && current.message === wanted.message) return 'unchanged';
      // The transition time stays that of the first flag while the node stays recalled.
      const since = current?.status === 'True' && current.lastTransitionTime ? current.lastTransitionTime : wanted.lastTransitionTime!;
      await patchNodeCondition(creds, name, { ...wanted, lastTransitionTime: since }, options);
      deps.log.warn(`report-status: ${wanted.message}`, { node: name, condition: RECALL_CONDITION, serial: held.serial });
      return 'flagged';
    }
    if (current === undefined) return 'unchanged';
    await patchNodeCondition(creds, name, { type: RECALL_CONDITION, remove: true }, options);
    deps.log.info('report-status: no longer on a recalled version; condition removed', { node: name, condition: RECALL_CONDITION });
    return 'cleared';
  } catch (error) {
    deps.log.warn(`report-status: could not update the ${RECALL_CONDITION} condition (fail-open): ${errorMessage(error)}`, { node: name });
    return 'failed';
  }
}

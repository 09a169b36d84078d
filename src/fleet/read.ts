// What the fleet views read through the apiserver (the same client check-hotfix uses): every Node and
// the live hotfix pointer, with an operator's kubeconfig.
import type { ApiCredentials } from '../kube/credentials.ts';
import type { NodeObject } from '../kube/nodes.ts';
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { LiveView } from './rollout.ts';

export interface FleetState {
  nodes: NodeObject[];
  /** The live pointer's ConfigMap (undefined: the cluster has none) and its serial, waves and recall. */
  doc?: ConfigMapDoc;
  live?: LiveView;
}

/** --kubeconfig, else $KUBECONFIG (its first file), else ~/.kube/config; relative to the working directory. */
export function kubeconfigPath(deps: Pick<Deps, 'env' | 'cwd'>, given: string | undefined): string {
  const path = given ?? deps.env.KUBECONFIG?.split(':')[0] ?? `${deps.env.HOME ?? '/root'}/.kube/config`;
  return path.startsWith('/') ? path : `${deps.cwd}/${path}`;
}

export async function operatorCredentials(deps: Deps, kubeconfig: string): Promise<ApiCredentials> {
  const { kubeconfigCredentials } = await import('../kube/credentials.ts');
  return kubeconfigCredentials(deps, kubeconfig);
}

export async function readFleet(deps: Deps, creds: ApiCredentials): Promise<FleetState> {
  const { listNodes } = await import('../kube/nodes.ts');
  const { apiGet, HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const { parseConfigMapText, POINTER_KEY } = await import('../pointer/configmap.ts');
  const { livePayload } = await import('../pointer/live-pointer.ts');
  const userAgent = `aks-node-controller/${deps.version}`;
  const nodes = await listNodes(creds, undefined, { userAgent });
  let text: string;
  try {
    text = await apiGet(creds, HOTFIX_CONFIGMAP_PATH, { userAgent });
  } catch (error) {
    if (/returned status 404 /.test(errorMessage(error))) return { nodes };
    throw error;
  }
  const doc = await parseConfigMapText(text, 'the cluster ConfigMap');
  const signed = livePayload(doc);
  const { liveEvidence } = await import('../pointer/evidence.ts');
  if (signed)
    return {
      nodes,
      doc,
      live: {
        serial: signed.serial,
        hotfixes: signed.hotfixes,
        evidence: liveEvidence(doc.data),
        ...(signed.halted ? { halted: signed.halted } : {}),
        ...(signed.rollout ? { rollout: signed.rollout } : {}),
        ...(signed.recall ? { recall: signed.recall } : {}),
      },
    };
  // A pointer without the signed schema (older publishing): its waves as a node reads them.
  const { parsePointer } = await import('../pointer/document.ts');
  try {
    const pointer = parsePointer(doc.data[POINTER_KEY] ?? null, 'the cluster ConfigMap');
    return {
      nodes,
      doc,
      live: { ...(pointer.rollout ? { rollout: pointer.rollout } : {}), ...(pointer.recall ? { recall: pointer.recall } : {}) },
    };
  } catch {
    return { nodes, doc, live: {} };
  }
}

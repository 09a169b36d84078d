// What the fleet views read through the apiserver (the same client check-hotfix uses): every Node
// (metadata only, in pages: kube/nodes.ts) and the live hotfix pointer, with an operator's kubeconfig.
import type { ApiCredentials } from '../kube/credentials.ts';
import type { KubeTarget } from '../kube/kubeconfig-load.ts';
import type { NodeObject } from '../kube/nodes.ts';
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { TrustedKey } from '../pointer/keys.ts';
import { STATE_LABEL, STATUS_ANNOTATION, VERSION_LABEL } from './report.ts';
import type { LiveView } from './rollout.ts';

export interface FleetState {
  nodes: NodeObject[];
  /** The live pointer's ConfigMap (undefined: the cluster has none) and its serial, waves and recall. */
  doc?: ConfigMapDoc;
  live?: LiveView;
}

/** As kubectl: --kubeconfig, else every file of $KUBECONFIG merged, else ~/.kube/config; --context, else current-context. */
export async function operatorCredentials(deps: Deps, target: KubeTarget): Promise<ApiCredentials> {
  const { operatorKubeconfig } = await import('../kube/kubeconfig-load.ts');
  return operatorKubeconfig(deps, target);
}

/** --page-size: Nodes per page of the list (the `limit` query parameter). */
export function parsePageSize(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return /^\d+$/.test(text) && n >= 1 && n <= 10_000 ? n : Number.NaN;
}

/** What the fleet views use of a Node's metadata: a fleet of 5,000 holds only these keys. */
export const FLEET_KEYS = {
  annotations: [STATUS_ANNOTATION],
  labels: [VERSION_LABEL, STATE_LABEL, 'kubernetes.io/os', 'kubernetes.io/arch'],
} as const;

/**
 * Reads the nodes and the live pointer. `keys`: the fleet's pointer-signing keys (the watch's --keys),
 * else the keys baked into this binary, which are the ones the nodes verify with.
 */
export async function readFleet(
  deps: Deps,
  creds: ApiCredentials,
  options: { keys?: readonly TrustedKey[]; pageSize?: number | undefined } = {},
): Promise<FleetState> {
  const { listNodes } = await import('../kube/nodes.ts');
  const userAgent = `aks-node-controller/${deps.version}`;
  const pageSize = options.pageSize;
  const nodes = await listNodes(creds, undefined, { userAgent, keep: FLEET_KEYS, ...(pageSize ? { pageSize } : {}) });
  return { nodes, ...(await readLive(deps, creds, options.keys)) };
}

/** The live pointer's ConfigMap and what the fleet views need of it (nothing when the cluster has none). */
export async function readLive(deps: Deps, creds: ApiCredentials, keys?: readonly TrustedKey[]): Promise<Omit<FleetState, 'nodes'>> {
  const { apiGet, HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const { parseConfigMapText, POINTER_KEY } = await import('../pointer/configmap.ts');
  const { livePayload } = await import('../pointer/live-pointer.ts');
  const userAgent = `aks-node-controller/${deps.version}`;
  let text: string;
  try {
    text = await apiGet(creds, HOTFIX_CONFIGMAP_PATH, { userAgent });
  } catch (error) {
    if (/returned status 404 /.test(errorMessage(error))) return {};
    throw error;
  }
  const doc = await parseConfigMapText(text, 'the cluster ConfigMap');
  // R4-12: ConfigMap write is not the signing key. A live envelope that does not verify with the fleet's
  // keys is flagged, and nothing in it (serial, waves, recall) is taken as live.
  const unverified = await unverifiedEnvelope(doc, keys);
  if (unverified !== undefined) return { doc, live: { unverified } };
  const signed = livePayload(doc);
  const { liveEvidence } = await import('../pointer/evidence.ts');
  if (signed)
    return {
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
      doc,
      live: { ...(pointer.rollout ? { rollout: pointer.rollout } : {}), ...(pointer.recall ? { recall: pointer.recall } : {}) },
    };
  } catch {
    return { doc, live: {} };
  }
}

/** Why the live envelope does not verify with `keys` (undefined: it verifies, or there is none). */
export async function unverifiedEnvelope(doc: ConfigMapDoc, keys: readonly TrustedKey[] | undefined): Promise<string | undefined> {
  const { ENVELOPE_KEY } = await import('../pointer/node-gate.ts');
  const envelope = doc.data[ENVELOPE_KEY];
  if (envelope === undefined) return undefined;
  const { parseEnvelope } = await import('../pointer/dsse.ts');
  const { verifyEnvelope } = await import('../pointer/signature.ts');
  const { bakedKeys } = await import('../pointer/keys.ts');
  try {
    verifyEnvelope(parseEnvelope(envelope), keys ?? bakedKeys());
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

// A node's own conditions (status.conditions) through the status subresource: read them, set one or remove
// one by a strategic merge patch (conditions merge by `type`, so kubelet's own conditions are untouched).
// NodeRestriction lets a node's credentials write its own Node status, and only its own.
import { AgentError } from '../platform/errors.ts';
import { apiGet, apiWrite, type GetOptions } from './client.ts';
import type { ApiCredentials } from './credentials.ts';
import { NODE_NAME } from './nodes.ts';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

const STRATEGIC = 'application/strategic-merge-patch+json';

function nodePath(name: string): string {
  if (!NODE_NAME.test(name) || name.length > 253)
    throw new AgentError('ANC_KUBE', `invalid node name ${JSON.stringify(name.slice(0, 64))}`);
  return `/api/v1/nodes/${name}`;
}

/** The node's condition of `type`, or undefined when it carries none. */
export async function getNodeCondition(
  creds: ApiCredentials,
  name: string,
  type: string,
  options: GetOptions = {},
): Promise<NodeCondition | undefined> {
  let doc: { status?: { conditions?: unknown } };
  try {
    doc = JSON.parse(await apiGet(creds, nodePath(name), options));
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new AgentError('ANC_KUBE', `GET node ${name}: the apiserver answered with something that is not JSON`);
    throw error;
  }
  const list = Array.isArray(doc?.status?.conditions) ? (doc.status.conditions as unknown[]) : [];
  const found = list.find((c) => (c as { type?: unknown } | null)?.type === type) as NodeCondition | undefined;
  return found && typeof found === 'object' ? found : undefined;
}

/** Sets the condition (`remove`: deletes the condition of that type) on the node's own status. */
export async function patchNodeCondition(
  creds: ApiCredentials,
  name: string,
  change: NodeCondition | { type: string; remove: true },
  options: GetOptions = {},
): Promise<void> {
  const item = 'remove' in change ? { type: change.type, $patch: 'delete' } : change;
  const body = JSON.stringify({ status: { conditions: [item] } });
  await apiWrite(creds, `${nodePath(name)}/status`, { ...options, method: 'PATCH', body, contentType: STRATEGIC });
}

// Node objects through the same HTTPS client check-hotfix uses (client.ts): get one, list them (with a
// label selector), and a JSON merge patch (RFC 7386) of one node's labels and annotations. Also the
// ConfigMap merge patch the rollout watch applies a pre-signed halt with.
import { AgentError } from '../platform/errors.ts';
import { apiGet, apiWrite, type GetOptions } from './client.ts';
import type { ApiCredentials } from './credentials.ts';

export interface NodeObject {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** status.nodeInfo.bootID as the kubelet reports it ('' when absent). */
  bootId: string;
  /** status.nodeInfo: operating system image and architecture ('' when absent). */
  osImage: string;
  architecture: string;
}

const MERGE_PATCH = 'application/merge-patch+json';

/** A DNS-1123 subdomain: what a Node name may be (and so safe in a URL path). */
export const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function nodePath(name: string): string {
  if (!NODE_NAME.test(name) || name.length > 253)
    throw new AgentError('ANC_KUBE', `invalid node name ${JSON.stringify(name.slice(0, 64))}`);
  return `/api/v1/nodes/${name}`;
}

const strings = (value: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value))
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
};

function toNode(doc: unknown): NodeObject {
  const d = (doc ?? {}) as { metadata?: Record<string, unknown>; status?: { nodeInfo?: Record<string, unknown> } };
  const info = d.status?.nodeInfo ?? {};
  return {
    name: String(d.metadata?.name ?? ''),
    labels: strings(d.metadata?.labels),
    annotations: strings(d.metadata?.annotations),
    bootId: typeof info.bootID === 'string' ? info.bootID : '',
    osImage: typeof info.osImage === 'string' ? info.osImage : '',
    architecture: typeof info.architecture === 'string' ? info.architecture : '',
  };
}

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AgentError('ANC_KUBE', `${what}: the apiserver answered with something that is not JSON`);
  }
}

export async function getNode(creds: ApiCredentials, name: string, options: GetOptions = {}): Promise<NodeObject> {
  return toNode(parse(await apiGet(creds, nodePath(name), options), `GET node ${name}`));
}

export async function listNodes(creds: ApiCredentials, labelSelector?: string, options: GetOptions = {}): Promise<NodeObject[]> {
  const query = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
  const doc = parse(await apiGet(creds, `/api/v1/nodes${query}`, { maxBodyBytes: 64 * 1024 * 1024, ...options }), 'list nodes') as {
    items?: unknown;
  };
  return Array.isArray(doc.items) ? doc.items.map(toNode) : [];
}

/** Merge-patches metadata.labels/annotations of one node (a null value removes a key). */
export async function patchNodeMetadata(
  creds: ApiCredentials,
  name: string,
  metadata: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> },
  options: GetOptions = {},
): Promise<NodeObject> {
  const body = JSON.stringify({ metadata });
  return toNode(
    parse(await apiWrite(creds, nodePath(name), { ...options, method: 'PATCH', body, contentType: MERGE_PATCH }), `PATCH node ${name}`),
  );
}

/** Merge-patches `data` of a ConfigMap (null removes a key). */
export async function patchConfigMapData(
  creds: ApiCredentials,
  path: string,
  data: Record<string, string | null>,
  options: GetOptions = {},
  /** Compare-and-swap: the apiserver answers 409 Conflict when the object changed since this version. */
  resourceVersion?: string,
): Promise<void> {
  const metadata = resourceVersion === undefined ? {} : { metadata: { resourceVersion } };
  await apiWrite(creds, path, { ...options, method: 'PATCH', body: JSON.stringify({ ...metadata, data }), contentType: MERGE_PATCH });
}

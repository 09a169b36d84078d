// Node objects through the same HTTPS client check-hotfix uses (client.ts): get one, list them the way
// Kubernetes' own clients do (metadata only, in pages of `limit` following `continue` over one kept-alive
// connection, gzip; an expired `continue` relists), watch them from a list's resourceVersion
// (stream.ts), and a JSON merge patch (RFC 7386) of one node's labels and annotations. Also the
// ConfigMap merge patch the rollout watch applies a pre-signed halt with.
import { AgentError } from '../platform/errors.ts';
import { collectGarbage } from '../platform/memory.ts';
import { apiGet, apiWrite, type GetOptions } from './client.ts';
import type { ApiCredentials } from './credentials.ts';
import { apiStream } from './stream.ts';

export interface NodeObject {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** status.nodeInfo.bootID as the kubelet reports it ('' when absent, as in every metadata-only read). */
  bootId: string;
  /** status.nodeInfo: operating system image and architecture; without status (a metadata-only read),
   * kubelet's labels kubernetes.io/os and kubernetes.io/arch ('' when absent). */
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

/** Which labels and annotations a reader keeps of each Node (undefined: all); a fleet holds only these. */
export interface KeepKeys {
  labels?: readonly string[];
  annotations?: readonly string[];
}

const only = (all: Record<string, string>, keys: readonly string[] | undefined): Record<string, string> => {
  if (!keys) return all;
  const out: Record<string, string> = {};
  for (const k of keys) if (Object.hasOwn(all, k)) out[k] = all[k]!;
  return out;
};

function toNode(doc: unknown, keep: KeepKeys = {}): NodeObject {
  const d = (doc ?? {}) as { metadata?: Record<string, unknown>; status?: { nodeInfo?: Record<string, unknown> } };
  const info = d.status?.nodeInfo ?? {};
  const labels = strings(d.metadata?.labels);
  return {
    name: String(d.metadata?.name ?? ''),
    labels: only(labels, keep.labels),
    annotations: only(strings(d.metadata?.annotations), keep.annotations),
    bootId: typeof info.bootID === 'string' ? info.bootID : '',
    osImage: typeof info.osImage === 'string' ? info.osImage : (labels['kubernetes.io/os'] ?? ''),
    architecture: typeof info.architecture === 'string' ? info.architecture : (labels['kubernetes.io/arch'] ?? ''),
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

/** What a metadata-only client asks for (kubectl's and client-go's metadata clients send the same). */
export const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
export const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const DEFAULT_PAGE_SIZE = 500;
/** A safety bound per page (decoded), not per list: a fleet of any size is read page by page. */
export const MAX_PAGE_BYTES = 64 * 1024 * 1024;

export interface ListOptions extends GetOptions {
  labelSelector?: string;
  /** Nodes per page (`limit`), default 500. */
  pageSize?: number;
  keep?: KeepKeys;
}

export interface NodeList {
  nodes: NodeObject[];
  /** The list's resourceVersion: where a watch starts. */
  resourceVersion: string;
  /** Requests made (pages, relists included). */
  requests: number;
}

const EXPIRED = /returned status 410 /;

/**
 * Every Node, metadata only, page by page over one kept-alive connection. Only one page's body is held
 * at a time. An expired `continue` (410) starts the list again, at most twice.
 */
export async function listNodePages(creds: ApiCredentials, options: ListOptions = {}): Promise<NodeList> {
  const { Agent } = await import('node:https');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const limit = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const tooLarge = {
    message: `one page of the Node list (limit=${limit}) is over ${MAX_PAGE_BYTES} bytes (64 MiB): lower --page-size`,
    hint: `Pass a smaller --page-size (Nodes per page; now ${limit}): some Nodes carry very large metadata.`,
  };
  let requests = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      const nodes: NodeObject[] = [];
      let next: string | undefined;
      let resourceVersion = '';
      try {
        do {
          const query = new URLSearchParams({ limit: String(limit) });
          if (next) query.set('continue', next);
          if (options.labelSelector) query.set('labelSelector', options.labelSelector);
          requests++;
          const text = await apiGet(creds, `/api/v1/nodes?${query}`, {
            ...options,
            agent,
            accept: METADATA_LIST,
            gzip: true,
            maxBodyBytes: MAX_PAGE_BYTES,
            tooLarge,
          });
          const doc = parse(text, 'list nodes') as { items?: unknown; metadata?: { continue?: unknown; resourceVersion?: unknown } };
          if (Array.isArray(doc.items)) for (const item of doc.items) nodes.push(toNode(item, options.keep));
          resourceVersion = typeof doc.metadata?.resourceVersion === 'string' ? doc.metadata.resourceVersion : '';
          next = typeof doc.metadata?.continue === 'string' && doc.metadata.continue !== '' ? doc.metadata.continue : undefined;
          // Only one page's body at a time: what the last page left behind goes before the next one comes.
          collectGarbage();
        } while (next);
        return { nodes, resourceVersion, requests };
      } catch (error) {
        // The list's snapshot expired between two pages (compaction): a consistent list starts over.
        if (!(next && EXPIRED.test(error instanceof Error ? error.message : '') && attempt < 3)) throw error;
      }
    }
  } finally {
    agent.destroy();
  }
}

export async function listNodes(creds: ApiCredentials, labelSelector?: string, options: ListOptions = {}): Promise<NodeObject[]> {
  return (await listNodePages(creds, { ...options, ...(labelSelector ? { labelSelector } : {}) })).nodes;
}

export type NodeEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; node: NodeObject; resourceVersion: string }
  | { type: 'BOOKMARK'; resourceVersion: string };

export interface WatchNodeOptions {
  userAgent?: string;
  /** The server ends the stream after this long (a client then watches again from its last version). */
  timeoutSeconds: number;
  idleMs: number;
  onEvent(event: NodeEvent): void;
  signal?: AbortSignal;
  keep?: KeepKeys;
}

/** The apiserver's answer when the version a watch starts from is compacted away: relist. */
export class WatchExpired extends AgentError {
  constructor(message: string) {
    super('ANC_KUBE', message);
  }
}

/** Watches Nodes (metadata only) from `resourceVersion`; resolves when the server ends the stream. */
export function watchNodes(creds: ApiCredentials, resourceVersion: string, options: WatchNodeOptions): Promise<void> {
  const query = new URLSearchParams({
    watch: '1',
    resourceVersion,
    allowWatchBookmarks: 'true',
    timeoutSeconds: String(options.timeoutSeconds),
  });
  return apiStream(creds, `/api/v1/nodes?${query}`, {
    accept: METADATA,
    idleMs: options.idleMs,
    maxLineBytes: MAX_PAGE_BYTES,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onLine(line) {
      const event = parse(line, 'watch nodes') as {
        type?: unknown;
        object?: { metadata?: { resourceVersion?: unknown }; code?: unknown; message?: unknown };
      };
      const rv = String(event.object?.metadata?.resourceVersion ?? '');
      if (event.type === 'ERROR') {
        const why = `the Node watch ended with status ${String(event.object?.code)}: ${String(event.object?.message ?? '').slice(0, 200)}`;
        throw event.object?.code === 410 ? new WatchExpired(why) : new AgentError('ANC_KUBE', why);
      }
      if (event.type === 'BOOKMARK') return options.onEvent({ type: 'BOOKMARK', resourceVersion: rv });
      if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')
        options.onEvent({ type: event.type, node: toNode(event.object, options.keep), resourceVersion: rv });
    },
  });
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

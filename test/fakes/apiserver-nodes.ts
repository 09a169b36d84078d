// Node objects in the apiserver stand-in (issue 30): get, list (label selectors; a meta.k8s.io Table when
// kubectl asks for one, so `kubectl get nodes -L ...` prints columns) and JSON merge patch, with the
// rules a real cluster applies to a node's own credentials: the Node authorizer and NodeRestriction
// admission (a node patches only its own Node object, and only labels outside the kubernetes.io / k8s.io
// domains, except the prefixes and keys kubelets may set, never node-restriction.kubernetes.io/). A patch
// is validated as the apiserver validates ObjectMeta: annotations at most 256 KiB in bytes (keys and
// values together), label keys and values in their syntax (63-character names, the allowed characters).
// Lists, paging, metadata-only reads, gzip and watch: apiserver-list.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createListState, type ListState, recordChange, serveList } from './apiserver-list.ts';
import { patchNodeStatus } from './apiserver-node-status.ts';
import { mergePatch, readBody } from './apiserver-writes.ts';

export interface NodeIdentity {
  user: string;
  groups: string[];
  /** May read cluster objects (ConfigMaps, Nodes). */
  canRead: boolean;
  /** May write ConfigMaps and Nodes (an operator). */
  canWrite?: boolean;
}

export interface NodeStore {
  nodes: Map<string, Record<string, unknown>>;
  /** Adds (or replaces) a Node as kubelet registers it: labels kubernetes.io/hostname etc., bootID. */
  register(name: string, options?: { bootId?: string; labels?: Record<string, string> }): void;
  /** Adds (or replaces) a whole Node object as given (synthetic fleets), recorded as a change. */
  put(node: Record<string, unknown>): void;
  /** After a test changed a stored Node in place: a new resourceVersion and a MODIFIED event. */
  touch(name: string): void;
  remove(name: string): void;
  /** Drops every list snapshot: their continue tokens answer 410 (as after etcd compaction). */
  expireContinues(): void;
  /** Forgets the watch history: a watch from any earlier resourceVersion gets 410. */
  compact(): void;
  /** Ends every open watch cleanly (as at its timeoutSeconds), or breaks their connections. */
  endWatches(how: 'end' | 'break'): void;
  list: ListState;
}

type Reply = {
  status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): void;
  json(res: ServerResponse, body: unknown, code?: number): void;
};

export function createNodeStore(nextVersion: () => number): NodeStore {
  const nodes = new Map<string, Record<string, unknown>>();
  const list = createListState();
  const store: NodeStore = {
    nodes,
    list,
    put(node) {
      const meta = node.metadata as Record<string, unknown>;
      const name = String(meta.name);
      const rv = nextVersion();
      const existed = nodes.has(name);
      const stored = { ...node, metadata: { ...meta, resourceVersion: String(rv) } };
      nodes.set(name, stored);
      recordChange(list, existed ? 'MODIFIED' : 'ADDED', stored, rv);
    },
    touch(name) {
      const node = nodes.get(name);
      if (node) store.put(node);
    },
    remove(name) {
      const node = nodes.get(name);
      if (!node) return;
      nodes.delete(name);
      recordChange(list, 'DELETED', node, nextVersion());
    },
    expireContinues() {
      list.snapshots.clear();
    },
    compact() {
      list.history.length = 0;
      list.version = nextVersion();
    },
    endWatches(how) {
      for (const res of [...list.streams]) {
        if (how === 'end') res.end();
        else res.socket?.destroy();
      }
    },
    register(name, options = {}) {
      store.put({
        kind: 'Node',
        apiVersion: 'v1',
        metadata: {
          name,
          uid: `node-${nodes.size}-anc-fake`,
          resourceVersion: String(nextVersion()),
          creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', ...options.labels },
          annotations: {},
        },
        spec: {},
        status: {
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
          nodeInfo: {
            bootID: options.bootId ?? '',
            osImage: 'Ubuntu 22.04.5 LTS',
            architecture: 'amd64',
            kubeletVersion: 'v1.32.4',
            operatingSystem: 'linux',
          },
        },
      });
    },
  };
  return store;
}

/** The label keys a node may set on itself (NodeRestriction: kubelet's own labels are allowed). */
const KUBELET_LABEL_KEYS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
]);

/** Why a node may not set this label key, or undefined when it may. */
export function forbiddenNodeLabel(key: string): string | undefined {
  const slash = key.indexOf('/');
  if (slash < 0) return undefined;
  const domain = key.slice(0, slash);
  const under = (d: string) => domain === d || domain.endsWith(`.${d}`);
  if (under('node-restriction.kubernetes.io')) return 'node-restriction.kubernetes.io/ is reserved for the cluster administrator';
  if (!under('kubernetes.io') && !under('k8s.io')) return undefined;
  if (KUBELET_LABEL_KEYS.has(key) || under('kubelet.kubernetes.io') || under('node.kubernetes.io')) return undefined;
  return 'the kubernetes.io and k8s.io domains are reserved';
}

/** `key=value`, `key!=value`, `key`, `!key`, comma-separated (equality-based selectors). */
export function matchesSelector(labels: Record<string, string>, selector: string): boolean {
  for (const raw of selector
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const ne = /^([^!=]+)!=(.*)$/.exec(raw);
    const eq = /^([^!=]+)==?(.*)$/.exec(raw);
    if (ne) {
      if (labels[ne[1]!.trim()] === ne[2]!.trim()) return false;
    } else if (eq) {
      if (labels[eq[1]!.trim()] !== eq[2]!.trim()) return false;
    } else if (raw.startsWith('!')) {
      if (Object.hasOwn(labels, raw.slice(1).trim())) return false;
    } else if (!Object.hasOwn(labels, raw)) return false;
  }
  return true;
}

function age(created: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(created)) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

function table(items: Array<Record<string, unknown>>, resourceVersion: string): unknown {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
      { name: 'Status', type: 'string', format: '', description: 'Ready', priority: 0 },
      { name: 'Roles', type: 'string', format: '', description: 'Roles', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: 'Age', priority: 0 },
      { name: 'Version', type: 'string', format: '', description: 'Kubelet version', priority: 0 },
    ],
    rows: items.map((node) => {
      const meta = node.metadata as Record<string, unknown>;
      const info = (node.status as { nodeInfo: Record<string, string> }).nodeInfo;
      return {
        cells: [meta.name, 'Ready', 'agent', age(String(meta.creationTimestamp)), info.kubeletVersion],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta },
      };
    }),
  };
}

/** The node a `system:node:<name>` identity in group `system:nodes` is, or undefined for other users. */
const nodeNameOf = (identity: NodeIdentity) =>
  identity.groups.includes('system:nodes') && identity.user.startsWith('system:node:')
    ? identity.user.slice('system:node:'.length)
    : undefined;

/** Serves /api/v1/nodes[/<name>]; answers true when the path was a Node path. */
export function serveNodes(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  identity: NodeIdentity,
  store: NodeStore,
  reply: Reply,
): boolean {
  const statusPath = /^\/api\/v1\/nodes\/([^/]+)\/status$/.exec(path);
  if (statusPath && req.method === 'GET') path = `/api/v1/nodes/${statusPath[1]}`;
  else if (statusPath && req.method === 'PATCH') {
    void patchNodeStatus(req, res, statusPath[1]!, nodeNameOf(identity), identity, store, reply);
    return true;
  }
  const match = /^\/api\/v1\/nodes(?:\/([^/]+))?$/.exec(path);
  if (!match) return false;
  const name = match[1];
  const self = nodeNameOf(identity);
  const mayRead = identity.canRead || self !== undefined;
  if (req.method === 'GET') {
    if (!mayRead) {
      reply.status(
        res,
        403,
        'Forbidden',
        `nodes${name ? ` "${name}"` : ''} is forbidden: User "${identity.user}" cannot ${name ? 'get' : 'list'} resource "nodes" in API group "" at the cluster scope`,
        { kind: 'nodes', ...(name ? { name } : {}) },
      );
      return true;
    }
    if (name === undefined) {
      const selector = new URL(req.url ?? '/', 'https://x').searchParams.get('labelSelector') ?? '';
      const items = () =>
        [...store.nodes.values()].filter((n) =>
          matchesSelector(((n.metadata as Record<string, unknown>).labels ?? {}) as Record<string, string>, selector),
        );
      serveList(req, res, store.list, items, table, (r, code, reason, message) => reply.status(r, code, reason, message));
      return true;
    }
    const node = store.nodes.get(name);
    if (!node) reply.status(res, 404, 'NotFound', `nodes "${name}" not found`, { name, kind: 'nodes' });
    else reply.json(res, node);
    return true;
  }
  if (req.method !== 'PATCH' || name === undefined) {
    reply.status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    return true;
  }
  void patchNode(req, res, name, identity, self, store, reply);
  return true;
}

async function patchNode(
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  identity: NodeIdentity,
  self: string | undefined,
  store: NodeStore,
  reply: Reply,
): Promise<void> {
  if (self === undefined && !identity.canWrite) {
    return reply.status(
      res,
      403,
      'Forbidden',
      `nodes "${name}" is forbidden: User "${identity.user}" cannot patch resource "nodes" in API group "" at the cluster scope`,
      { name, kind: 'nodes' },
    );
  }
  // NodeRestriction: a node's credentials modify only its own Node object.
  if (self !== undefined && self !== name) {
    return reply.status(res, 403, 'Forbidden', `nodes "${name}" is forbidden: node "${self}" is not allowed to modify node "${name}"`, {
      name,
      kind: 'nodes',
    });
  }
  const type = String(req.headers['content-type'] ?? '').split(';')[0];
  if (type !== 'application/merge-patch+json' && type !== 'application/strategic-merge-patch+json') {
    return reply.status(
      res,
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json',
    );
  }
  let patch: unknown;
  try {
    patch = JSON.parse(await readBody(req));
  } catch {
    return reply.status(res, 400, 'BadRequest', 'the request body is not JSON');
  }
  const node = store.nodes.get(name);
  if (!node) return reply.status(res, 404, 'NotFound', `nodes "${name}" not found`, { name, kind: 'nodes' });
  const merged = mergePatch(node, patch) as Record<string, unknown>;
  const meta = (merged.metadata ?? {}) as Record<string, unknown>;
  const before = ((node.metadata as Record<string, unknown>).labels ?? {}) as Record<string, string>;
  const after = (meta.labels ?? {}) as Record<string, string>;
  if (self !== undefined) {
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]);
    const refused = changed.filter((k) => forbiddenNodeLabel(k) !== undefined).sort();
    if (refused.length > 0) {
      return reply.status(
        res,
        403,
        'Forbidden',
        `nodes "${name}" is forbidden: node "${self}" is not allowed to modify labels: ${refused.join(', ')}`,
        { name, kind: 'nodes' },
      );
    }
  }
  const bad = Object.entries({ ...after, ...((meta.annotations ?? {}) as object) }).find(([, v]) => typeof v !== 'string');
  if (bad) return reply.status(res, 422, 'Invalid', `Node "${name}" is invalid: metadata: values must be strings (${bad[0]})`);
  // Annotations are counted in bytes, keys and values together (a UTF-16 count lets multi-byte text through).
  const annotationBytes = Object.entries((meta.annotations ?? {}) as Record<string, string>).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  if (annotationBytes > 256 * 1024)
    return reply.status(
      res,
      422,
      'Invalid',
      `Node "${name}" is invalid: metadata.annotations: Too long: must have at most 262144 bytes (has ${annotationBytes})`,
    );
  const badLabel = Object.entries(after)
    .map(([k, v]) => labelProblem(k, v))
    .find((why) => why !== undefined);
  if (badLabel) return reply.status(res, 422, 'Invalid', `Node "${name}" is invalid: metadata.labels: ${badLabel}`);
  meta.name = name;
  // The main resource ignores status, as kube-apiserver does: it changes only through nodes/<name>/status.
  store.put({ ...merged, metadata: meta, status: node.status });
  reply.json(res, store.nodes.get(name));
}

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a label is invalid (ObjectMeta's rules for keys and values), or undefined. */
export function labelProblem(key: string, value: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const nameOf = slash >= 0 ? key.slice(slash + 1) : key;
  const q = JSON.stringify;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `Invalid value: ${q(key)}: the prefix must be a DNS subdomain of at most 253 characters`;
  if (nameOf.length === 0 || nameOf.length > 63) return `Invalid value: ${q(key)}: the name part must be 1 to 63 characters`;
  if (!LABEL_NAME.test(nameOf))
    return `Invalid value: ${q(key)}: the name part must be alphanumeric at both ends, with only '-', '_', '.' and alphanumerics between`;
  if (value.length > 63) return `Invalid value: ${q(value)}: a label value must be no more than 63 characters`;
  if (value !== '' && !LABEL_NAME.test(value))
    return `Invalid value: ${q(value)}: a label value must be empty or alphanumeric at both ends, with only '-', '_', '.' and alphanumerics between`;
  return undefined;
}

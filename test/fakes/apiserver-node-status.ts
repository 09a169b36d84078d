// PATCH /api/v1/nodes/<name>/status in the apiserver stand-in, as kube-apiserver does it: only `status`
// changes (metadata and spec in the body are ignored); NodeRestriction lets a node's credentials patch
// only its own Node's status; a strategic merge patch merges status.conditions by `type` (an item with
// `$patch: delete` removes that type), a JSON merge patch replaces the list; a condition needs a type and
// a status of True, False or Unknown.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mergePatch, readBody } from './apiserver-writes.ts';

type Reply = {
  status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): void;
  json(res: ServerResponse, body: unknown, code?: number): void;
};

type Condition = Record<string, unknown> & { type?: unknown; status?: unknown };

/** Strategic merge of status.conditions (patchMergeKey `type`). */
function mergeConditions(current: Condition[], patch: Condition[]): Condition[] {
  const out = current.map((c) => ({ ...c }));
  for (const item of patch) {
    const at = out.findIndex((c) => c.type === item.type);
    if (item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    const clean = Object.fromEntries(Object.entries(item).filter(([k]) => !k.startsWith('$')));
    if (at >= 0) out[at] = mergePatch(out[at], clean) as Condition;
    else out.push(clean);
  }
  return out;
}

export async function patchNodeStatus(
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  self: string | undefined,
  identity: { user: string; canWrite?: boolean },
  store: { nodes: Map<string, Record<string, unknown>>; put(node: Record<string, unknown>): void },
  reply: Reply,
): Promise<void> {
  const nodes = store.nodes;
  const user = identity.user;
  if (self === undefined && !identity.canWrite)
    return reply.status(
      res,
      403,
      'Forbidden',
      `nodes "${name}" is forbidden: User "${user}" cannot patch resource "nodes/status" in API group "" at the cluster scope`,
      { name, kind: 'nodes' },
    );
  if (self !== undefined && self !== name)
    return reply.status(res, 403, 'Forbidden', `nodes "${name}" is forbidden: node "${self}" is not allowed to modify node "${name}"`, {
      name,
      kind: 'nodes',
    });
  const type = String(req.headers['content-type'] ?? '').split(';')[0];
  if (type !== 'application/merge-patch+json' && type !== 'application/strategic-merge-patch+json')
    return reply.status(
      res,
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json',
    );
  let patch: { status?: Record<string, unknown> } | null;
  try {
    patch = JSON.parse(await readBody(req));
  } catch {
    return reply.status(res, 400, 'BadRequest', 'the request body is not JSON');
  }
  const node = nodes.get(name);
  if (!node) return reply.status(res, 404, 'NotFound', `nodes "${name}" not found`, { name, kind: 'nodes' });
  const before = (node.status ?? {}) as Record<string, unknown>;
  const { conditions: patched, ...rest } = (patch?.status ?? {}) as { conditions?: unknown };
  let status = mergePatch(before, rest) as Record<string, unknown>;
  if (patched !== undefined) {
    if (!Array.isArray(patched)) return reply.status(res, 400, 'BadRequest', 'status.conditions: must be a list');
    const current = Array.isArray(before.conditions) ? (before.conditions as Condition[]) : [];
    const conditions = type === 'application/strategic-merge-patch+json' ? mergeConditions(current, patched) : patched;
    status = { ...status, conditions };
  }
  const list = (status.conditions ?? []) as Condition[];
  const bad = list.findIndex(
    (c) => typeof c?.type !== 'string' || c.type === '' || !['True', 'False', 'Unknown'].includes(String(c.status)),
  );
  if (bad >= 0)
    return reply.status(
      res,
      422,
      'Invalid',
      `Node "${name}" is invalid: status.conditions[${bad}]: a condition needs a type and a status of True, False or Unknown`,
    );
  // Through the store: a new resourceVersion and a MODIFIED watch event, as for any write.
  store.put({ ...node, status });
  reply.json(res, nodes.get(name));
}

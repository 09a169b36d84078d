// What kubectl needs from the apiserver stand-in to publish a ConfigMap: the OpenAPI v3 documents it
// reads before `apply` (schema validation, the strategic-merge metadata of ConfigMap) and the writes
// `apply` / `replace` / `create` / `patch` send: POST (create), PUT (replace, with resourceVersion
// conflicts), PATCH (strategic-merge and JSON merge patch; for a ConfigMap both are RFC 7386 merges).
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StoredMeta {
  resourceVersion: number;
  uid: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const GVK = { group: '', version: 'v1', kind: 'ConfigMap' };
const FIELD_VALIDATION = { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } };
const op = (action: string, params: unknown[] = []) => ({
  operationId: `${action}CoreV1NamespacedConfigMap`,
  parameters: params,
  responses: {
    '200': {
      description: 'OK',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' } } },
    },
  },
  'x-kubernetes-action': action,
  'x-kubernetes-group-version-kind': GVK,
});

const STRING_MAP = { type: 'object', additionalProperties: { type: 'string', default: '' } };
const CORE_V1 = {
  openapi: '3.0.0',
  info: { title: 'Kubernetes', version: 'v1.32.4-anc-fake' },
  paths: {
    '/api/v1/namespaces/{namespace}/configmaps': { post: op('post', [FIELD_VALIDATION]), get: op('list') },
    '/api/v1/namespaces/{namespace}/configmaps/{name}': {
      get: op('get'),
      put: op('put', [FIELD_VALIDATION]),
      patch: op('patch', [FIELD_VALIDATION]),
      delete: op('delete'),
    },
  },
  components: {
    schemas: {
      'io.k8s.api.core.v1.ConfigMap': {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {} },
          data: STRING_MAP,
          binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
          immutable: { type: 'boolean' },
        },
        'x-kubernetes-group-version-kind': [GVK],
      },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
        type: 'object',
        properties: {
          name: { type: 'string' },
          namespace: { type: 'string' },
          labels: STRING_MAP,
          annotations: STRING_MAP,
          resourceVersion: { type: 'string' },
          uid: { type: 'string' },
          creationTimestamp: { type: 'string', format: 'date-time' },
          generation: { type: 'integer', format: 'int64' },
        },
      },
    },
  },
};

/** The OpenAPI v3 discovery index and the core/v1 document (ConfigMap only); undefined for other paths. */
export function openApi(path: string): unknown {
  if (path === '/openapi/v3') return { paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=ANCFAKE0001' } } };
  if (path === '/openapi/v3/api/v1') return CORE_V1;
  return undefined;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** RFC 7386: null deletes, objects merge, everything else replaces; `$`-directives of strategic merge are dropped. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

export interface WriteContext {
  configMaps: Map<string, unknown>;
  meta: Map<string, StoredMeta>;
  nextVersion(): number;
  /** The ConfigMap as the API returns it. */
  object(namespace: string, name: string): Record<string, unknown>;
  status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): void;
  json(res: ServerResponse, body: unknown, code?: number): void;
}

/** POST to the collection, PUT or PATCH to one ConfigMap. */
export async function serveWrite(
  req: IncomingMessage,
  res: ServerResponse,
  namespace: string,
  name: string | undefined,
  ctx: WriteContext,
): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    return ctx.status(res, 400, 'BadRequest', 'the request body is not JSON');
  }
  const type = String(req.headers['content-type'] ?? '').split(';')[0];
  if (req.method === 'PATCH') {
    if (type !== 'application/strategic-merge-patch+json' && type !== 'application/merge-patch+json') {
      return ctx.status(
        res,
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json`,
      );
    }
    const key = `${namespace}/${name}`;
    if (!ctx.configMaps.has(key))
      return ctx.status(res, 404, 'NotFound', `configmaps "${name}" not found`, { name: name!, kind: 'configmaps' });
    // A patch that names a resourceVersion is a compare-and-swap, as kube-apiserver does it.
    const sentVersion = ((body.metadata ?? {}) as Record<string, unknown>).resourceVersion;
    if (sentVersion !== undefined && String(sentVersion) !== String(ctx.meta.get(key)?.resourceVersion ?? 4242)) {
      const message = `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;
      return ctx.status(res, 409, 'Conflict', message, { name: name!, kind: 'configmaps' });
    }
    const merged = mergePatch(ctx.object(namespace, name!), body) as Record<string, unknown>;
    return store(res, ctx, namespace, name!, merged, 200);
  }
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  const objectName = String(metadata.name ?? '');
  if (body.kind !== 'ConfigMap' || objectName === '')
    return ctx.status(res, 422, 'Invalid', 'ConfigMap is invalid: metadata.name: Required value');
  if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
    return ctx.status(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  }
  const key = `${namespace}/${objectName}`;
  if (req.method === 'POST') {
    if (ctx.configMaps.has(key))
      return ctx.status(res, 409, 'AlreadyExists', `configmaps "${objectName}" already exists`, { name: objectName, kind: 'configmaps' });
    return store(res, ctx, namespace, objectName, body, 201);
  }
  if (objectName !== name) return ctx.status(res, 400, 'BadRequest', 'the name of the object does not match the name on the URL');
  if (!ctx.configMaps.has(key)) return ctx.status(res, 404, 'NotFound', `configmaps "${name}" not found`, { name, kind: 'configmaps' });
  const sent = metadata.resourceVersion;
  if (sent !== undefined && String(sent) !== String(ctx.meta.get(key)!.resourceVersion)) {
    const message = `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;
    return ctx.status(res, 409, 'Conflict', message, { name, kind: 'configmaps' });
  }
  return store(res, ctx, namespace, objectName, body, 200);
}

function store(res: ServerResponse, ctx: WriteContext, namespace: string, name: string, body: Record<string, unknown>, code: number): void {
  const key = `${namespace}/${name}`;
  const data = body.data ?? {};
  if (typeof data !== 'object' || data === null || Object.values(data).some((v) => typeof v !== 'string')) {
    return ctx.status(res, 422, 'Invalid', 'ConfigMap is invalid: data: values must be strings');
  }
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  const previous = ctx.meta.get(key);
  ctx.configMaps.set(key, data);
  ctx.meta.set(key, {
    resourceVersion: ctx.nextVersion(),
    uid: previous?.uid ?? `0000${ctx.meta.size}-anc-fake`,
    ...(metadata.labels ? { labels: metadata.labels as Record<string, string> } : {}),
    ...(metadata.annotations ? { annotations: metadata.annotations as Record<string, string> } : {}),
  });
  ctx.json(res, ctx.object(namespace, name), code);
}

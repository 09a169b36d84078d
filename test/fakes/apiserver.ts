// A loopback stand-in for the Kubernetes apiserver: a real HTTPS server (node:https) with the test PKI of
// apiserver-pki.ts, serving ConfigMaps the way the API does (object shape, `Status` error bodies, 401
// without valid credentials, 403 for a user without rights, 404 for a missing object), bearer tokens and
// client certificates, plus the discovery documents kubectl fetches first (/version, /api, /apis,
// /api/v1), and what `kubectl apply/replace` needs to publish (OpenAPI v3, POST/PUT/PATCH for users with
// `canWrite`: apiserver-writes.ts). Tests can inject faults (a hang, a dripping or cut body, any status)
// with `override`. Node reads behave as kube-apiserver's where the fleet views depend on it (paging with
// 410 for an expired continue, metadata-only and Table answers, gzip over 128 KiB, watch with bookmarks and
// 410 for a compacted version: apiserver-list.ts) and Node writes are validated as ObjectMeta is
// (annotations 256 KiB in bytes, label syntax: apiserver-nodes.ts). Where it still differs from a real
// apiserver (no field selectors, no set-based label selectors, no MVCC store behind the snapshots, watch
// streams never compressed, no API priority and fairness, no HTTP/2): docs/operators.md "The stand-in".
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { makeTestPki, type TestPki } from './apiserver-pki.ts';
import { createNodeStore, type NodeStore, serveNodes } from './apiserver-nodes.ts';
import { openApi, serveWrite, type StoredMeta, type WriteContext } from './apiserver-writes.ts';

export type ServerCert = 'good' | 'wrong-name' | 'expired';

export interface Identity {
  user: string;
  /** May get ConfigMaps in kube-system (RBAC stand-in). */
  canRead: boolean;
  /** May also create, replace and patch them (a publisher). */
  canWrite?: boolean;
  /** Groups (a client certificate's O): `system:nodes` makes a `system:node:<name>` user that node. */
  groups?: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string ('' when none). */
  query: string;
  acceptEncoding: string;
  accept: string;
  userAgent: string;
  /** The authenticated user, or '' when the request was unauthenticated. */
  user: string;
  bearer: boolean;
  clientCert: boolean;
}

export interface FakeApiServerOptions {
  pki?: TestPki;
  cert?: ServerCert;
  /** Address to listen on: 127.0.0.1 (default) or ::1 (the certificate covers both). */
  listenHost?: '127.0.0.1' | '::1';
  /** Speak plain HTTP on the port (a misconfigured endpoint). */
  plainHttp?: boolean;
  /** Bearer token -> identity. Default: one bootstrap token that may read. */
  tokens?: Record<string, Identity>;
  /** Client-certificate CN -> may read. Default: the PKI's client certificate may read. */
  certUsers?: Record<string, boolean>;
  /** `namespace/name` -> the ConfigMap's `data` (any JSON value, so tests can serve malformed shapes). */
  configMaps?: Record<string, unknown>;
  /** Node objects to register at start (as kubelet registers them). */
  nodes?: string[];
  /** Called first for every request; return true when it answered (or deliberately never will). */
  override?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export interface FakeApiServer {
  port: number;
  /** `127.0.0.1:<port>` or `[::1]:<port>` (node-config apiServerName form). */
  address: string;
  url: string;
  pki: TestPki;
  requests: RecordedRequest[];
  configMaps: Map<string, unknown>;
  nodes: NodeStore;
  /** Bytes the server sent and received on the wire (TLS included) and the connections accepted so far. */
  wire(): { sent: number; received: number; connections: number };
  close(): Promise<void>;
}

export const DEFAULT_TOKEN = 'abcdef.0123456789abcdef';

export function status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): void {
  const body = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function json(res: ServerResponse, body: unknown, code = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function authenticate(
  req: IncomingMessage,
  options: Required<Pick<FakeApiServerOptions, 'tokens' | 'certUsers'>>,
): Identity | 'invalid' | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer (.+)$/.exec(header);
    const identity = match ? options.tokens[match[1]!] : undefined;
    return identity ?? 'invalid';
  }
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized && typeof socket.getPeerCertificate === 'function') {
    const subject = socket.getPeerCertificate().subject;
    const cn = subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    const groups = subject?.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
    if (name) return { user: name, groups, canRead: options.certUsers[name] ?? false };
  }
  return undefined;
}

function discovery(path: string, address: string): unknown {
  if (path === '/api') {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }] };
  }
  if (path === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
  if (path === '/api/v1') {
    return {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] },
        { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: ['get', 'list', 'patch'], shortNames: ['no'] },
        { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node', verbs: ['get', 'patch'] },
        {
          name: 'configmaps',
          singularName: 'configmap',
          namespaced: true,
          kind: 'ConfigMap',
          verbs: ['create', 'get', 'list', 'patch', 'update'],
          shortNames: ['cm'],
        },
      ],
    };
  }
  return undefined;
}

const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.4-anc-fake', platform: 'linux/amd64' };

/** The resource part of the API for an authenticated user: namespaces and ConfigMaps (RBAC stand-in). */
function serveResource(req: IncomingMessage, res: ServerResponse, path: string, identity: Identity, writes: WriteContext): void {
  const configMaps = writes.configMaps;
  const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(path)?.[1];
  if (ns !== undefined) {
    // kubectl looks the namespace up after a 404 to word its error message.
    if (!NAMESPACES.includes(ns)) return status(res, 404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' });
    return json(res, {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: ns },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  const match = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps(?:\/([^/]+))?$/.exec(path);
  if (!match) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
  const [, namespace, name] = match as unknown as [string, string, string | undefined];
  if (req.method !== 'GET') {
    const verb = req.method === 'POST' ? 'create' : req.method === 'PUT' ? 'update' : 'patch';
    if (!identity.canWrite) {
      const message = `configmaps${name ? ` "${name}"` : ''} is forbidden: User "${identity.user}" cannot ${verb} resource "configmaps" in API group "" in the namespace "${namespace}"`;
      return status(res, 403, 'Forbidden', message, { ...(name ? { name } : {}), kind: 'configmaps' });
    }
    if (['POST', 'PUT', 'PATCH'].includes(req.method ?? '') && (req.method === 'POST') === (name === undefined)) {
      void serveWrite(req, res, namespace, name, writes);
      return;
    }
    return status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
  if (name === undefined) {
    // `kubectl -n kube-system get configmaps` (the stand-in's own suggestion): the list, as a ConfigMapList.
    if (!identity.canRead) {
      const message = `configmaps is forbidden: User "${identity.user}" cannot list resource "configmaps" in API group "" in the namespace "${namespace}"`;
      return status(res, 403, 'Forbidden', message, { kind: 'configmaps' });
    }
    const items = [...configMaps.keys()]
      .filter((key) => key.startsWith(`${namespace}/`))
      .sort()
      .map((key) => writes.object(namespace, key.slice(namespace.length + 1)));
    return json(res, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '4242' }, items });
  }
  if (!identity.canRead) {
    const message = `configmaps "${name}" is forbidden: User "${identity.user}" cannot get resource "configmaps" in API group "" in the namespace "${namespace}"`;
    return status(res, 403, 'Forbidden', message, { name, kind: 'configmaps' });
  }
  const key = `${namespace}/${name}`;
  if (!configMaps.has(key)) return status(res, 404, 'NotFound', `configmaps "${name}" not found`, { name, kind: 'configmaps' });
  json(res, writes.object(namespace, name));
}

export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const pki = options.pki ?? makeTestPki();
  const auth = {
    tokens: options.tokens ?? { [DEFAULT_TOKEN]: { user: 'system:bootstrap:abcdef', canRead: true } },
    certUsers: options.certUsers ?? { [pki.clientUser]: true },
  };
  const configMaps = new Map(Object.entries(options.configMaps ?? {}));
  const meta = new Map<string, StoredMeta>();
  let version = 4242;
  const writes: WriteContext = {
    configMaps,
    meta,
    nextVersion: () => ++version,
    status,
    json,
    object(namespace, name) {
      const stored = meta.get(`${namespace}/${name}`);
      const metadata = {
        name,
        namespace,
        uid: stored?.uid ?? '6f1c3a52-0d4e-4f8e-9d1a-0c8f7b2e5a11',
        resourceVersion: String(stored?.resourceVersion ?? 4242),
        creationTimestamp: '2026-04-01T00:00:00Z',
        ...(stored?.labels ? { labels: stored.labels } : {}),
        ...(stored?.annotations ? { annotations: stored.annotations } : {}),
      };
      return { kind: 'ConfigMap', apiVersion: 'v1', metadata, data: configMaps.get(`${namespace}/${name}`) };
    },
  };
  const nodes = createNodeStore(() => ++version);
  for (const name of options.nodes ?? []) nodes.register(name);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closed = { sent: 0, received: 0, connections: 0 };
  let address = '';
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!;
    const identity = authenticate(req, auth);
    const tls = req.socket as Partial<TLSSocket>;
    requests.push({
      method: req.method ?? '',
      path,
      query: (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1) : '',
      acceptEncoding: String(req.headers['accept-encoding'] ?? ''),
      accept: String(req.headers.accept ?? ''),
      userAgent: String(req.headers['user-agent'] ?? ''),
      user: typeof identity === 'object' ? identity.user : '',
      bearer: req.headers.authorization !== undefined,
      clientCert: Boolean(tls.authorized),
    });
    if (options.override?.(req, res)) return;
    if (path === '/version') return json(res, VERSION);
    if (identity === undefined || identity === 'invalid') return status(res, 401, 'Unauthorized', 'Unauthorized');
    const doc = discovery(path, address) ?? openApi(path);
    if (doc) return json(res, doc);
    if (serveNodes(req, res, path, { groups: [], ...identity }, nodes, { status, json })) return;
    serveResource(req, res, path, identity, writes);
  };
  const cert = options.cert === 'wrong-name' ? pki.wrongName : options.cert === 'expired' ? pki.expired : pki.server;
  const server: Server = options.plainHttp
    ? createHttpServer(handler)
    : createHttpsServer({ key: cert.key, cert: cert.cert, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: false }, handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    closed.connections++;
    socket.on('close', () => {
      closed.sent += socket.bytesWritten;
      closed.received += socket.bytesRead;
      sockets.delete(socket);
    });
  });
  server.on('tlsClientError', () => {});
  const host = options.listenHost ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    port,
    address,
    url: `https://${address}`,
    pki,
    requests,
    configMaps,
    nodes,
    wire() {
      const open = [...sockets];
      return {
        sent: closed.sent + open.reduce((n, s) => n + s.bytesWritten, 0),
        received: closed.received + open.reduce((n, s) => n + s.bytesRead, 0),
        connections: closed.connections,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A kubeconfig the way kubectl writes it (block style), for the stand-in; secrets inline as *-data. */
export function kubeconfigFor(
  api: FakeApiServer,
  user: { token?: string; clientCert?: boolean | { cert: string; key: string } },
  caData = api.pki.ca.cert,
): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const userLines = [
    ...(user.token ? [`    token: ${user.token}`] : []),
    ...(user.clientCert
      ? [
          `    client-certificate-data: ${b64(user.clientCert === true ? api.pki.client.cert : user.clientCert.cert)}`,
          `    client-key-data: ${b64(user.clientCert === true ? api.pki.client.key : user.clientCert.key)}`,
        ]
      : []),
  ];
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(caData)}`,
    `    server: ${api.url}`,
    '  name: anc-fake',
    'contexts:',
    '- context:',
    '    cluster: anc-fake',
    '    user: anc-user',
    '  name: anc-fake',
    'current-context: anc-fake',
    'kind: Config',
    'preferences: {}',
    'users:',
    '- name: anc-user',
    ...(userLines.length ? ['  user:', ...userLines] : ['  user: {}']),
    '',
  ].join('\n');
}

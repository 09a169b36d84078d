// Reads of the Node collection in the apiserver stand-in, as kube-apiserver serves them (issue 38):
// - `limit`/`continue`: the first page takes a snapshot (a consistent list at one resourceVersion); later
//   pages read it through an opaque token; a token whose snapshot is gone (older than `continueTtlMs`,
//   evicted, or dropped by `expireContinues()`, standing in for etcd compaction) answers 410 Expired;
// - `Accept: ...;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` answers metadata only, and
//   `as=Table` a meta.k8s.io Table (rows carry PartialObjectMetadata, as with includeObject=Metadata);
// - gzip when the client sends Accept-Encoding: gzip and the body is over 128 KiB;
// - `watch=1&resourceVersion=RV`: every change after RV as one JSON event per line (ADDED, MODIFIED,
//   DELETED; BOOKMARK every `bookmarkMs` with allowWatchBookmarks), ending after timeoutSeconds; an RV older
//   than the kept history gets an ERROR event with a 410 Status, as a real apiserver answers after compaction.
// Still unlike a real apiserver (also in docs/operators.md "The stand-in"): no field selectors, no
// set-based label selectors; a continue's snapshot is a copy of the list in memory (at most 16 lists in
// flight), not an etcd revision; the watch history is the last 10,000 changes, not a time window; label
// selectors do not filter watch events; watch streams are never compressed and only Node reads are; no
// priority and fairness (429), no HTTP/2, no resourceVersionMatch, no sendInitialEvents.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

export type NodeDoc = Record<string, unknown>;

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: NodeDoc;
  rv: number;
}

export interface ListState {
  /** Kept change history (the watch window); older resourceVersions get 410. */
  history: WatchEvent[];
  historyLimit: number;
  /** The collection's resourceVersion (the last change). */
  version: number;
  watchers: Set<(event: WatchEvent) => void>;
  /** Open watch responses (tests end them cleanly or break them). */
  streams: Set<ServerResponse>;
  snapshots: Map<string, { items: NodeDoc[]; rv: number; at: number }>;
  continueTtlMs: number;
  bookmarkMs: number;
  /** Requests served, by kind (the tests assert how a client read). */
  served: { pages: number; full: number; metadata: number; table: number; gzip: number; watches: number; expired: number };
}

export function createListState(): ListState {
  return {
    history: [],
    historyLimit: 10_000,
    version: 0,
    watchers: new Set(),
    streams: new Set(),
    snapshots: new Map(),
    continueTtlMs: 5 * 60_000,
    bookmarkMs: 10_000,
    served: { pages: 0, full: 0, metadata: 0, table: 0, gzip: 0, watches: 0, expired: 0 },
  };
}

/** Records a change and tells the open watches. */
export function recordChange(state: ListState, type: WatchEvent['type'], object: NodeDoc, rv: number): void {
  const event = { type, object, rv };
  state.version = Math.max(state.version, rv);
  state.history.push(event);
  if (state.history.length > state.historyLimit) state.history.splice(0, state.history.length - state.historyLimit);
  for (const watcher of state.watchers) watcher(event);
}

const metaOf = (node: NodeDoc) => node.metadata as Record<string, unknown>;
const partial = (node: NodeDoc) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metaOf(node) });

type As = 'full' | 'metadata' | 'table';
function wants(req: IncomingMessage): As {
  const accept = String(req.headers.accept ?? '');
  // The first media type the stand-in can serve wins, as in content negotiation.
  for (const part of accept.split(',')) {
    if (/as=Table/.test(part)) return 'table';
    if (/as=PartialObjectMetadata(List)?\b/.test(part)) return 'metadata';
    if (/application\/json|\*\/\*/.test(part)) return 'full';
  }
  return 'full';
}

/** A body as kube-apiserver sends it: gzip above 128 KiB when the client accepts it. */
export function sendJson(req: IncomingMessage, res: ServerResponse, state: ListState, body: unknown, code = 200): void {
  const text = Buffer.from(JSON.stringify(body));
  if (text.length > 128 * 1024 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    state.served.gzip++;
    const zipped = gzipSync(text, { level: 1 });
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
    res.end(zipped);
    return;
  }
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': text.length });
  res.end(text);
}

type Fail = (res: ServerResponse, code: number, reason: string, message: string) => void;

/** GET /api/v1/nodes (list or watch) for a reader; `items` are the Nodes matching the label selector. */
export function serveList(
  req: IncomingMessage,
  res: ServerResponse,
  state: ListState,
  items: () => NodeDoc[],
  table: (items: NodeDoc[], rv: string) => unknown,
  fail: Fail,
): void {
  const query = new URL(req.url ?? '/', 'https://x').searchParams;
  if (['1', 'true'].includes(query.get('watch') ?? '')) return serveWatch(req, res, state, items, query, fail);
  const as = wants(req);
  const limit = Number(query.get('limit') ?? '0');
  const token = query.get('continue') ?? '';
  let page: NodeDoc[];
  let rv: number;
  let next = '';
  if (token !== '') {
    let key = '';
    let start = 0;
    try {
      ({ key, start } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { key: string; start: number });
    } catch {
      return fail(res, 400, 'BadRequest', 'continue key is not valid');
    }
    const snap = state.snapshots.get(key);
    if (!snap || Date.now() - snap.at > state.continueTtlMs) {
      state.snapshots.delete(key);
      state.served.expired++;
      return fail(res, 410, 'Expired', 'the continue token is too old for a consistent list: start the list again without it');
    }
    rv = snap.rv;
    page = snap.items.slice(start, start + limit || undefined);
    if (limit > 0 && start + limit < snap.items.length) next = encode(key, start + limit);
    if (next === '') state.snapshots.delete(key);
  } else {
    const all = items().sort((a, b) => String(metaOf(a).name).localeCompare(String(metaOf(b).name)));
    rv = state.version;
    page = limit > 0 ? all.slice(0, limit) : all;
    if (limit > 0 && all.length > limit) {
      const key = `${rv}-${Math.random().toString(36).slice(2)}`;
      state.snapshots.set(key, { items: all, rv, at: Date.now() });
      // A handful of lists in flight at once; the oldest snapshot goes first (its token then expires).
      if (state.snapshots.size > 16) state.snapshots.delete(state.snapshots.keys().next().value!);
      next = encode(key, limit);
    }
  }
  if (limit > 0) state.served.pages++;
  state.served[as]++;
  const metadata = { resourceVersion: String(rv), ...(next ? { continue: next } : {}) };
  if (as === 'table') return sendJson(req, res, state, { ...(table(page, String(rv)) as object), metadata });
  if (as === 'metadata')
    return sendJson(req, res, state, {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      items: page.map(partial),
    });
  sendJson(req, res, state, { kind: 'NodeList', apiVersion: 'v1', metadata, items: page });
}

const encode = (key: string, start: number) => Buffer.from(JSON.stringify({ key, start })).toString('base64url');

function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  state: ListState,
  items: () => NodeDoc[],
  query: URLSearchParams,
  fail: Fail,
): void {
  state.served.watches++;
  const as = wants(req);
  const shape = (node: NodeDoc) => (as === 'full' ? node : partial(node));
  const from = query.get('resourceVersion') ?? '';
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const seconds = Number(query.get('timeoutSeconds') ?? '1800');
  if (from !== '' && !/^\d+$/.test(from)) return fail(res, 400, 'BadRequest', `invalid resource version: ${from}`);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  // A stream ended by the server (timeout, endWatches) may still have a bookmark timer due before 'close'.
  const write = (type: string, object: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const rv = Number(from || '0');
  const oldest = state.history[0]?.rv ?? state.version + 1;
  if (rv !== 0 && rv < oldest - 1 && rv < state.version) {
    write('ERROR', {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `too old resource version: ${rv} (${oldest - 1})`,
      reason: 'Expired',
      code: 410,
    });
    res.end();
    return;
  }
  // From 0 (or none): the current state as ADDED events first, then the changes.
  if (rv === 0) for (const node of items()) write('ADDED', shape(node));
  else for (const event of state.history) if (event.rv > rv) write(event.type, shape(event.object));
  const watcher = (event: WatchEvent) => write(event.type, shape(event.object));
  state.watchers.add(watcher);
  const tick = bookmarks
    ? setInterval(
        () =>
          write('BOOKMARK', {
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: { resourceVersion: String(state.version) },
          }),
        state.bookmarkMs,
      )
    : undefined;
  const end = setTimeout(() => res.end(), seconds * 1000);
  state.streams.add(res);
  res.on('close', () => {
    state.streams.delete(res);
    state.watchers.delete(watcher);
    clearInterval(tick);
    clearTimeout(end);
  });
}

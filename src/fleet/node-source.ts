// The watch's view of the Nodes at fleet scale: list once (pages, metadata only), then apply the
// apiserver's watch events to an in-memory map keyed by node name, so each poll costs the changes, not the
// fleet. A stream the server ends cleanly is watched again from the last version seen (bookmarks keep
// it fresh); a 410 (the version was compacted away) or a broken stream relists, with backoff. While the
// source has lost the stream and not relisted yet it is blind: `nodes()` then throws, so no decision is
// made on a list that may be missing new failures. The judging code still receives a plain node list.
import type { ApiCredentials } from '../kube/credentials.ts';
import type { NodeEvent, NodeObject } from '../kube/nodes.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';

export interface NodeSource {
  /** The current nodes; throws while the source is blind. */
  nodes(): NodeObject[];
  /** Why the source is blind (its stream broke and no relist succeeded yet), or undefined. */
  blind(): string | undefined;
  /** Lists made so far (the first included) and watch streams opened. */
  stats(): { lists: number; watches: number; events: number };
  close(): void;
}

export interface SourceOptions {
  pageSize?: number;
  /** Server-side end of each watch request (then it is watched again from the last version). */
  watchSeconds?: number;
  /** First backoff after a broken stream; doubles up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Told about each relist and broken stream (one line for the release record). */
  say?: (line: string) => void;
}

/** Lists the Nodes (the caller retries this first read) and starts watching them. */
export async function openNodeSource(deps: Deps, creds: ApiCredentials, options: SourceOptions = {}): Promise<NodeSource> {
  const { listNodePages, watchNodes, WatchExpired } = await import('../kube/nodes.ts');
  const userAgent = `aks-node-controller/${deps.version}`;
  const { FLEET_KEYS } = await import('./read.ts');
  const keep = FLEET_KEYS;
  const list = () => listNodePages(creds, { userAgent, keep, ...(options.pageSize ? { pageSize: options.pageSize } : {}) });
  const first = await list();
  const map = new Map(first.nodes.map((n) => [n.name, n]));
  const counts = { lists: 1, watches: 0, events: 0 };
  const state: { version: string; blind?: string } = { version: first.resourceVersion };
  const stop = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stop.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  const apply = (event: NodeEvent) => {
    counts.events++;
    state.version = event.resourceVersion || state.version;
    if (event.type === 'BOOKMARK') return;
    if (event.type === 'DELETED') map.delete(event.node.name);
    else map.set(event.node.name, event.node);
  };
  const seconds = options.watchSeconds ?? 300;
  const loop = async () => {
    let backoff = options.backoffMs ?? 1000;
    let relist = false;
    while (!stop.signal.aborted) {
      try {
        if (relist) {
          const again = await list();
          counts.lists++;
          map.clear();
          for (const node of again.nodes) map.set(node.name, node);
          state.version = again.resourceVersion;
          if (state.blind !== undefined) options.say?.(`node watch: relisted ${map.size} nodes; watching again`);
          delete state.blind;
          relist = false;
        }
        counts.watches++;
        await watchNodes(creds, state.version, {
          userAgent,
          timeoutSeconds: seconds,
          idleMs: (seconds + 30) * 1000,
          onEvent: apply,
          signal: stop.signal,
          keep,
        });
        backoff = options.backoffMs ?? 1000;
      } catch (error) {
        if (stop.signal.aborted) return;
        // 410: our version is too old to resume from; anything else: the stream broke. Both relist.
        state.blind = error instanceof WatchExpired ? `the watch's version expired (${errorMessage(error)})` : errorMessage(error);
        options.say?.(`node watch: ${state.blind} -> relisting in ${backoff / 1000} s`);
        relist = true;
        await pause(backoff);
        backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 30_000);
      }
    }
  };
  void loop();
  return {
    nodes() {
      if (state.blind !== undefined) throw new AgentError('ANC_KUBE', `the node list is stale: ${state.blind}; relisting`);
      return [...map.values()];
    },
    blind: () => state.blind,
    stats: () => ({ ...counts }),
    close: () => stop.abort(),
  };
}

/** The first read, retried with backoff (a watch that never starts guards nothing); refusals are final. */
export async function firstRead<T>(
  read: () => Promise<T>,
  say: (line: string) => void,
  options: { attempts?: number; backoffMs?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  let backoff = options.backoffMs ?? 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const why = errorMessage(error);
      // Credentials, rights and configuration do not get better by waiting; a full page does not either.
      const final = /status (401|403) |over \d+ bytes|CA PEM|invalid apiserver address/.test(why) || !(error instanceof AgentError);
      if (final || attempt >= attempts || (error instanceof AgentError && error.code !== 'ANC_KUBE')) throw error;
      say(`first read failed (attempt ${attempt} of ${attempts}): ${why} -> retrying in ${backoff / 1000} s`);
      await new Promise((r) => setTimeout(r, backoff));
      backoff *= 2;
    }
  }
}

// The download heartbeat names what is happening: before the path is decided, the file being fetched
// (InRelease), never `starting` while it fetches; the fetcher records that file for the time it takes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { heartbeatPhase } from '../../../src/hotfix/download.ts';
import { createFetcher, type Trace } from '../../../src/hotfix/repository/fetcher.ts';
import type { Deps } from '../../../src/platform/deps.ts';

test('phase words: preparing, the repository fetch before the path is named, then the path', () => {
  const trace: Trace = { path: 'none', fetchedBytes: 0, stages: {} };
  assert.is(heartbeatPhase(trace), 'preparing');
  trace.fetching = 'InRelease';
  assert.is(heartbeatPhase(trace), 'repository: fetching InRelease');
  trace.path = 'delta';
  trace.fetching = 'aks-node-controller_202604.01.1_amd64.deb';
  assert.is(heartbeatPhase(trace), 'via delta: fetching aks-node-controller_202604.01.1_amd64.deb');
  trace.fetching = undefined;
  trace.path = 'apt-get';
  assert.is(heartbeatPhase(trace), 'via apt-get');
});

test('the fetcher names the file while it is in flight and clears it after', async () => {
  const trace: Trace = { path: 'none', fetchedBytes: 0, stages: {} };
  const during: (string | undefined)[] = [];
  const deps = {
    clock: { now: () => new Date(0) },
    http: {
      async get(url: URL) {
        during.push(trace.fetching);
        return { ok: true as const, body: Buffer.from('x'), url };
      },
    },
  } as unknown as Deps;
  const base = new URL('http://127.0.0.1:8080/ubuntu/');
  const fetcher = createFetcher(deps, base, undefined, 60_000, trace);
  await fetcher.get(new URL('http://127.0.0.1:8080/ubuntu/dists/jammy/InRelease'), 1024);
  assert.equal(during, ['InRelease']);
  assert.is(trace.fetching, undefined);
});

test.run();

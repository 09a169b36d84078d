// The fleet views at AKS scale (issue 38), end to end on the compiled binary against the apiserver
// stand-in holding realistic Nodes: the list in pages (limit/continue over one kept-alive connection),
// metadata only, gzip; an expired continue relists; the per-page bound names the page size; the watch
// lists once and then follows the watch stream (events, bookmarks, 410 -> relist, a broken stream ->
// relist), retries its first read, and at 5,000 Nodes halts a bad wave patched into the stand-in.
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from '../../fakes/apiserver.ts';
import {
  mixedState,
  nodeName,
  realisticNode,
  REPORT_ANNOTATION,
  syntheticReport,
  type SyntheticState,
} from '../../fakes/realistic-node.ts';
import { runAnc } from '../harness.ts';
import { runKubectl } from '../pointer/kubectl.ts';

const TOKEN = 'publisher.0123456789abcdef';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const work = mkdtempSync(join(tmpdir(), 'anc-scale-'));

async function fleetOf(
  count: number,
  kib: number,
  state: (i: number) => SyntheticState,
  options: FakeApiServerOptions = {},
): Promise<{ api: FakeApiServer; kubeconfig: string; fullBytes: number }> {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } }, ...options });
  let fullBytes = 0;
  for (let i = 0; i < count; i++) {
    const node = realisticNode(i, kib, state(i));
    fullBytes += JSON.stringify(node).length;
    api.nodes.put(node);
  }
  const kubeconfig = join(work, `publisher-${api.port}.kubeconfig`);
  writeFileSync(kubeconfig, kubeconfigFor(api, { token: TOKEN }));
  return { api, kubeconfig, fullBytes };
}

const nodeLists = (api: FakeApiServer) =>
  api.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/nodes' && !/watch=/.test(r.query));

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Patches a node's report as report-status would (a change the watch stream carries). */
function report(api: FakeApiServer, i: number, state: Exclude<SyntheticState, 'none'>): void {
  const node = api.nodes.nodes.get(nodeName(i))!;
  const meta = node.metadata as { annotations: Record<string, string> };
  api.nodes.put({
    ...node,
    metadata: { ...meta, annotations: { ...meta.annotations, [REPORT_ANNOTATION]: syntheticReport(state, `boot-${i}`) } },
  });
}

/** A halt the watch accepts in unsigned-allowed mode: the live pointer (serial 5) and its halt (serial 6). */
async function pointerAndHalt(api: FakeApiServer, kubeconfig: string): Promise<string> {
  const rendered = await runAnc([
    'hotfix',
    'pointer',
    'render',
    '--hotfix',
    '202604.01=202604.01.1',
    '--rollout',
    '202604.01=25:salt1',
    '--serial',
    '5',
    '--expires',
    '2099-01-01T00:00:00Z',
    '-o',
    'json',
  ]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  api.configMaps.set('kube-system/anc-hotfix-version', JSON.parse(rendered.stdout).data);
  const halt = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--withdraw', '--kubeconfig', kubeconfig]);
  assert.is(halt.exitCode, 0, halt.stderr);
  const file = join(work, `halt-${api.port}.yaml`);
  writeFileSync(file, halt.stdout);
  return file;
}

test('rollout status reads 1,200 Nodes in pages of 500, metadata only, gzip, over one connection', async () => {
  const { api, kubeconfig, fullBytes } = await fleetOf(1200, 19, mixedState);
  try {
    const before = api.wire();
    const run = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']);
    const after = api.wire();
    assert.is(run.exitCode, 2, run.stderr); // the mix holds failed nodes
    const view = JSON.parse(run.stdout);
    assert.is(view.totals.nodes, 1200);
    assert.is(view.totals.reported, 1200 - 36, 'the mix has 3% without a report');
    const lists = nodeLists(api);
    assert.equal(
      lists.map((r) => new URLSearchParams(r.query).get('limit')),
      ['500', '500', '500'],
    );
    assert.equal(
      lists.map((r) => new URLSearchParams(r.query).has('continue')),
      [false, true, true],
    );
    for (const r of lists) {
      assert.is(r.accept, METADATA_LIST);
      assert.match(r.acceptEncoding, /gzip/);
    }
    assert.is(api.nodes.list.served.gzip, 3, 'every page over 128 KiB came gzipped');
    assert.is(api.nodes.list.served.full, 0, 'never a full Node');
    // One connection for the three pages, one for the ConfigMap.
    assert.is(after.connections - before.connections, 2);
    assert.ok(after.sent - before.sent < fullBytes * 0.05, `${after.sent - before.sent} bytes on the wire, the full list is ${fullBytes}`);
    // A page size that does not divide the fleet, and a bad one.
    const small = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--page-size', '700', '-o', 'json']);
    assert.is(JSON.parse(small.stdout).totals.nodes, 1200);
    const bad = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--page-size', '0']);
    assert.is(bad.exitCode, 1);
    assert.match(bad.stderr, /--page-size "0": expected a whole number from 1 to 10000/);
  } finally {
    await api.close();
  }
});

test('an expired continue token (410) relists from the start; kubectl pages and asks for a Table too', async () => {
  let expired = false;
  const { api, kubeconfig } = await fleetOf(1200, 6, mixedState, {
    override: (req) => {
      // Between the first and second page, the snapshot is compacted away.
      if (!expired && /[?&]continue=/.test(req.url ?? '') && !/watch=/.test(req.url ?? '')) {
        expired = true;
        api.nodes.expireContinues();
      }
      return false;
    },
  });
  try {
    const run = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.is(run.exitCode, 2, run.stderr);
    assert.is(JSON.parse(run.stdout).totals.nodes, 1200, 'every node once, none twice');
    assert.is(api.nodes.list.served.expired, 1);
    assert.equal(
      nodeLists(api).map((r) => new URLSearchParams(r.query).has('continue')),
      [false, true, false, true, true],
      'page 1, the expired page 2, then a whole new list',
    );
    const get = await runKubectl(kubeconfig, work, ['get', 'nodes', '-L', 'kubernetes.azure.com/aks-node-controller-state']);
    assert.is(get.code, 0, get.stderr);
    assert.is(get.stdout.trim().split('\n').length, 1201);
    assert.match(get.stdout, /AKS-NODE-CONTROLLER-STATE/);
    const table = api.requests.filter((r) => r.path === '/api/v1/nodes' && /as=Table/.test(r.accept));
    assert.ok(table.length >= 3 && table.every((r) => new URLSearchParams(r.query).get('limit') === '500'), 'kubectl pages too');
    const failed = await runKubectl(kubeconfig, work, [
      'get',
      'nodes',
      '-l',
      'kubernetes.azure.com/aks-node-controller-state=failed',
      '-o',
      'name',
    ]);
    assert.is(failed.stdout.trim().split('\n').length, 24, 'the 2% that failed');
  } finally {
    await api.close();
  }
});

test('one page over 64 MiB says so and names --page-size (never the CA or the credentials)', async () => {
  const { api, kubeconfig } = await fleetOf(300, 4, () => 'baked');
  try {
    // 300 Nodes with 230 KiB of annotations each: 69 MB of metadata in one page of 300.
    for (const node of api.nodes.nodes.values())
      (node.metadata as { annotations: Record<string, string> }).annotations['example.com/blob'] = 'x'.repeat(230 * 1024);
    const big = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--page-size', '300']);
    assert.is(big.exitCode, 1);
    assert.match(big.stderr, /one page of the Node list \(limit=300\) is over 67108864 bytes \(64 MiB\): lower --page-size/);
    assert.not.match(big.stderr, /CA|credentials/);
    const paged = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--page-size', '100', '-o', 'json']);
    assert.is(paged.exitCode, 0, paged.stderr);
    assert.is(JSON.parse(paged.stdout).totals.nodes, 300);
  } finally {
    await api.close();
  }
});

test('the stand-in validates as the apiserver does: annotations 256 KiB in bytes, label syntax', async () => {
  const { api } = await fleetOf(1, 4, () => 'baked');
  const patch = (body: unknown) =>
    new Promise<{ code: number; text: string }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port: api.port,
          path: `/api/v1/nodes/${nodeName(0)}`,
          method: 'PATCH',
          ca: api.pki.ca.cert,
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            'Content-Type': 'application/merge-patch+json',
            'Content-Length': Buffer.byteLength(text),
          },
        },
        (res) => {
          let out = '';
          res.on('data', (c) => (out += c));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, text: out }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  try {
    // 100,000 three-byte characters: 300,000 bytes (a count in UTF-16 units would let it through).
    const wide = await patch({ metadata: { annotations: { 'example.com/wide': '€'.repeat(100_000) } } });
    assert.is(wide.code, 422, wide.text);
    assert.match(wide.text, /must have at most 262144 bytes/);
    const ok = await patch({ metadata: { annotations: { 'example.com/narrow': 'x'.repeat(200_000) } } });
    assert.is(ok.code, 200, ok.text);
    const long = await patch({ metadata: { labels: { 'example.com/v': 'a'.repeat(64) } } });
    assert.is(long.code, 422);
    assert.match(long.text, /no more than 63 characters/);
    const chars = await patch({ metadata: { labels: { 'example.com/v': 'a b' } } });
    assert.is(chars.code, 422);
    const key = await patch({ metadata: { labels: { [`example.com/${'k'.repeat(64)}`]: 'v' } } });
    assert.is(key.code, 422);
    assert.match(key.text, /name part must be 1 to 63 characters/);
    const fine = await patch({
      metadata: { labels: { 'kubernetes.azure.com/aks-node-controller-state': 'fellback', 'example.com/v': 'a'.repeat(63) } },
    });
    assert.is(fine.code, 200, fine.text);
  } finally {
    await api.close();
  }
});

test('the watch: lists once, then events; a bookmark keeps it resumable; 410 and a broken stream relist; the first read is retried', async () => {
  let refused = 0;
  const { api, kubeconfig } = await fleetOf(60, 4, (i) => (i < 10 ? 'notInWave' : 'baked'), {
    override: (req, res) => {
      // The first two reads of the Node list fail (an apiserver restarting): the watch must still start.
      if (refused < 2 && req.url?.startsWith('/api/v1/nodes?limit=')) {
        refused++;
        res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"kind":"Status","code":503}');
        return true;
      }
      return false;
    },
  });
  api.nodes.list.bookmarkMs = 150;
  try {
    const halt = await pointerAndHalt(api, kubeconfig);
    const watching = runAnc(['hotfix', 'rollout', 'watch', '--kubeconfig', kubeconfig, '--halt-with', halt, '--interval', '0.2'], {
      timeoutMs: 60_000,
    });
    const lists = () => api.nodes.list.served.metadata;
    await until('the watch stream', () => api.nodes.list.served.watches >= 1);
    assert.is(lists(), 1, 'one list (after two refused reads)');
    report(api, 0, 'hotfix'); // an event, not a relist
    // The history is compacted; a bookmark tells the client the newer version, so resuming works.
    api.nodes.compact();
    await new Promise((r) => setTimeout(r, 600));
    api.nodes.endWatches('end');
    await until('a new watch', () => api.nodes.list.served.watches >= 2);
    await new Promise((r) => setTimeout(r, 300));
    assert.is(lists(), 1, 'resumed from the bookmark: no relist');
    // Compacted with no bookmark in between (a long bookmark interval): the resumed watch gets 410 -> relist.
    api.nodes.list.bookmarkMs = 60_000;
    api.nodes.endWatches('end');
    await until('a new watch', () => api.nodes.list.served.watches >= 3);
    api.nodes.compact();
    api.nodes.endWatches('end');
    await until('the relist after 410', () => lists() >= 2);
    // A broken connection relists too (after its backoff).
    await until('a watch after the relist', () => api.nodes.list.served.watches >= 5);
    api.nodes.endWatches('break');
    await until('the relist after a broken stream', () => lists() >= 3, 30_000);
    await until('a watch after that relist', () => api.nodes.list.served.watches >= 6);
    report(api, 1, 'failed');
    const run = await watching;
    assert.is(run.exitCode, 3, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /first read failed \(attempt 1 of 5\): apiserver returned status 503 .* -> retrying in 1 s/);
    assert.match(run.stdout, /node watch: the watch's version expired \(the Node watch ended with status 410: too old resource version/);
    assert.match(run.stdout, /node watch: relisted 60 nodes; watching again/);
    assert.match(run.stdout, /tookHotfix=2 failed=1 timedOut=0[^(]*\(max 0\) state=\S+ -> HALT: applying/);
    assert.is(lists(), 3, 'no other relist: the steady state is the watch');
  } finally {
    await api.close();
  }
});

test('a watch started on 5,000 Nodes halts a bad wave patched into the stand-in', async () => {
  // A healthy fleet: nobody on the hotfix yet.
  const { api, kubeconfig, fullBytes } = await fleetOf(5000, 12, (i) => (i % 50 === 0 ? 'none' : 'notInWave'));
  try {
    const halt = await pointerAndHalt(api, kubeconfig);
    const watching = runAnc(
      ['hotfix', 'rollout', 'watch', '--kubeconfig', kubeconfig, '--halt-with', halt, '--interval', '0.5', '--max-failed', '2%'],
      { timeoutMs: 120_000 },
    );
    await until('the watch stream', () => api.nodes.list.served.watches >= 1, 60_000);
    const sentAfterList = api.wire().sent;
    // The first wave: 25% take the hotfix and are fine...
    for (let i = 1; i < 5000; i += 4) if (i % 50 !== 0) report(api, i, 'hotfix');
    await new Promise((r) => setTimeout(r, 1500));
    // ...then 2.5% of them fail (31 of 1,250): above 2%.
    let failed = 0;
    for (let i = 1; i < 5000 && failed < 31; i += 40) {
      report(api, i, 'failed');
      failed++;
    }
    const run = await watching;
    assert.is(run.exitCode, 3, `${run.stdout.slice(-2000)}${run.stderr}`);
    assert.match(run.stdout, /nodes=5000\/5000 reported=4900 tookHotfix=1250 failed=0 timedOut=0[^(]*\(max 2%\) state=\S+ -> continue/);
    assert.match(
      run.stdout,
      /nodes=5000\/5000 reported=4900 tookHotfix=1250 failed=31 timedOut=0[^(]*\(max 2%\) state=\S+ -> HALT: applying/,
    );
    assert.is(api.nodes.list.served.metadata, 10, 'one list of 10 pages, no relist');
    const serial = JSON.parse((api.configMaps.get('kube-system/anc-hotfix-version') as Record<string, string>)['hotfixes.json']!).serial;
    assert.is(serial, 6, 'the halt is live');
    // After the list only the changes moved: 1,281 events (each one Node's metadata) and the ConfigMap reads.
    const after = api.wire().sent - sentAfterList;
    assert.ok(after < fullBytes * 0.15, `${after} bytes after the list; the full NodeList is ${fullBytes}`);
  } finally {
    await api.close();
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();

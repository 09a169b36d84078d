// The lean hotfix path end to end (issue 22): repositories with thousands of other entries, published
// exactly as docs/hotfix.md tells a release engineer (the packages, then vhd/packaging/publish-hotfix-index.sh
// with the repository's own key). A delta hotfix then fetches at most 200 KB in all, and every path stays
// within a generous peak-memory bound, children counted (/usr/bin/time's %M: the largest process of the
// command). Not a timed test: memory is bounded with slack, speed is measured in bench/hotfix.mjs.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_BAKED as BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { createSigningKey } from '../../fakes/repo-index.ts';
import {
  buildAgent,
  buildBaseStubRpm,
  buildHotfixPackages,
  type HotfixPackages,
  publishHotfixIndex,
  type ServedRepo,
  startAptRepo,
  startRpmRepo,
} from '../../fakes/repos.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const RSS_BOUND_MIB = 96;
const DELTA_BYTES_BOUND = 200 * 1024;
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const ctx = {} as { work: string; baked: string; hot: HotfixPackages; stub: string; repos: ServedRepo[]; sandboxes: Sandbox[] };

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-lean-e2e-'));
  ctx.repos = [];
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  ctx.hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'), { deltaFrom: [ctx.baked] });
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
});

test.after(async () => {
  for (const repo of ctx.repos ?? []) await repo.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

async function repo(kind: 'apt' | 'rpm', withDelta: boolean, hotfixIndex: boolean): Promise<ServedRepo> {
  const dir = mkdtempSync(join(ctx.work, `${kind}-`));
  const packages =
    kind === 'apt' ? [ctx.hot.deb, ...(withDelta ? [ctx.hot.delta!.deb] : [])] : [ctx.hot.rpm, ...(withDelta ? [ctx.hot.delta!.rpm] : [])];
  const served = kind === 'apt' ? await startAptRepo(dir, packages) : await startRpmRepo(dir, packages);
  ctx.repos.push(served);
  if (hotfixIndex) publishHotfixIndex(served, kind);
  return served;
}

/** download-hotfix under /usr/bin/time; the event, the paths requested, the peak RSS in MiB. */
async function run(kind: 'apt' | 'rpm', served: ServedRepo, extra: string[] = []) {
  const sb = makeSandbox('anc-lean-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, { kind, repo: served, stub: ctx.stub, baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  const before = served.requests.length;
  const rssFile = join(sb.root, 'peak-rss');
  const result = await runAnc(['-f', '%M', '-o', rssFile, sb.path(BAKED), 'download-hotfix', ...extra], {
    root: sb.root,
    bin: '/usr/bin/time',
    timeoutMs: 180_000,
  });
  const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
  const message = events.at(-1)?.Message ?? '';
  return {
    sb,
    result,
    message,
    requested: served.requests.slice(before),
    fetchedBytes: Number(/ fetchedBytes=(\d+)/.exec(message)?.[1]),
    peakMiB: Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) / 1024,
  };
}

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: a delta hotfix through the hotfix index fetches <= 200 KB in all, within the memory bound`, async () => {
    const r = await run(kind, await repo(kind, true, true));
    assert.is(r.result.exitCode, 0, r.result.stderr);
    assert.match(r.message, /^outcome=staged current=202604\.01\.0 target=202604\.01\.1 path=delta /);
    assert.is(sha(r.sb.path(HOTFIX)), sha(ctx.hot.bin), 'the staged executable is the hotfix build');
    assert.ok(r.fetchedBytes <= DELTA_BYTES_BOUND, `fetched ${r.fetchedBytes} bytes (bound ${DELTA_BYTES_BOUND})`);
    assert.ok(
      r.requested.some((p) => p.includes('/aks-node-controller/')),
      `the hotfix index was read: ${r.requested.join(' ')}`,
    );
    assert.not.ok(
      r.requested.some((p) => /\/(binary-amd64\/Packages|primary\.xml)/.test(p) && !p.includes('/aks-node-controller/')),
      `the repository's full index was not fetched: ${r.requested.join(' ')}`,
    );
    assert.ok(r.peakMiB <= RSS_BOUND_MIB, `peak RSS ${r.peakMiB.toFixed(0)} MiB (bound ${RSS_BOUND_MIB})`);
  });

  test(`${kind}: the full package through the fast path stays within the memory bound`, async () => {
    const r = await run(kind, await repo(kind, false, true));
    assert.is(r.result.exitCode, 0, r.result.stderr);
    assert.match(r.message, 'outcome=staged');
    assert.match(r.message, 'path=repository');
    assert.is(sha(r.sb.path(HOTFIX)), sha(ctx.hot.bin));
    const packageSize = readFileSync(kind === 'apt' ? ctx.hot.deb : ctx.hot.rpm).length;
    assert.ok(r.fetchedBytes < packageSize + 64 * 1024, `fetched ${r.fetchedBytes} bytes for a ${packageSize}-byte package`);
    assert.ok(r.peakMiB <= RSS_BOUND_MIB, `peak RSS ${r.peakMiB.toFixed(0)} MiB (bound ${RSS_BOUND_MIB})`);
  });
}

test('apt: a repository published the old way (no hotfix index) still works through the full index', async () => {
  const r = await run('apt', await repo('apt', true, false));
  assert.is(r.result.exitCode, 0, r.result.stderr);
  assert.match(r.message, 'path=delta');
  assert.match(r.sb.read('/var/log/azure/aks-node-controller.log'), 'no usable hotfix index, reading the repository index');
  assert.ok(r.peakMiB <= RSS_BOUND_MIB, `peak RSS ${r.peakMiB.toFixed(0)} MiB`);
});

test('apt: a hotfix index signed by another key is an integrity failure (final), nothing staged', async () => {
  const served = await repo('apt', true, false);
  const other = createSigningKey(ctx.work, 'lean-other-key');
  try {
    publishHotfixIndex(served, 'apt', other);
  } finally {
    other.close();
  }
  const r = await run('apt', served);
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, '/aks-node-controller/InRelease');
  assert.not.ok(
    r.requested.some((p) => p.endsWith('.deb')),
    'no package fetched',
  );
});

for (const [kind, extra] of [
  ['apt', ['--method', 'package-manager']],
  ['rpm', ['--method', 'package-manager']],
] as const) {
  test(`${kind}: the package manager path stays within the memory bound (the agent copies the executable in the kernel)`, async () => {
    const r = await run(kind, await repo(kind, false, false), [...extra]);
    assert.is(r.result.exitCode, 0, r.result.stderr);
    assert.match(r.message, 'outcome=staged');
    assert.ok(r.peakMiB <= RSS_BOUND_MIB, `peak RSS ${r.peakMiB.toFixed(0)} MiB (bound ${RSS_BOUND_MIB})`);
  });
}

test.run();

// Delta hotfixes end to end: the baked agent (202604.01.0) finds aks-node-controller-delta 202604.01.1 in
// the signed loopback repository, rebuilds the hotfix from its own executable and stages it; every other
// answer (no delta for our sha256, no delta package) falls back to the full package, and every integrity
// failure (a delta or a reconstruction that does not match the manifest) is final with nothing staged.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'uvu';
import { repackDeb } from '../../fakes/delta-craft.ts';
import * as assert from 'uvu/assert';
import {
  buildAgent,
  buildBaseStubRpm,
  buildHotfixPackages,
  startAptRepo,
  startRpmRepo,
  type HotfixPackages,
  type ServedRepo,
} from '../../fakes/repos.ts';
import { NODE_BAKED as BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const DELTA_DIR = 'usr/lib/aks-node-controller/delta';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const ctx = {} as {
  work: string;
  baked: string;
  hot: HotfixPackages;
  repos: Record<'delta' | 'unknownBase' | 'corrupt' | 'wrongTarget' | 'noDelta' | 'rpmDelta' | 'rpmUnknownBase', ServedRepo>;
  stub: string;
  sandboxes: Sandbox[];
};

function onlyFile(tree: string, suffix: string): string {
  const name = readdirSync(join(tree, DELTA_DIR)).find((n) => n.endsWith(suffix))!;
  return join(tree, DELTA_DIR, name);
}

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-delta-e2e-'));
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  const other = buildAgent('202604.01.2', join(ctx.work, 'other'));
  ctx.hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'), { deltaFrom: [ctx.baked] });
  const target = ctx.hot.bin;
  const unknown = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg-unknown'), { bin: target, deltaFrom: [other] });
  const corrupt = repackDeb(ctx.hot.delta!.deb, join(ctx.work, 'corrupt'), (tree) => {
    const file = onlyFile(tree, '.vcdiff');
    const bytes = readFileSync(file);
    bytes[bytes.length - 20]! ^= 0xff;
    writeFileSync(file, bytes);
  });
  const wrongTarget = repackDeb(ctx.hot.delta!.deb, join(ctx.work, 'wrong-target'), (tree) => {
    const file = onlyFile(tree, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.target.sha256 = sha(other);
    writeFileSync(file, `${JSON.stringify(manifest)}\n`);
  });
  const repo = (name: string, debs: string[]) => startAptRepo(join(ctx.work, `apt-${name}`), debs);
  ctx.repos = {
    delta: await repo('delta', [ctx.hot.deb, ctx.hot.delta!.deb]),
    unknownBase: await repo('unknown', [ctx.hot.deb, unknown.delta!.deb]),
    corrupt: await repo('corrupt', [ctx.hot.deb, corrupt]),
    wrongTarget: await repo('wrong-target', [ctx.hot.deb, wrongTarget]),
    noDelta: await repo('none', [ctx.hot.deb]),
    rpmDelta: await startRpmRepo(join(ctx.work, 'rpm-delta'), [ctx.hot.rpm, ctx.hot.delta!.rpm]),
    rpmUnknownBase: await startRpmRepo(join(ctx.work, 'rpm-unknown'), [ctx.hot.rpm, unknown.delta!.rpm]),
  };
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
});

test.after(async () => {
  for (const repo of Object.values(ctx.repos ?? {})) await repo.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

async function runNode(repo: ServedRepo, kind: 'apt' | 'rpm' = 'apt') {
  const sb = makeSandbox('anc-delta-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, { kind, repo, stub: ctx.stub, baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  const before = repo.requests.length;
  const result = await runAnc(['download-hotfix'], { root: sb.root, bin: sb.path(BAKED), timeoutMs: 180_000 });
  const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
  assert.is(events.length, 1, 'one DownloadHotfix event');
  const requested = repo.requests.slice(before);
  const fetched = (name: string) => requested.some((p) => basename(p).startsWith(name));
  const [delta, full] =
    kind === 'apt' ? ['aks-node-controller-delta_', 'aks-node-controller_'] : ['aks-node-controller-delta-', 'aks-node-controller-2'];
  return { sb, result, message: events[0]!.Message!, fetchedDelta: fetched(delta), fetchedFull: fetched(full) };
}

function fetchedBytes(message: string): number {
  return Number(/ fetchedBytes=(\d+)/.exec(message)?.[1]);
}

function assertNothingStaged(sb: Sandbox): void {
  assert.not.ok(existsSync(sb.path(HOTFIX)), 'no hotfix staged');
  assert.is(sha(sb.path(BAKED)), sha(ctx.baked), 'baked binary untouched');
  const leftovers = readdirSync(sb.path('/opt/azure/containers')).filter((n) => n.startsWith('.'));
  assert.equal(leftovers, [], 'no partial or temporary file left');
}

test('delta against the baked executable: rebuilt, verified, staged; path=delta and the bytes fetched', async () => {
  const n = await runNode(ctx.repos.delta);
  assert.is(n.result.exitCode, 0, n.result.stderr);
  assert.match(n.message, /^outcome=staged current=202604\.01\.0 target=202604\.01\.1 path=delta fetchedBytes=\d+/);
  assert.ok(n.fetchedDelta, 'the delta package was fetched');
  assert.not.ok(n.fetchedFull, 'the full package was not fetched');
  assert.is(sha(n.sb.path(HOTFIX)), sha(ctx.hot.bin), 'the staged executable is the hotfix build, byte for byte');
  // The package the node took is kilobytes; the signed metadata (a realistic index) is the rest.
  const packageBytes = Number(/ packageBytes=(\d+)/.exec(n.message)?.[1]);
  assert.is(packageBytes, statSync(ctx.hot.delta!.deb).size);
  assert.ok(packageBytes < 200 * 1024, `delta package ${packageBytes} bytes`);
  assert.ok(
    fetchedBytes(n.message) > packageBytes && fetchedBytes(n.message) < statSync(ctx.hot.deb).size / 10,
    `fetched ${fetchedBytes(n.message)} bytes`,
  );
  const final = n.result.stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .at(-1);
  assert.is(final.path, 'delta');
  assert.is(final.fetchedBytes, fetchedBytes(n.message));
  assert.is(final.packageBytes, packageBytes);
  assert.not.ok(existsSync(n.sb.path('/usr/bin/aks-node-controller')), 'no package manager ran');
});

test('unknown base: the delta package has no entry for our sha256 -> the full package (path=repository)', async () => {
  const n = await runNode(ctx.repos.unknownBase);
  assert.is(n.result.exitCode, 0, n.result.stderr);
  assert.match(n.message, /^outcome=staged .* path=repository /);
  assert.ok(n.fetchedDelta && n.fetchedFull, 'delta package looked at, then the full package fetched');
  assert.match(
    n.result.stderr,
    /delta hotfix unavailable, fetching the full package.*has no delta for our executable \(sha256 [0-9a-f]{64}\)/,
  );
  assert.is(sha(n.sb.path(HOTFIX)), sha(ctx.hot.bin));
});

test('delta package missing from the index -> the full package (path=repository)', async () => {
  const n = await runNode(ctx.repos.noDelta);
  assert.is(n.result.exitCode, 0, n.result.stderr);
  assert.match(n.message, /^outcome=staged .* path=repository /);
  assert.match(
    n.result.stderr,
    /no delta package for this version, fetching the full package.*aks-node-controller-delta 202604\.01\.1 for amd64 is not in the index/,
  );
  assert.is(sha(n.sb.path(HOTFIX)), sha(ctx.hot.bin));
});

test('corrupted delta (it fails its manifest sha256): integrityFailed, final, nothing staged', async () => {
  const n = await runNode(ctx.repos.corrupt);
  assert.is(n.result.exitCode, 1);
  assert.match(
    n.message,
    /^outcome=integrityFailed .* path=delta .*error=.*\.vcdiff has sha256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}/,
  );
  assert.not.ok(n.fetchedFull, 'no fallback to the full package');
  assertNothingStaged(n.sb);
});

test('reconstruction whose sha256 does not match the manifest: integrityFailed, final, nothing staged', async () => {
  const n = await runNode(ctx.repos.wrongTarget);
  assert.is(n.result.exitCode, 1);
  assert.match(
    n.message,
    /^outcome=integrityFailed .* path=delta .*error=.*the reconstruction \(\d+ bytes, sha256 [0-9a-f]{64}\) does not match the manifest's target/,
  );
  assert.not.ok(n.fetchedFull, 'no fallback to the full package');
  assertNothingStaged(n.sb);
});

test('rpm: the delta package from the signed rpm repository (rpmkeys-checked), no dnf', async () => {
  const n = await runNode(ctx.repos.rpmDelta, 'rpm');
  assert.is(n.result.exitCode, 0, n.result.stderr);
  assert.match(n.message, /^outcome=staged current=202604\.01\.0 target=202604\.01\.1 path=delta fetchedBytes=\d+/);
  assert.ok(n.fetchedDelta && !n.fetchedFull, 'only the delta package fetched');
  assert.is(sha(n.sb.path(HOTFIX)), sha(ctx.hot.bin));
  assert.not.ok(existsSync(n.sb.path('/usr/bin/aks-node-controller')), 'no package manager ran');
});

test('rpm: no delta for our sha256 -> the full package from the same repository (path=repository)', async () => {
  const n = await runNode(ctx.repos.rpmUnknownBase, 'rpm');
  assert.is(n.result.exitCode, 0, n.result.stderr);
  assert.match(n.message, /^outcome=staged .* path=repository /);
  assert.ok(n.fetchedDelta && n.fetchedFull);
  assert.is(sha(n.sb.path(HOTFIX)), sha(ctx.hot.bin));
});

test.run();

// The attacks that ran past --timeout or filled the disk on the old fast path (issue 22), kept as end-to-end
// tests on the compiled agent against signed loopback repositories: an unsigned compressed OpenPGP
// message served as InRelease or repomd.xml.asc (refused before gpgv reads it), decompression bombs in a
// package and in an index (cut at the documented caps while streaming, nothing written whole), a decoder
// that never answers (bounded by what is left of the deadline, not its own 120 s), and hostile deltas
// (windows naming the whole base, a delta re-reading the base, run-length windows past the target, an
// oversized target). Each ends quickly with the stated outcome, nothing staged and no scratch left.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { craftDeltaDeb, craftVcdiff, type CraftedWindow } from '../../fakes/delta-craft.ts';
import { NODE_BAKED as BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { releaseText } from '../../fakes/repo-index.ts';
import {
  APT_COMPONENT,
  APT_SUITE,
  buildAgent,
  buildBaseStubRpm,
  buildHotfixPackages,
  type HotfixPackages,
  type ServedRepo,
  startAptRepo,
  startRpmRepo,
} from '../../fakes/repos.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const MiB = 1024 * 1024;
const digest = (file: string) => ({ sha256: createHash('sha256').update(readFileSync(file)).digest('hex'), size: statSync(file).size });

const ctx = {} as {
  work: string;
  baked: string;
  hot: HotfixPackages;
  stub: string;
  repos: ServedRepo[];
  sandboxes: Sandbox[];
  bomb: Buffer;
};

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-attacks-e2e-'));
  ctx.repos = [];
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  ctx.hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'), { deltaFrom: [ctx.baked] });
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
  // An unsigned OpenPGP message: one compressed literal packet of 64 MiB of zeros (about 70 KB).
  const home = mkdtempSync(join(tmpdir(), 'anc-gpg-bomb-'));
  ctx.bomb = execFileSync('sh', ['-c', 'head -c 67108864 /dev/zero | gpg --batch --store -z 9 --compress-algo zlib'], {
    env: { ...process.env, GNUPGHOME: home },
    maxBuffer: 64 * MiB,
  });
  rmSync(home, { recursive: true, force: true });
});

test.after(async () => {
  for (const repo of ctx.repos ?? []) await repo.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

async function aptRepo(debs: string[]): Promise<ServedRepo> {
  const repo = await startAptRepo(mkdtempSync(join(ctx.work, 'apt-')), debs, { filler: 200 });
  ctx.repos.push(repo);
  return repo;
}

async function run(kind: 'apt' | 'rpm', repo: ServedRepo, timeout = 20, path?: string) {
  const sb = makeSandbox('anc-attack-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, { kind, repo, stub: ctx.stub, baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  const env = path ? { PATH: `${path}:${process.env.PATH}` } : undefined;
  const result = await runAnc(['download-hotfix', `--timeout=${timeout}`], { root: sb.root, bin: sb.path(BAKED), timeoutMs: 120_000, env });
  const message =
    sb
      .events()
      .filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')
      .at(-1)?.Message ?? '';
  return { sb, result, message, log: sb.read('/var/log/azure/aks-node-controller.log') };
}

function assertNothingLeft(sb: Sandbox): void {
  assert.not.ok(existsSync(sb.path(HOTFIX)), 'nothing staged');
  assert.equal(
    readdirSync(sb.path('/opt/azure/containers')).filter((f) => f.startsWith('.')),
    [],
    'no scratch directory or partial file',
  );
}

test('an unsigned compressed OpenPGP message served as InRelease is refused before gpgv inflates it', async () => {
  const repo = await aptRepo([ctx.hot.deb]);
  repo.overrides.set(`/dists/${APT_SUITE}/InRelease`, (_req, res) => void res.end(ctx.bomb));
  const r = await run('apt', repo, 10);
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, 'not a clearsigned document');
  assert.ok(r.result.durationMs < 5000, `ended in ${r.result.durationMs} ms`);
  assertNothingLeft(r.sb);
});

test('rpm: a compressed OpenPGP message served as repomd.xml.asc never reaches gpgv (no CPU burn)', async () => {
  const repo = await startRpmRepo(mkdtempSync(join(ctx.work, 'rpm-')), [ctx.hot.rpm], { filler: 200 });
  ctx.repos.push(repo);
  repo.overrides.set('/repodata/repomd.xml.asc', (_req, res) => void res.end(ctx.bomb));
  const r = await run('rpm', repo, 10);
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, 'signature refused before verification');
  assert.ok(r.result.durationMs < 5000, `ended in ${r.result.durationMs} ms`);
  assertNothingLeft(r.sb);
});

test('a signed package whose data.tar.zst inflates past the cap is cut off while streaming (nothing written whole)', async () => {
  const dir = mkdtempSync(join(ctx.work, 'bomb-deb-'));
  execFileSync('ar', ['x', ctx.hot.deb], { cwd: dir });
  const control = readdirSync(dir).find((n) => n.startsWith('control.tar'))!;
  execFileSync('sh', ['-c', 'head -c 629145600 /dev/zero | zstd -q -3 > data.tar.zst'], { cwd: dir });
  mkdirSync(join(dir, 'out'));
  const deb = join(dir, 'out', 'aks-node-controller_202604.01.1_amd64.deb');
  execFileSync('ar', ['rc', deb, 'debian-binary', control, 'data.tar.zst'], { cwd: dir });
  const r = await run('apt', await aptRepo([deb]));
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, /data\.tar unpacks to more than the \d+-byte limit/);
  assert.ok(r.result.durationMs < 15_000, `ended in ${r.result.durationMs} ms`);
  assertNothingLeft(r.sb);
});

test('a signed Packages.xz that inflates past the index cap is cut off while streaming', async () => {
  const repo = await aptRepo([ctx.hot.deb]);
  const rel = `${APT_COMPONENT}/binary-amd64`;
  const releaseDir = join(repo.dir, 'dists', APT_SUITE);
  // 270 MiB of 100 KB records (a record-length bound must not be what stops it), xz-packed to about 40 KB.
  const plain = Buffer.alloc(270 * MiB, 0x41);
  for (let at = 100_000; at < plain.length; at += 100_000) plain.write('\n\n', at - 2);
  writeFileSync(join(releaseDir, rel, 'Packages.xz'), execFileSync('xz', ['-0', '-T1', '-c'], { input: plain, maxBuffer: 64 * MiB }));
  rmSync(join(releaseDir, rel, 'Packages'));
  rmSync(join(releaseDir, rel, 'Packages.gz'));
  writeFileSync(join(releaseDir, 'Release'), releaseText(releaseDir, [`${rel}/Packages.xz`], APT_SUITE, APT_COMPONENT, 'amd64'));
  repo.key!.clearsign(join(releaseDir, 'Release'), join(releaseDir, 'InRelease'));
  const r = await run('apt', repo);
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, /Packages\.xz unpacks to more than the \d+-byte limit/);
  assertNothingLeft(r.sb);
});

test("a decoder that never answers is bounded by what is left of the deadline, not by the tool's own 120 s", async () => {
  const bin = mkdtempSync(join(ctx.work, 'slow-tools-'));
  writeFileSync(join(bin, 'zstd'), '#!/bin/sh\nexec sleep 300\n');
  chmodSync(join(bin, 'zstd'), 0o755);
  const r = await run('apt', await aptRepo([ctx.hot.deb]), 6, bin);
  assert.ok(r.result.durationMs < 7500, `ended in ${r.result.durationMs} ms (--timeout 6)`);
  assert.match(r.log, /zstd gave no answer within \d+ ms/);
  assert.ok(
    readdirSync(r.sb.path('/opt/azure/containers')).every((f) => !f.startsWith('.aks-node-controller-fetch-')),
    'the scratch directory is gone',
  );
});

/** A delta package for our baked executable with `windows`, claiming `target`; the repository signs it. */
async function deltaRepo(windows: CraftedWindow[], target = digest(ctx.hot.bin)): Promise<ServedRepo> {
  const out = mkdtempSync(join(ctx.work, 'crafted-'));
  const deb = craftDeltaDeb(ctx.hot.delta!.deb, out, craftVcdiff(windows), digest(ctx.baked), target);
  return aptRepo([ctx.hot.deb, deb]);
}

test('delta: 1000 windows each naming the whole base stop at the target size, quickly (integrityFailed)', async () => {
  const base = digest(ctx.baked);
  const window = { segment: { position: 0, length: base.size }, ops: [{ copy: MiB, address: 0 }] };
  const r = await run('apt', await deltaRepo(Array.from({ length: 1000 }, () => window)));
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, 'path=delta');
  assert.match(r.message, /reconstruction exceeds \d+ bytes/);
  assert.ok(r.result.durationMs < 15_000, `ended in ${r.result.durationMs} ms`);
  assertNothingLeft(r.sb);
});

test('delta: copies that re-read the base over and over stop at 4 passes; the full package is taken instead', async () => {
  // 31 windows of 16 MiB, each copying the base's first 16 MiB, for a claimed 500 MiB target (under the
  // 512 MiB bound): 496 MiB read, more than 4 times the base.
  const window = { segment: { position: 0, length: 16 * MiB }, ops: [{ copy: 16 * MiB, address: 0 }] };
  const r = await run(
    'apt',
    await deltaRepo(
      Array.from({ length: 31 }, () => window),
      { sha256: 'b'.repeat(64), size: 500 * MiB },
    ),
  );
  assert.is(r.result.exitCode, 0, r.result.stderr);
  assert.match(r.message, 'outcome=staged');
  assert.match(r.message, 'path=repository');
  assert.match(r.log, 'reads the base more than 4 times over');
});

test('delta: a million one-byte copies from all over the base stop at the read bound; the full package is taken', async () => {
  const base = digest(ctx.baked);
  const ops = Array.from({ length: 1_100_000 }, (_, i) => ({ copy: 1, address: (i * 104_729) % (base.size - 1) }));
  const r = await run('apt', await deltaRepo([{ segment: { position: 0, length: base.size }, ops }]));
  assert.is(r.result.exitCode, 0, r.result.stderr);
  assert.match(r.message, 'outcome=staged');
  assert.match(r.message, 'path=repository');
  assert.match(r.log, 'reads the base in more than 1048576 pieces');
});

test('delta: run-length windows writing past the target stop at its size (integrityFailed)', async () => {
  const window = { ops: [{ run: 16 * MiB, byte: 0 }] };
  const r = await run('apt', await deltaRepo(Array.from({ length: 64 }, () => window)));
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, /reconstruction exceeds \d+ bytes/);
  assertNothingLeft(r.sb);
});

test('delta: a manifest naming a target above the 512 MiB bound is refused before anything is written', async () => {
  const window = { ops: [{ run: MiB, byte: 0 }] };
  const r = await run('apt', await deltaRepo([window], { sha256: 'a'.repeat(64), size: 600 * MiB }));
  assert.is(r.result.exitCode, 1, r.result.stderr);
  assert.match(r.message, 'outcome=integrityFailed');
  assert.match(r.message, /target\.size \d+ is above the \d+-byte limit/);
  assertNothingLeft(r.sb);
});

test.run();

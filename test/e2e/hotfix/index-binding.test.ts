// Issue 34 §4 and §3 on the compiled binary against loopback repositories (real apt, gpgv, createrepo_c):
// the hotfix index is bound to its repository (publish-hotfix-index.sh writes the repository path into
// the signed metadata; another repository's index signed by the same key is not used and never moves this
// repository's replay floor), and the fast path's decoders: one that leaves a process holding the FIFO's
// write end, and one killed from outside, are local faults that fall back to the package manager.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_BAKED as BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
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

const STATE = '/opt/azure/containers/aks-node-controller-repository-state.json';
const ctx = {} as { work: string; baked: string; hot: HotfixPackages; stub: string; repos: ServedRepo[]; sandboxes: Sandbox[] };

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-index-binding-'));
  ctx.repos = [];
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  ctx.hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'));
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
});

test.after(async () => {
  for (const repo of ctx.repos ?? []) await repo.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

async function repo(kind: 'apt' | 'rpm'): Promise<ServedRepo> {
  const dir = mkdtempSync(join(ctx.work, `${kind}-`));
  const served = kind === 'apt' ? await startAptRepo(dir, [ctx.hot.deb]) : await startRpmRepo(dir, [ctx.hot.rpm]);
  ctx.repos.push(served);
  return served;
}

function node(kind: 'apt' | 'rpm', served: ServedRepo): Sandbox {
  const sb = makeSandbox('anc-index-binding-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, { kind, repo: served, stub: ctx.stub, baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  return sb;
}

async function download(sb: Sandbox, served: ServedRepo, env: Record<string, string> = {}) {
  const before = served.requests.length;
  const result = await runAnc(['download-hotfix'], { root: sb.root, bin: sb.path(BAKED), env, timeoutMs: 180_000 });
  const message = sb
    .events()
    .filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')
    .at(-1)?.Message;
  return {
    result,
    message: message ?? '',
    requested: served.requests.slice(before),
    log: sb.read('/var/log/azure/aks-node-controller.log'),
  };
}

const floors = (sb: Sandbox) => Object.keys(JSON.parse(sb.read(STATE)));
const indexDir = (served: ServedRepo, kind: 'apt' | 'rpm') =>
  join(served.dir, kind === 'apt' ? 'dists/stable/aks-node-controller' : 'aks-node-controller');

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: another repository's hotfix index signed by the same key is not used and never moves this one's floor`, async () => {
    const served = await repo(kind);
    publishHotfixIndex(served, kind, served.key!, '/some/other/repository');
    const sb = node(kind, served);
    const r = await download(sb, served);
    assert.is(r.result.exitCode, 0, r.result.stderr);
    assert.match(r.message, /^outcome=staged .*path=repository/);
    assert.match(r.log, "is not this repository's hotfix index: it names ");
    assert.match(r.log, '/some/other/repository');
    assert.not.ok(
      floors(sb).some((k) => k.endsWith(' aks-node-controller')),
      `no floor recorded for the hotfix index: ${floors(sb).join(', ')}`,
    );
  });
}

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind} (R4-20): an index bound to another host at the same path, same key, is not used; one bound to this origin is`, async () => {
    const served = await repo(kind);
    const url = new URL(served.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    // Repository B: another host, the very same path, the same key.
    publishHotfixIndex(served, kind, served.key!, `${url.protocol}//b.example:${url.port}${path}`);
    const sb = node(kind, served);
    const other = await download(sb, served);
    assert.is(other.result.exitCode, 0, other.result.stderr);
    assert.match(other.log, "is not this repository's hotfix index: it names ");
    assert.match(other.log, 'b.example');
    // Bound to this origin and path: used.
    publishHotfixIndex(served, kind, served.key!, `${url.origin}${path}`);
    rmSync(sb.path('/opt/azure/containers/aks-node-controller-hotfix'));
    const ours = await download(sb, served);
    assert.is(ours.result.exitCode, 0, ours.result.stderr);
    assert.match(ours.message, /^outcome=staged /);
    const index = kind === 'apt' ? '/aks-node-controller/Packages' : '/aks-node-controller/repodata/';
    assert.ok(
      ours.requested.some((p) => p.includes(index) && !p.endsWith('repomd.xml') && !p.endsWith('.asc')),
      `the hotfix index was used: ${ours.requested.join(' ')}`,
    );
  });
}

test("apt (R3-2): another repository's NEWER index served once does not make this repository's own index a replay", async () => {
  const served = await repo('apt');
  publishHotfixIndex(served, 'apt');
  const ours = join(ctx.work, 'ours-index');
  mkdirSync(ours);
  for (const f of readdirSync(indexDir(served, 'apt'))) copyFileSync(join(indexDir(served, 'apt'), f), join(ours, f));
  await new Promise((r) => setTimeout(r, 1100)); // a strictly newer Date (seconds)
  publishHotfixIndex(served, 'apt', served.key!, '/some/other/repository');
  const sb = node('apt', served);
  const first = await download(sb, served);
  assert.is(first.result.exitCode, 0, first.result.stderr);
  assert.match(first.log, "is not this repository's hotfix index");
  // The attacker is gone: our own (older) index is served again, and used.
  for (const f of readdirSync(ours)) copyFileSync(join(ours, f), join(indexDir(served, 'apt'), f));
  rmSync(sb.path('/opt/azure/containers/aks-node-controller-hotfix'));
  const second = await download(sb, served);
  assert.is(second.result.exitCode, 0, second.result.stderr);
  assert.match(second.message, /^outcome=staged .*path=repository/);
  assert.ok(
    second.requested.some((p) => p.includes('/aks-node-controller/Packages')),
    `the hotfix index was used: ${second.requested.join(' ')}`,
  );
  assert.not.ok(second.log.includes('older than'), 'not refused as a replay');
});

/** A decoder on PATH before the real one: `body` runs, then the real tool. */
function decoderStandIn(sb: Sandbox, tool: string, body: string): string {
  const dir = sb.path('/stand-in-bin');
  mkdirSync(dir, { recursive: true });
  const real = ['/usr/bin', '/bin']
    .map((d) => join(d, tool))
    .find((p) => {
      try {
        readFileSync(p);
        return true;
      } catch {
        return false;
      }
    })!;
  writeFileSync(join(dir, tool), `#!/bin/bash\n${body}\nexec ${real} "$@"\n`, { mode: 0o755 });
  return `${dir}:${process.env.PATH}`;
}

test('R3-3: a decoder that leaves a process holding the FIFO: the run ends, emits its event and falls back (never hangs)', async () => {
  const served = await repo('apt');
  publishHotfixIndex(served, 'apt');
  const sb = node('apt', served);
  const pids = sb.path('/held-pids');
  const PATH = decoderStandIn(sb, 'zstd', `setsid sleep 600 </dev/null 2>/dev/null & echo $! >> ${JSON.stringify(pids)}`);
  try {
    const r = await download(sb, served, { PATH });
    assert.is(r.result.exitCode, 0, r.result.stderr);
    assert.match(r.log, /the output stayed open 300 ms after .* exited \(a process it left holds it\)/);
    assert.match(r.log, 'repository fast path unavailable, falling back to the package manager');
    assert.match(r.message, /^outcome=staged .*path=apt-get /, r.message);
  } finally {
    for (const pid of readFileSync(pids, 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
  }
});

test('R3-12: a decoder killed from outside is a local fault, not integrityFailed: the run falls back', async () => {
  const served = await repo('apt');
  publishHotfixIndex(served, 'apt');
  const sb = node('apt', served);
  const r = await download(sb, served, { PATH: decoderStandIn(sb, 'zstd', 'kill -9 $$') });
  assert.is(r.result.exitCode, 0, r.result.stderr);
  assert.match(r.log, /zstd was killed by SIGKILL \(a local fault, not the data\)/);
  assert.not.match(r.message, 'integrityFailed');
  assert.match(r.message, /^outcome=staged .*path=apt-get /, r.message);
});

test.run();

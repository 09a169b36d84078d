// The repository fast path end to end: the compiled baked agent (202604.01.0) against real signed
// repositories on loopback (standard apt layout with thousands of index entries, createrepo_c + rpmsign),
// real gpgv and rpmkeys. A good repository stages the hotfix without apt-get, dpkg or dnf; every attack
// ends with nothing staged, no partial file, the stated outcome and exit code.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSigningKey, type SigningKey } from '../../fakes/repo-index.ts';
import { buildAgent, buildBaseStubRpm, buildHotfixPackages, startAptRepo, startRpmRepo, type ServedRepo } from '../../fakes/repos.ts';
import { NODE_BAKED as BAKED, NODE_POINTER as POINTER, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { makeSandbox, runAnc, type RunOutcome, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const DEB = 'pool/main/a/aks-node-controller/aks-node-controller_202604.01.1_amd64.deb';
const RPM = 'Packages/aks-node-controller-202604.01.1-1.x86_64.rpm';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const ctx = {} as {
  work: string;
  baked: string;
  debs: { good: string; broken: string };
  rpms: { good: string; broken: string };
  stub: string;
  otherKey: SigningKey;
  repos: ServedRepo[];
  sandboxes: Sandbox[];
};

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-fastpath-e2e-'));
  ctx.repos = [];
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  const hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'));
  const broken = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg-broken'), { bin: ctx.baked });
  ctx.debs = { good: hot.deb, broken: broken.deb };
  ctx.rpms = { good: hot.rpm, broken: broken.rpm };
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
  ctx.otherKey = createSigningKey(ctx.work, 'other-key');
});

test.after(async () => {
  for (const repo of ctx.repos ?? []) await repo.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  ctx.otherKey?.close();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

async function aptRepo(deb = ctx.debs.good, layout: 'standard' | 'flat' = 'standard'): Promise<ServedRepo> {
  const repo = await startAptRepo(mkdtempSync(join(ctx.work, 'apt-')), [deb], { layout });
  ctx.repos.push(repo);
  return repo;
}

async function rpmRepo(rpm = ctx.rpms.good): Promise<ServedRepo> {
  const repo = await startRpmRepo(mkdtempSync(join(ctx.work, 'rpm-')), [rpm]);
  ctx.repos.push(repo);
  return repo;
}

interface Node {
  sb: Sandbox;
  run(args?: string[]): Promise<RunOutcome>;
}

function node(kind: 'apt' | 'rpm', repo: ServedRepo, options: { source?: 'list' | 'sources' } = {}): Node {
  const sb = makeSandbox('anc-fastpath-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, {
    kind,
    repo,
    stub: ctx.stub,
    baked: ctx.baked,
    pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}',
    source: options.source,
  });
  return { sb, run: (args = []) => runAnc(['download-hotfix', ...args], { root: sb.root, bin: sb.path(BAKED), timeoutMs: 180_000 }) };
}

function event(sb: Sandbox): string {
  const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
  return events[events.length - 1]!.Message!;
}

function finalLog(sb: Sandbox): Record<string, unknown> {
  const lines = sb.read('/var/log/azure/aks-node-controller.log').trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

/** Nothing staged, no temp/scratch file, the baked binary untouched, no package manager ran. */
function assertNothingStaged(n: Node): void {
  assert.is(existsSync(n.sb.path(HOTFIX)), false, 'no hotfix binary staged');
  assert.equal(
    readdirSync(n.sb.path('/opt/azure/containers')).filter((f) => f.startsWith('.')),
    [],
    'no partial or scratch file',
  );
  assert.is(sha(n.sb.path(BAKED)), sha(ctx.baked), 'baked binary untouched');
}

function assertNoPackageManager(n: Node, kind: 'apt' | 'rpm'): void {
  if (kind === 'apt') {
    assert.not.match(n.sb.read('/var/lib/dpkg/status'), 'aks-node-controller', 'dpkg database unchanged');
    assert.equal(
      readdirSync(n.sb.path('/var/lib/apt/lists')).filter((f) => f !== 'partial' && f !== 'lock'),
      [],
      'apt-get update never ran',
    );
    assert.is(existsSync(n.sb.path('/var/log/dpkg.log')), false, 'no dpkg command ran');
  } else {
    assert.is(existsSync(n.sb.path('/var/cache/dnf')), false, 'dnf never ran');
  }
}

async function expectIntegrityFailure(n: Node, kind: 'apt' | 'rpm', detail: string | RegExp): Promise<void> {
  const r = await n.run();
  assert.is(r.exitCode, 1, r.stderr);
  assertNothingStaged(n);
  assertNoPackageManager(n, kind);
  const message = event(n.sb);
  assert.match(message, 'outcome=integrityFailed');
  assert.match(message, 'path=repository');
  assert.match(message, detail);
  const log = finalLog(n.sb);
  assert.is(log.outcome, 'integrityFailed');
  assert.is(log.path, 'repository');
}

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: fast path stages the verified hotfix without the package manager`, async () => {
    const repo = kind === 'apt' ? await aptRepo() : await rpmRepo();
    const n = node(kind, repo);
    const r = await n.run();
    assert.is(r.exitCode, 0, r.stderr);
    assert.is(sha(n.sb.path(HOTFIX)), sha(join(ctx.work, 'pkg', 'bin-202604.01.1', 'aks-node-controller')));
    assertNoPackageManager(n, kind);
    const message = event(n.sb);
    assert.match(message, /outcome=staged current=202604\.01\.0 target=202604\.01\.1 path=repository fetchedBytes=\d{7,}/);
    // The rpm path checks the package's signature alongside the extraction (its own token).
    const signature = kind === 'rpm' ? 'signatureMs=\\d+ ' : '';
    assert.match(message, new RegExp(`releaseMs=\\d+ indexMs=\\d+ packageMs=\\d+ ${signature}extractMs=\\d+ verifyMs=\\d+`));
    assert.is(Number.isInteger(Number(finalLog(n.sb).peakRssKiB)), true, 'the agent logs its own peak memory');
    const log = finalLog(n.sb);
    assert.is(log.path, 'repository');
    assert.ok(Number(log.fetchedBytes) >= repo.bytesServed.count * 0.99, 'fetchedBytes counts what the server sent');
    assert.ok(repo.requests.some((p) => p.endsWith(kind === 'apt' ? DEB : RPM)));
  });
}

test('apt: deb822 .sources and a flat repository work too', async () => {
  const n = node('apt', await aptRepo(), { source: 'sources' });
  assert.is((await n.run()).exitCode, 0);
  assert.match(event(n.sb), 'path=repository');
  const flat = node('apt', await aptRepo(ctx.debs.good, 'flat'));
  assert.is((await flat.run()).exitCode, 0);
  assert.match(event(flat.sb), 'path=repository');
});

test('apt: tampered Packages index -> integrityFailed', async () => {
  const repo = await aptRepo();
  for (const f of ['Packages', 'Packages.gz', 'Packages.xz']) appendFileSync(join(repo.dir, 'dists/stable/main/binary-amd64', f), '\n');
  await expectIntegrityFailure(node('apt', repo), 'apt', /Packages\.gz: larger than the signed size \d+/);
});

test('rpm: tampered primary index -> integrityFailed', async () => {
  const repo = await rpmRepo();
  const primary = readdirSync(join(repo.dir, 'repodata')).find((f) => f.endsWith('primary.xml.gz'))!;
  const file = join(repo.dir, 'repodata', primary);
  const data = readFileSync(file);
  data[data.length - 9]! ^= 0xff;
  writeFileSync(file, data);
  await expectIntegrityFailure(node('rpm', repo), 'rpm', /primary\.xml\.gz: SHA-256 \w+ does not match/);
});

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: tampered package -> integrityFailed`, async () => {
    const repo = kind === 'apt' ? await aptRepo() : await rpmRepo();
    const file = join(repo.dir, kind === 'apt' ? DEB : RPM);
    const data = readFileSync(file);
    data[Math.floor(data.length / 2)]! ^= 0xff;
    writeFileSync(file, data);
    await expectIntegrityFailure(node(kind, repo), kind, /SHA-256 \w+ does not match the signed/);
  });

  test(`${kind}: metadata signed by another key -> integrityFailed`, async () => {
    const repo = kind === 'apt' ? await aptRepo() : await rpmRepo();
    repo.publish!({ signWith: ctx.otherKey });
    await expectIntegrityFailure(node(kind, repo), kind, /signature not verified by .*(NO_PUBKEY|ERRSIG)/);
  });

  test(`${kind}: package whose binary prints another version -> integrityFailed`, async () => {
    const repo = kind === 'apt' ? await aptRepo(ctx.debs.broken) : await rpmRepo(ctx.rpms.broken);
    await expectIntegrityFailure(node(kind, repo), kind, 'reports version "202604.01.0", expected "202604.01.1"');
  });
}

test('apt: expired Valid-Until -> integrityFailed', async () => {
  const repo = await aptRepo();
  repo.publish!({ date: new Date(Date.now() - 3 * 86400_000), validUntil: new Date(Date.now() - 86400_000) });
  await expectIntegrityFailure(node('apt', repo), 'apt', /InRelease expired: Valid-Until/);
});

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: an older index replayed after a newer one was verified -> integrityFailed`, async () => {
    const repo = kind === 'apt' ? await aptRepo() : await rpmRepo();
    const n = node(kind, repo);
    assert.is((await n.run()).exitCode, 0);
    rmSync(n.sb.path(HOTFIX));
    repo.publish!({ date: new Date(Date.now() - 2 * 86400_000), validUntil: new Date(Date.now() + 5 * 86400_000) });
    await expectIntegrityFailure(n, kind, /is older than the .* index already verified on this node \(replayed metadata\)/);
  });
}

test('apt: a redirect leaving the origin is refused -> integrityFailed', async () => {
  const repo = await aptRepo();
  const elsewhere = createServer((_req, res) => res.writeHead(200).end('elsewhere'));
  await new Promise<void>((ok) => elsewhere.listen(0, '127.0.0.1', ok));
  const port = (elsewhere.address() as AddressInfo).port;
  repo.overrides.set(`/${DEB}`, (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${port}/${DEB}` }).end());
  try {
    await expectIntegrityFailure(node('apt', repo), 'apt', /redirect to http:\/\/127\.0\.0\.1:\d+\/pool\/.* refused/);
  } finally {
    elsewhere.close();
  }
});

test('apt: oversized responses are cut off -> integrityFailed', async () => {
  const repo = await aptRepo();
  repo.overrides.set('/dists/stable/InRelease', (_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    const send = (left: number): void => void (left > 0 && res.write(chunk, () => send(left - 1)));
    send(64);
  });
  await expectIntegrityFailure(node('apt', repo), 'apt', /exceeds the \d+-byte limit/);
  repo.overrides.clear();
  const padded = Buffer.concat([readFileSync(join(repo.dir, DEB)), Buffer.alloc(4096)]);
  repo.overrides.set(`/${DEB}`, (_req, res) => res.writeHead(200, { 'content-length': padded.length }).end(padded));
  await expectIntegrityFailure(node('apt', repo), 'apt', /\.deb: larger than the signed size \d+/);
});

test('apt: a server that hangs -> fast path gives up within its budget, apt-get fallback, bounded by --timeout', async () => {
  const repo = await aptRepo();
  repo.overrides.set('/dists/stable/InRelease', () => undefined);
  const n = node('apt', repo);
  const r = await n.run(['--timeout', '12']);
  assert.ok(r.exitCode !== 0, 'the fallback fails too');
  assert.ok(r.durationMs < 40_000, `bounded by the deadline (${r.durationMs} ms)`);
  assertNothingStaged(n);
  const message = event(n.sb);
  assert.match(message, 'outcome=installFailed');
  assert.match(message, 'path=apt-get');
  assert.match(
    n.sb.read('/var/log/azure/aks-node-controller.log'),
    'repository fast path unavailable, falling back to the package manager',
  );
});

test('apt: package not in the index -> falls back to apt-get (which finds nothing either)', async () => {
  const repo = await aptRepo();
  const n = node('apt', repo);
  n.sb.write(POINTER, '{"hotfixes":{"202604.01":"202604.01.7"}}');
  const r = await n.run(['--timeout', '60']);
  assert.ok(r.exitCode !== 0);
  assertNothingStaged(n);
  assert.match(event(n.sb), /outcome=installFailed .*path=apt-get/);
  assert.match(n.sb.read('/var/log/azure/aks-node-controller.log'), 'aks-node-controller 202604.01.7 for amd64 is not in the index');
});

test.run();

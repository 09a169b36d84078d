// download-hotfix end to end with the REAL package managers: the baked agent (202604.01.0) installs the
// hotfix package (202604.01.1) from a loopback apt repo (apt-get/dpkg) or rpm repo (dnf) into a sandbox
// root, verifies it and stages it. Every "no" case must leave the baked binary in charge.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAgent, buildBaseStubRpm, buildHotfixPackages, startAptRepo, startRpmRepo, type ServedRepo } from '../../fakes/repos.ts';
import { NODE_BAKED as BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { makeSandbox, runAnc, type RunOutcome, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const _POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function hostFingerprint(): string {
  const parts: string[] = [];
  // The host's package database and package-manager logs (dpkg logs even `--configure -a` with nothing to do).
  for (const f of ['/var/lib/dpkg/status', '/var/log/dpkg.log', '/var/log/apt/history.log', '/var/log/dnf.log']) {
    parts.push(existsSync(f) ? sha(f) : 'absent');
  }
  for (const d of ['/var/lib/rpm', '/var/cache/dnf', '/etc/yum.repos.d', '/usr/bin']) {
    parts.push(
      existsSync(d)
        ? readdirSync(d)
            .filter((n) => d !== '/usr/bin' || n.startsWith('aks-'))
            .sort()
            .join(',')
        : 'absent',
    );
  }
  return parts.join('|');
}

const ctx = {} as {
  work: string;
  baked: string;
  bakedPatch2: string;
  apt: ServedRepo;
  rpm: ServedRepo;
  brokenApt: ServedRepo;
  brokenRpm: ServedRepo;
  stub: string;
  host: string;
  sandboxes: Sandbox[];
};

test.before(async () => {
  ctx.host = hostFingerprint();
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-hotfix-e2e-'));
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  ctx.bakedPatch2 = buildAgent('202604.01.2', join(ctx.work, 'baked-2'));
  const hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'));
  // Broken: package metadata says 202604.01.1, the binary inside prints 202604.01.0.
  const broken = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg-broken'), { bin: ctx.baked });
  ctx.apt = await startAptRepo(join(ctx.work, 'apt'), [hot.deb]);
  ctx.rpm = await startRpmRepo(join(ctx.work, 'rpm'), [hot.rpm]);
  ctx.brokenApt = await startAptRepo(join(ctx.work, 'apt-broken'), [broken.deb]);
  ctx.brokenRpm = await startRpmRepo(join(ctx.work, 'rpm-broken'), [broken.rpm]);
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
});

test.after(async () => {
  for (const repo of [ctx.apt, ctx.rpm, ctx.brokenApt, ctx.brokenRpm]) await repo?.close();
  for (const s of ctx.sandboxes ?? []) s.cleanup();
  if (ctx.work) rmSync(ctx.work, { recursive: true, force: true });
});

interface Node {
  sb: Sandbox;
  run(args?: string[]): Promise<RunOutcome>;
}

function node(
  kind: 'apt' | 'rpm',
  pointer: string | undefined,
  options: { repo?: ServedRepo; baked?: string; source?: 'list' | 'sources' | 'none' } = {},
): Node {
  const sb = makeSandbox('anc-hotfix-node-');
  ctx.sandboxes.push(sb);
  const repo = options.repo ?? (kind === 'apt' ? ctx.apt : ctx.rpm);
  plantHotfixNode(sb, { kind, repo, stub: ctx.stub, baked: options.baked ?? ctx.baked, pointer, source: options.source });
  return {
    sb,
    run: (args = []) => runAnc(['download-hotfix', ...args], { root: sb.root, bin: sb.path(BAKED), timeoutMs: 180_000 }),
  };
}

function downloadEvent(sb: Sandbox): string {
  const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
  assert.is(events.length, 1, 'one DownloadHotfix event');
  return events[0]!.Message!;
}

function assertBakedInCharge(n: Node, bakedSha: string): void {
  assert.is(existsSync(n.sb.path(HOTFIX)), false, 'no hotfix binary staged');
  assert.is(sha(n.sb.path(BAKED)), bakedSha, 'baked binary untouched');
  assert.equal(
    readdirSync(n.sb.path('/opt/azure/containers')).filter((f) => f.startsWith('.aks-node-controller-update-')),
    [],
  );
}

function hotfixVersion(n: Node): string {
  return execFileSync(n.sb.path(HOTFIX), ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: n.sb.root } }).toString();
}

// The package-manager path (the fallback of the repository fast path, test/e2e/hotfix/repository.test.ts).
const PM = ['--method', 'package-manager'];

test('apt: map pointer -> real apt-get/dpkg install into the sandbox, verified, staged', async () => {
  const n = node('apt', '{"hotfixes":{"202604.01":"202604.01.1","202605.30":"202605.30.2"}}');
  const before = sha(n.sb.path(BAKED));
  const r = await n.run(PM);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(hotfixVersion(n), '202604.01.1\n');
  assert.is(sha(n.sb.path(BAKED)), before);
  assert.match(readFileSync(n.sb.path('/var/lib/dpkg/status'), 'utf8'), /Package: aks-node-controller\nStatus: install ok installed/);
  assert.ok(ctx.apt.requests.some((p) => p.endsWith('aks-node-controller_202604.01.1_amd64.deb')));
  assert.match(downloadEvent(n.sb), 'outcome=staged current=202604.01.0 target=202604.01.1 path=apt-get');
});

test('apt: deb822 microsoft-prod.sources works when the .list is absent', async () => {
  const n = node('apt', '{"version":"202604.01.1"}', { source: 'sources' });
  const r = await n.run(PM);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(hotfixVersion(n), '202604.01.1\n');
});

test('dnf: legacy pointer -> real dnf --installroot install, verified, staged', async () => {
  const n = node('rpm', '{"version":"202604.01.1"}');
  const r = await n.run(PM);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(hotfixVersion(n), '202604.01.1\n');
  const q = execFileSync('rpm', ['--root', n.sb.root, '-q', 'aks-node-controller']).toString().trim();
  assert.is(q, 'aks-node-controller-202604.01.1-1.x86_64');
  assert.ok(ctx.rpm.requests.some((p) => p.endsWith('aks-node-controller-202604.01.1-1.x86_64.rpm')));
  assert.match(downloadEvent(n.sb), 'outcome=staged current=202604.01.0 target=202604.01.1 path=dnf');
});

test('hotfix explain: the decision download-hotfix acts on, from the stamped version and the pointer', async () => {
  const n = node('apt', '{"hotfixes":{"202604.01":"202604.01.1"}}');
  const own = await runAnc(['hotfix', 'explain', '-o', 'json'], { root: n.sb.root, bin: n.sb.path(BAKED) });
  assert.is(own.exitCode, 0, own.stderr);
  const { current, base, resolved, upgrade, reason } = JSON.parse(own.stdout);
  assert.equal(
    { current, base, resolved, upgrade, reason },
    { current: '202604.01.0', base: '202604.01', resolved: '202604.01.1', upgrade: true, reason: 'upgrade' },
  );
  const other = await runAnc(['hotfix', 'explain', '-o', 'json', '--current-version', '202605.30.0'], {
    root: n.sb.root,
    bin: n.sb.path(BAKED),
  });
  const o = JSON.parse(other.stdout);
  assert.equal([o.current, o.base, o.resolved, o.upgrade, o.reason], ['202605.30.0', '202605.30', '', false, 'not-listed']);
  assert.equal(n.sb.events(), [], 'explain emits no events');
});

const NO_CASES: Array<[string, string, string, string?]> = [
  ['other base (map)', '{"hotfixes":{"202605.01":"202605.01.1"}}', 'outcome=noHotfix'],
  ['other base (legacy)', '{"version":"202605.01.1"}', 'outcome=notTargeted'],
  ['same patch', '{"hotfixes":{"202604.01":"202604.01.0"}}', 'outcome=notTargeted'],
  ['lower patch', '{"hotfixes":{"202604.01":"202604.01.1"}}', 'outcome=notTargeted', 'patch2'],
  ['malformed version', '{"version":"202604.01.one"}', 'outcome=invalidVersion'],
  ['injection: extra flag', '{"version":"202604.01.1 --reinstall"}', 'outcome=invalidVersion'],
  ['injection: shell', '{"hotfixes":{"202604.01":"$(reboot)"}}', 'outcome=invalidVersion'],
  ['prerelease shape', '{"version":"202604.01.1-rc1"}', 'outcome=invalidVersion'],
  ['unparseable pointer', '{"version":', 'outcome=pointerUnreadable'],
];
for (const [name, pointer, outcome, which] of NO_CASES) {
  test(`no: ${name} -> exit 0, nothing installed, baked binary in charge`, async () => {
    const n = node('apt', pointer, which === 'patch2' ? { baked: ctx.bakedPatch2 } : {});
    const requestsBefore = ctx.apt.requests.length;
    const before = sha(n.sb.path(BAKED));
    const r = await n.run();
    assert.is(r.exitCode, 0, r.stderr);
    assertBakedInCharge(n, before);
    assert.is(ctx.apt.requests.length, requestsBefore, 'repository not contacted');
    assert.not.match(readFileSync(n.sb.path('/var/lib/dpkg/status'), 'utf8'), 'aks-node-controller');
    assert.match(downloadEvent(n.sb), outcome);
  });
}

test('no: missing repository source file -> exit 1, baked binary in charge', async () => {
  const n = node('apt', '{"version":"202604.01.1"}', { source: 'none' });
  const before = sha(n.sb.path(BAKED));
  const r = await n.run();
  assert.is(r.exitCode, 1);
  assertBakedInCharge(n, before);
  assert.match(downloadEvent(n.sb), 'outcome=installFailed');
  assert.match(r.stderr, 'neither ');
});

test('no: unreachable repository -> retries inside the --timeout deadline, apt exit code, baked in charge', async () => {
  const dead = { ...ctx.apt, url: 'http://127.0.0.1:9' } as ServedRepo;
  const n = node('apt', '{"version":"202604.01.1"}', { repo: dead });
  const before = sha(n.sb.path(BAKED));
  const r = await n.run(['--timeout', '8']);
  assert.ok(r.exitCode === 100 || r.exitCode === 255, `apt's exit code propagated, got ${r.exitCode}`);
  assert.ok(r.durationMs < 20_000, `bounded by the deadline (${r.durationMs} ms)`);
  assert.match(r.stderr, 'command failed, retrying');
  assertBakedInCharge(n, before);
  assert.match(downloadEvent(n.sb), 'outcome=installFailed');
});

for (const kind of ['apt', 'rpm'] as const) {
  test(`no: broken ${kind} package printing the wrong version is installed but not staged`, async () => {
    const n = node(kind, '{"version":"202604.01.1"}', { repo: kind === 'apt' ? ctx.brokenApt : ctx.brokenRpm });
    const before = sha(n.sb.path(BAKED));
    const r = await n.run(PM);
    assert.is(r.exitCode, 1);
    assert.ok(existsSync(n.sb.path('/usr/bin/aks-node-controller')), 'the package manager did install it');
    assertBakedInCharge(n, before);
    const message = downloadEvent(n.sb);
    assert.match(message, 'outcome=verifyFailed');
    assert.match(message, 'reports version "202604.01.0", expected "202604.01.1"');
  });
}

test('host package databases untouched by the whole suite', () => {
  assert.is(hostFingerprint(), ctx.host);
});

test.run();

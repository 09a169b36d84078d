// Availability of the repository fast path under a key rotation and a future-dated index (issue 25): the
// compiled baked agent against real signed repositories on loopback and the real gpgv. An index signed by
// the node's key and a key it lacks stages the hotfix, as apt accepts it; an index dated 400 days ahead is
// refused and never becomes the replay floor, so the next correctly dated index still stages. The state
// file's parse errors never quote it; an IPv4-mapped loopback literal is loopback to the URL rules.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRotationSigner, createSigningKey, type SigningKey } from '../../fakes/repo-index.ts';
import { buildAgent, buildBaseStubRpm, buildHotfixPackages, startAptRepo, startRpmRepo, type ServedRepo } from '../../fakes/repos.ts';
import { NODE_BAKED, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const HOTFIX = '/opt/azure/containers/aks-node-controller-hotfix';
const STATE = '/opt/azure/containers/aks-node-controller-repository-state.json';
const DAY = 86_400_000;
/** The event message must match; a failure shows the message the node actually wrote. */
const see = (message: string, expected: RegExp) => assert.match(message, expected, message);
const ctx = {} as { work: string; baked: string; deb: string; rpm: string; stub: string; other: SigningKey; close: Array<() => unknown> };

test.before(() => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-rotation-e2e-'));
  ctx.close = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  const hot = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'));
  ctx.deb = hot.deb;
  ctx.rpm = hot.rpm;
  ctx.stub = buildBaseStubRpm(join(ctx.work, 'stub'));
  ctx.other = createSigningKey(ctx.work, 'rotation-next-key');
});

test.after(async () => {
  for (const close of ctx.close.reverse()) await close();
  ctx.other?.close();
  rmSync(ctx.work, { recursive: true, force: true });
});

async function repoFor(kind: 'apt' | 'rpm'): Promise<ServedRepo> {
  const dir = mkdtempSync(join(ctx.work, `${kind}-`));
  const repo = kind === 'apt' ? await startAptRepo(dir, [ctx.deb]) : await startRpmRepo(dir, [ctx.rpm]);
  ctx.close.push(() => repo.close());
  return repo;
}

function nodeFor(kind: 'apt' | 'rpm', repo: ServedRepo): { sb: Sandbox; run(): Promise<string> } {
  const sb = makeSandbox('anc-rotation-node-');
  ctx.close.push(() => sb.cleanup());
  plantHotfixNode(sb, { kind, repo, stub: ctx.stub, baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  return {
    sb,
    async run() {
      await runAnc(['download-hotfix', '--method', 'repository'], { root: sb.root, bin: sb.path(NODE_BAKED), timeoutMs: 180_000 });
      const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
      return events.at(-1)!.Message!;
    },
  };
}

for (const kind of ['apt', 'rpm'] as const) {
  test(`${kind}: metadata signed by the trusted key and a key the node lacks (rotation) stages the hotfix`, async () => {
    const repo = await repoFor(kind);
    const signer = createRotationSigner(repo.key!, ctx.other);
    ctx.close.push(() => signer.close());
    repo.publish!({ signWith: signer });
    const n = nodeFor(kind, repo);
    see(await n.run(), /outcome=staged .*path=repository/);
    assert.ok(existsSync(n.sb.path(HOTFIX)));
  });

  test(`${kind}: metadata signed only by keys the node lacks stays refused, rotation or not`, async () => {
    const repo = await repoFor(kind);
    const third = createSigningKey(ctx.work, `rotation-third-${kind}`);
    const signer = createRotationSigner(ctx.other, third);
    ctx.close.push(
      () => signer.close(),
      () => third.close(),
    );
    repo.publish!({ signWith: signer });
    const n = nodeFor(kind, repo);
    see(await n.run(), /outcome=integrityFailed .*signature not verified by .*(NO_PUBKEY|ERRSIG)/);
    assert.is(existsSync(n.sb.path(HOTFIX)), false);
  });

  test(`${kind}: metadata dated 400 days ahead is refused and never becomes the replay floor`, async () => {
    const repo = await repoFor(kind);
    repo.publish!({ date: new Date(Date.now() + 400 * DAY), validUntil: new Date(Date.now() + 500 * DAY) });
    const n = nodeFor(kind, repo);
    see(await n.run(), /outcome=integrityFailed .*is dated \S+, in the future \(now \S+, allowed clock skew 10 min\)/);
    assert.is(existsSync(n.sb.path(HOTFIX)), false);
    assert.is(existsSync(n.sb.path(STATE)), false, 'no replay floor recorded');
    repo.publish!({ date: new Date(Date.now() - 60_000) });
    see(await n.run(), /outcome=staged .*path=repository/);
  });

  test(`${kind}: a replay floor already in the future (written before the rule) no longer blocks a correct index`, async () => {
    const repo = await repoFor(kind);
    const n = nodeFor(kind, repo);
    see(await n.run(), /outcome=staged .*path=repository/);
    rmSync(n.sb.path(HOTFIX));
    const future = new Date(Date.now() + 400 * DAY).toISOString();
    const state = Object.fromEntries(Object.keys(JSON.parse(n.sb.read(STATE))).map((k) => [k, future]));
    n.sb.write(STATE, `${JSON.stringify(state)}\n`);
    see(await n.run(), /outcome=staged .*path=repository/);
  });
}

test('an unparsable repository state is ignored with a warning naming a byte offset, never its content', async () => {
  const repo = await repoFor('apt');
  const n = nodeFor('apt', repo);
  n.sb.write(STATE, 'SECRETTOKEN.abcdef');
  see(await n.run(), /outcome=staged .*path=repository/);
  const log = n.sb.read('/var/log/azure/aks-node-controller.log');
  const warning = log.split('\n').find((l) => l.includes('ignoring unreadable repository state'));
  assert.ok(warning, log);
  assert.match(warning!, '"error":"not valid JSON (syntax error at byte offset 0 of 18)"');
  assert.not.match(log, 'SECRET');
});

test('apt: plain HTTP to the IPv4-mapped loopback literal [::ffff:127.0.0.1] is loopback, not a public host', async () => {
  const repo = await repoFor('apt');
  const n = nodeFor('apt', repo);
  const list = '/etc/apt/sources.list.d/microsoft-prod.list';
  n.sb.write(list, n.sb.read(list).replace('http://127.0.0.1:', 'http://[::ffff:127.0.0.1]:'));
  const message = await n.run();
  see(message, /outcome=staged .*path=repository/);
  assert.not.match(message, 'public host');
});

test.run();

// The health gate under a kill and a short deadline (issue 25), with the compiled baked agent and a loopback
// signed apt repository whose hotfix "binary" hangs in its dry-run self-test: a SIGKILL inside the gate
// leaves the whole candidate as the pending file, which the next run removes at start-up; a guard left
// with the baked binary gone puts it back; the self-test cut short by a 10 s deadline reports that bound.
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_BAKED, NODE_POINTER, plantHotfixNode } from '../../fakes/hotfix-node.ts';
import { buildAgent, buildHotfixPackages, startAptRepo, type ServedRepo } from '../../fakes/repos.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const PENDING = '/opt/azure/containers/aks-node-controller-hotfix.pending';
const GUARD = '/opt/azure/containers/.aks-node-controller-baked-guard';
const SELF_TEST_PID = '/self-test.pid';
const ctx = {} as { work: string; baked: string; repo: ServedRepo; sandboxes: Sandbox[] };

test.before(async () => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-gate-leftovers-'));
  ctx.sandboxes = [];
  ctx.baked = buildAgent('202604.01.0', join(ctx.work, 'baked'));
  // Answers `version` like the real 202604.01.1; its self-test never answers (it records its pid).
  const hanging = join(ctx.work, 'hanging-self-test');
  writeFileSync(
    hanging,
    `#!/bin/sh\nif [ "$1" = version ]; then echo 202604.01.1; exit 0; fi\necho $$ > "$AKS_NODE_ROOT${SELF_TEST_PID}"\nexec sleep 60\n`,
    { mode: 0o755 },
  );
  const pkg = buildHotfixPackages('202604.01.1', join(ctx.work, 'pkg'), { bin: hanging });
  ctx.repo = await startAptRepo(join(ctx.work, 'apt'), [pkg.deb]);
});

test.after(async () => {
  for (const sb of ctx.sandboxes) {
    if (existsSync(sb.path(SELF_TEST_PID))) {
      try {
        process.kill(Number(sb.read(SELF_TEST_PID)), 'SIGKILL');
      } catch {}
    }
    sb.cleanup();
  }
  await ctx.repo?.close();
  rmSync(ctx.work, { recursive: true, force: true });
});

function node(): Sandbox {
  const sb = makeSandbox('anc-gate-node-');
  ctx.sandboxes.push(sb);
  plantHotfixNode(sb, { kind: 'apt', repo: ctx.repo, stub: '', baked: ctx.baked, pointer: '{"hotfixes":{"202604.01":"202604.01.1"}}' });
  return sb;
}

const lastDownloadEvent = (sb: Sandbox) =>
  sb
    .events()
    .filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')
    .at(-1)!.Message!;

test('a self-test cut short by a 10 s deadline reports the bound it had, not its own 30 s', async () => {
  const sb = node();
  const r = await runAnc(['download-hotfix', '--timeout', '10'], { root: sb.root, bin: sb.path(NODE_BAKED), timeoutMs: 60_000 });
  assert.is(r.exitCode, 1, r.stderr);
  const message = lastDownloadEvent(sb);
  const bound = /provision --dry-run: no answer within (\d+(?:\.\d)?) s/.exec(message);
  assert.ok(bound, message);
  assert.ok(Number(bound[1]) <= 10, message);
  assert.is(existsSync(sb.path(PENDING)), false);
});

test('SIGKILL inside the health gate leaves the pending candidate; the next run removes it at start-up', async () => {
  const sb = node();
  const agent = spawn(sb.path(NODE_BAKED), ['download-hotfix'], { env: { ...process.env, AKS_NODE_ROOT: sb.root }, stdio: 'ignore' });
  const deadline = Date.now() + 60_000;
  while (!existsSync(sb.path(SELF_TEST_PID)) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
  agent.kill('SIGKILL');
  await new Promise((ok) => agent.once('close', ok));
  assert.ok(existsSync(sb.path(PENDING)), 'the killed run left the pending candidate');
  sb.write(NODE_POINTER, '{"hotfixes":{}}');
  const r = await runAnc(['download-hotfix'], { root: sb.root, bin: sb.path(NODE_BAKED) });
  assert.is(r.exitCode, 0, r.stderr);
  assert.match(lastDownloadEvent(sb), /^outcome=noHotfix /);
  assert.is(existsSync(sb.path(PENDING)), false, 'pending candidate removed at start-up');
  assert.is(existsSync(sb.path(GUARD)), false, 'the guard a killed gate left is settled too');
  assert.match(sb.read('/var/log/azure/aks-node-controller.log'), 'aks-node-controller-hotfix.pending');
});

test('a guard left with the baked binary gone puts the baked binary back at start-up', async () => {
  const sb = node();
  linkSync(sb.path(NODE_BAKED), sb.path(GUARD));
  rmSync(sb.path(NODE_BAKED));
  sb.write(NODE_POINTER, '{"hotfixes":{}}');
  const r = await runAnc(['download-hotfix'], { root: sb.root, bin: sb.path(GUARD) });
  assert.is(r.exitCode, 0, r.stderr);
  assert.ok(readFileSync(sb.path(NODE_BAKED)).equals(readFileSync(ctx.baked)), 'baked binary restored');
  assert.is(existsSync(sb.path(GUARD)), false);
});

test.run();

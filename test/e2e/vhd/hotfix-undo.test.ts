// Issue 34 §1 and §3 through the real launcher: a hotfix whose provisioning fails after its scripts started is
// quarantined (exit code and its name recorded), never re-run in the same boot, and the next boot restores
// the image's scripts and runs the baked agent; a pointer's recall gives up a staged hotfix the same way;
// the launcher waits for and logs the AGENT's own pid (killing it never leaves an orphaned hotfix beside a
// second provisioner); each agent step before provision is bounded (fail-open).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  imagePaths,
  installImage,
  LAUNCHER,
  runLauncher,
  stageHotfix,
  standInProvisionScript,
  writeFakeAgent,
  writeHostname,
  writeStandInProvisionScripts,
} from '../../fakes/node-image.ts';
import { buildAgent } from '../../fakes/repos.ts';
import { FIXED_START, fixEntries, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-hotfix-undo-'));
const BAKED = '202604.01.0';
const HOTFIX = '202604.01.1';
const BAKED_START = standInProvisionScript({ exitCode: 0 });
const HOTFIX_BUG = standInProvisionScript({ exitCode: 50, note: 'hotfix script: no egress' });
let baked = '';
let goodHotfix = '';
let badHotfix = '';

test.before(() => {
  baked = buildAgent(BAKED, join(work, 'baked'));
  const label = ['--scripts-label', SCRIPT_LABEL];
  goodHotfix = buildAgent(HOTFIX, join(work, 'good'), ['--scripts', writePayloadDir(join(work, 'good-payload')), ...label]);
  const buggy = [{ ...fixEntries()[0]!, content: HOTFIX_BUG }, fixEntries()[1]!];
  badHotfix = buildAgent(HOTFIX, join(work, 'bad'), ['--scripts', writePayloadDir(join(work, 'bad-payload'), buggy), ...label]);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

/** An image root: the real launcher and baked agent, stand-in scripts, a configuration, optionally a staged hotfix. */
function image(hotfix?: string): string {
  const root = mkdtempSync(join(work, 'root-'));
  installImage(root, baked);
  writeHostname(root);
  writeStandInProvisionScripts(root, { exitCode: 0 });
  writeFileSync(join(root, 'etc/os-release'), 'ID=ubuntu\nVERSION_ID="22.04"\n');
  writeFileSync(imagePaths(root).config, '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  if (hotfix) stageHotfix(root, hotfix, HOTFIX);
  return root;
}

function events(root: string, task: string): string[] {
  const dir = join(root, 'var/log/azure/Microsoft.Azure.Extensions.CustomScript/events');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1))
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Record<string, string>)
    .filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`)
    .map((e) => e.Message!.split(' | ')[0]!);
}

const provisionedBy = (root: string) =>
  readFileSync(join(root, 'var/log/azure/aks-node-controller.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision' && l.dryRun === false)
    .map((l) => l.version);
const quarantine = (root: string) =>
  JSON.parse(readFileSync(join(root, 'opt/azure/containers/aks-node-controller-hotfix-quarantine.json'), 'utf8')).versions;
const start = (root: string) => readFileSync(imagePaths(root).provisionStart, 'utf8');

test('§1: provisioning fails under a hotfix -> quarantined (exit code and name), not re-run in this boot; the next boot is baked', async () => {
  const root = image(badHotfix);
  const first = await runLauncher(root, {}, 120_000);
  assert.is(first.exitCode, 50, first.stdout + first.stderr);
  assert.ok(first.stdout.includes('Hotfix binary failed after the provisioning scripts started (exit 50); not retrying in this boot'));
  assert.equal(provisionedBy(root), [HOTFIX], 'the provisioning scripts never run twice in one boot');
  assert.equal(
    quarantine(root).map((q: Record<string, unknown>) => [q.version, q.cause, q.exitCode, q.exitName]),
    [[HOTFIX, 'provisionFailed', 50, 'ERR_OUTBOUND_CONN_FAIL']],
  );
  assert.not.ok(existsSync(imagePaths(root).hotfixBinary), 'the staged hotfix is gone');
  // R4-5: never restored under scripts that may still run; the next provision restores first.
  assert.is(start(root), HOTFIX_BUG, "the hotfix's scripts stay until the next provision");
  assert.equal(events(root, 'HotfixFallback'), [
    `hotfix ${HOTFIX} failed provisioning with exit code 50 (ERR_OUTBOUND_CONN_FAIL) after the provisioning scripts started; version ${HOTFIX} quarantined on this node; the image's scripts are restored by the next provision, never under running scripts; this node does not provision again (the unit runs only while provision.complete is absent, and the scripts never run twice): reimage it, and the new node provisions with the baked agent ${BAKED}`,
  ]);
  const status = await runAnc(['status'], { root, bin: baked });
  assert.match(status.stdout, `quarantined ${HOTFIX} at `);
  assert.match(
    status.stdout,
    /: provisioning failed under it with exit code 50 ERR_OUTBOUND_CONN_FAIL after the scripts started; the image's scripts stay until a provision restores them \(never under running scripts\), and this node does not provision again \(the unit runs only while provision.complete is absent\): reimage it/,
  );
  // The next boot: the baked agent and the image's scripts.
  const second = await runLauncher(root, {}, 120_000);
  assert.is(second.exitCode, 0, second.stdout + second.stderr);
  assert.ok(second.stdout.includes('Using VHD-baked binary'));
  assert.equal(provisionedBy(root), [HOTFIX, BAKED]);
  assert.is(start(root), BAKED_START, "the baked provision restored the image's scripts before its own");
  // And the pointer can no longer bring it back on this node.
  writeFileSync(imagePaths(root).hotfixPointer, `{"hotfixes":{"202604.01":"${HOTFIX}"}}`);
  const download = await runAnc(['download-hotfix'], { root, bin: baked });
  assert.is(download.exitCode, 0);
  assert.match(events(root, 'DownloadHotfix').at(-1)!, /^outcome=quarantined /);
});

test('§1 recall: a staged, applied hotfix the pointer recalls is given up: scripts restored, quarantined, the baked agent provisions', async () => {
  const root = image(goodHotfix);
  const first = await runLauncher(root, {}, 120_000);
  assert.is(first.exitCode, 0, first.stdout + first.stderr);
  assert.is(start(root), FIXED_START, 'the hotfix applied its scripts');
  writeFileSync(imagePaths(root).hotfixPointer, `{"hotfixes":{},"recall":["${HOTFIX}"]}`);
  const second = await runLauncher(root, {}, 120_000);
  assert.is(second.exitCode, 0, second.stdout + second.stderr);
  assert.ok(second.stdout.includes('Using VHD-baked binary'), second.stdout);
  assert.equal(provisionedBy(root), [HOTFIX, BAKED]);
  assert.is(start(root), BAKED_START);
  assert.not.ok(existsSync(imagePaths(root).hotfixBinary));
  assert.equal(
    quarantine(root).map((q: Record<string, unknown>) => [q.version, q.cause]),
    [[HOTFIX, 'recalled']],
  );
  assert.equal(events(root, 'HotfixFallback'), [
    `recall: hotfix ${HOTFIX} recalled by the hotfix pointer; version ${HOTFIX} quarantined on this node; baked scripts restored: 2 of hotfix ${SCRIPT_LABEL}; the baked agent ${BAKED} provisions`,
  ]);
  // explain: the recalled version is never taken.
  const pointer = join(work, 'recall-pointer.json');
  writeFileSync(pointer, `{"hotfixes":{"202604.01":"${HOTFIX}"},"recall":["${HOTFIX}"]}`);
  const explained = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json', '--pointer', pointer], { root, bin: baked })).stdout);
  assert.equal([explained.upgrade, explained.reason, explained.recall], [false, 'recalled', [HOTFIX]]);
  assert.match(explained.summary, `hotfix ${HOTFIX} is recalled by the pointer`);
});

/** Starts the launcher and resolves once `predicate(stdout)` holds (or it ends). */
function launch(root: string, env: Record<string, string> = {}) {
  const child = spawn('bash', [LAUNCHER], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root', AKS_NODE_ROOT: root, LOGGER_CMD: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c) => (stdout += c));
  const closed = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const until = async (predicate: (out: string) => boolean, ms = 20_000) => {
    for (const end = Date.now() + ms; Date.now() < end && !predicate(stdout); ) await new Promise((r) => setTimeout(r, 50));
    return stdout;
  };
  return { closed, until, stdout: () => stdout };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('R3-10: the launcher logs and waits for the agent itself; killing that pid leaves no hotfix beside the baked provision', async () => {
  const root = mkdtempSync(join(work, 'pid-'));
  const p = imagePaths(root);
  const rec = join(root, 'calls');
  writeHostname(root);
  mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
  writeFileSync(p.config, '{}');
  writeFakeAgent(p.binary, rec, {
    label: 'baked',
    provisionScript: `if kill -0 "$(cat "$REC/hotfix.pid")" 2>/dev/null; then echo alive; else echo gone; fi > "$REC/overlap"; exit 0`,
  });
  writeFakeAgent(p.hotfixBinary, rec, { label: 'hotfix', provisionScript: 'echo $$ > "$REC/hotfix.pid"; exec sleep 60' });
  const run = launch(root);
  const out = await run.until((o) => /Spawned aks-node-controller \(pid \d+\)/.test(o) && existsSync(join(rec, 'hotfix.pid')));
  const logged = Number(/Spawned aks-node-controller \(pid (\d+)\)/.exec(out)?.[1]);
  const agent = Number(readFileSync(join(rec, 'hotfix.pid'), 'utf8'));
  assert.is(logged, agent, 'the logged pid is the agent, not a subshell');
  process.kill(logged, 'SIGTERM');
  assert.is(await run.closed, 0, run.stdout());
  assert.ok(run.stdout().includes('Hotfix binary was killed by signal 15 before the provisioning scripts started'), run.stdout());
  assert.is(readFileSync(join(rec, 'overlap'), 'utf8').trim(), 'gone', 'the hotfix agent was gone when the baked provision ran');
  assert.not.ok(alive(agent));
});

test('R3-3 (launcher layer): an agent step that hangs is stopped at AGENT_STEP_TIMEOUT; the boot goes on (fail-open)', async () => {
  const root = mkdtempSync(join(work, 'step-'));
  const p = imagePaths(root);
  writeHostname(root);
  mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
  writeFileSync(p.config, '{}');
  writeFileSync(p.hotfixPointer, '{"hotfixes":{}}');
  writeFileSync(
    p.binary,
    '#!/bin/bash\ncase "$1" in\n  download-hotfix) exec sleep 60 ;;\n  provision) echo provisioned > "$AKS_NODE_ROOT/provisioned"; exit 0 ;;\nesac\nexit 0\n',
  );
  chmodSync(p.binary, 0o755);
  const out = await runLauncher(root, { AGENT_STEP_TIMEOUT: '2' }, 30_000);
  assert.is(out.exitCode, 0, out.stdout + out.stderr);
  assert.ok(out.stdout.includes('ANC download-hotfix did not finish within 2s; stopped (fail-open)'), out.stdout);
  assert.ok(out.stdout.includes('ANC download-hotfix failed; binary selection follows'));
  assert.ok(existsSync(join(root, 'provisioned')), 'provisioning still ran');
});

test.run();

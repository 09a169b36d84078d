// Issue 41 §1-§3 on the compiled binaries: never a mix of baked and hotfix scripts, even when the hotfix
// agent is SIGKILLed 0.5 s after the scripts started (R4-5: the after-scripts fallback quarantines and
// unstages only; the next provision restores); one writer at a time on the scripts (R4-8: a flock lock
// with a bound and a message naming the holder, released by a dead holder; racing commands never
// interleave); a recall decided by the record written at promotion, never by asking the binary (R4-7: a
// staged hotfix that answers `version` in 6 s, a truncated staged binary).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMisbehavingAgent } from '../../fakes/misbehaving-agent.ts';
import {
  imagePaths,
  installImage,
  LAUNCHER,
  runLauncher,
  stageHotfix,
  standInProvisionScript,
  writeHostname,
  writeStandInProvisionScripts,
} from '../../fakes/node-image.ts';
import { buildAgent } from '../../fakes/repos.ts';
import { type PayloadEntry, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-scripts-writers-'));
const BAKED = '202604.01.0';
const HOTFIX = '202604.01.1';
const C = 'opt/azure/containers';
const N = 40;
const helpers = Array.from({ length: N }, (_, i) => `helper-${String(i).padStart(2, '0')}.sh`);
const BAKED_HELPER = (name: string) => `# baked ${name}\n`;
const HOTFIX_HELPER = (name: string) => `# hotfix ${name}\n`;
/** The hotfix's start script: what the scripts see at their start and `sleep` seconds later. */
const countingStart = (sleep: number) => `#!/bin/bash
ROOT="\${AKS_NODE_ROOT:-}"
count() { echo "baked=$(grep -l '^# baked' "$ROOT/${C}"/helper-*.sh | wc -l) hotfix=$(grep -l '^# hotfix' "$ROOT/${C}"/helper-*.sh | wc -l)"; }
count >> "$ROOT/observed"
sleep ${sleep}
count >> "$ROOT/observed"
mkdir -p "$ROOT/var/log/azure/aks"
echo '{"ExitCode":"0","Output":"","Error":"","ExecDuration":"0"}' > "$ROOT/var/log/azure/aks/provision.json"
touch "$ROOT/${C}/provision.complete"
`;
const BAKED_START = standInProvisionScript({ exitCode: 0 });
let baked = '';
let killable = '';
let racer = '';
let slowVersion = '';

function payload(sleep: number): PayloadEntry[] {
  const start: PayloadEntry = {
    source: 'cse_start.sh',
    payload: 'payloads/provision_start.sh',
    destination: `/${C}/provision_start.sh`,
    mode: '0755',
    platforms: ['ubuntu'],
    content: countingStart(sleep),
  };
  const rest = helpers.map((name) => ({
    source: name,
    payload: `payloads/${name}`,
    destination: `/${C}/${name}`,
    mode: '0644',
    platforms: ['ubuntu'],
    content: HOTFIX_HELPER(name),
  }));
  return [start, ...rest];
}

test.before(() => {
  baked = buildAgent(BAKED, join(work, 'baked'));
  const label = ['--scripts-label', SCRIPT_LABEL];
  killable = buildAgent(HOTFIX, join(work, 'slow'), ['--scripts', writePayloadDir(join(work, 'slow-payload'), payload(4)), ...label]);
  racer = buildAgent(HOTFIX, join(work, 'racer'), ['--scripts', writePayloadDir(join(work, 'racer-payload'), payload(0)), ...label]);
  slowVersion = buildMisbehavingAgent('SLOW_VERSION', racer, join(work, 'slow-version', 'aks-node-controller'));
});
test.after(() => rmSync(work, { recursive: true, force: true }));

/** An image root: the launcher and the baked agent, the baked scripts (40 helpers), a configuration. */
function image(): string {
  const root = mkdtempSync(join(work, 'root-'));
  installImage(root, baked);
  writeHostname(root);
  writeStandInProvisionScripts(root, { exitCode: 0 });
  for (const name of helpers) writeFileSync(join(root, C, name), BAKED_HELPER(name));
  writeFileSync(join(root, 'etc/os-release'), 'ID=ubuntu\nVERSION_ID="22.04"\n');
  writeFileSync(imagePaths(root).config, '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  return root;
}

const helperStates = (root: string) =>
  helpers.map((name) => {
    const text = readFileSync(join(root, C, name), 'utf8');
    return text === BAKED_HELPER(name) ? 'baked' : text === HOTFIX_HELPER(name) ? 'hotfix' : `other: ${JSON.stringify(text)}`;
  });
const allOf = (root: string, want: string) => helperStates(root).every((s) => s === want);
const observed = (root: string) =>
  existsSync(join(root, 'observed')) ? readFileSync(join(root, 'observed'), 'utf8').trim().split('\n') : [];
const quarantine = (root: string) => JSON.parse(readFileSync(join(root, C, 'aks-node-controller-hotfix-quarantine.json'), 'utf8')).versions;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const provisionArgs = (root: string) => ['provision', `--provision-config=${imagePaths(root).config}`];
const clearStatus = (root: string) => {
  rmSync(join(root, 'var/log/azure/aks/provision.json'), { force: true });
  rmSync(join(root, C, 'provision.complete'), { force: true });
};

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

test('R4-5: the hotfix agent SIGKILLed 0.5 s after the scripts started: the running scripts never see a mix; the next provision restores', async () => {
  const root = image();
  stageHotfix(root, killable, HOTFIX);
  const child = spawn('bash', [LAUNCHER], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root', AKS_NODE_ROOT: root, LOGGER_CMD: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const closed = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const marker = join(root, C, 'aks-node-controller-scripts-started');
  for (const end = Date.now() + 60_000; Date.now() < end && !existsSync(marker); ) await sleep(20);
  assert.ok(existsSync(marker), out);
  await sleep(500);
  const pid = Number(/Spawned aks-node-controller \(pid (\d+)\)/.exec(out)?.[1]);
  process.kill(pid, 'SIGKILL');
  assert.is(await closed, 137, out);
  assert.ok(out.includes('Hotfix binary failed after the provisioning scripts started (exit 137)'), out);
  // The scripts go on in their own process group: wait for their second look (4 s after their start).
  for (const end = Date.now() + 15_000; Date.now() < end && observed(root).length < 2; ) await sleep(100);
  assert.equal(observed(root), [`baked=0 hotfix=${N}`, `baked=0 hotfix=${N}`], 'the same scripts from start to end');
  assert.ok(allOf(root, 'hotfix'), 'nothing restored under the running scripts');
  assert.equal(
    quarantine(root).map((q: Record<string, unknown>) => [q.version, q.cause, q.exitCode, q.exitName]),
    [[HOTFIX, 'provisionFailed', 137, 'killed by signal 9']],
  );
  assert.not.ok(existsSync(imagePaths(root).hotfixBinary), 'unstaged');
  assert.match(events(root, 'HotfixFallback')[0]!, "the image's scripts are restored by the next provision, never under running scripts");
  // The next boot: the baked agent restores the image's scripts before its own, byte for byte.
  const next = await runLauncher(root, {}, 60_000);
  assert.is(next.exitCode, 0, next.stdout + next.stderr);
  assert.ok(next.stdout.includes('Using VHD-baked binary'), next.stdout);
  assert.ok(allOf(root, 'baked'), helperStates(root).join(','));
  assert.is(readFileSync(imagePaths(root).provisionStart, 'utf8'), BAKED_START);
  assert.is(observed(root).length, 2, 'the hotfix scripts never ran again');
});

test('R4-8: `hotfix fallback` racing the hotfix provision, 12 trials: never a mix, the originals always restorable', async () => {
  const broken: string[] = [];
  for (let trial = 0; trial < 12; trial++) {
    const root = image();
    const provision = runAnc(provisionArgs(root), { root, bin: racer });
    await sleep(trial * 40);
    const fallback = runAnc(['hotfix', 'fallback', '--reason', 'race'], { root, bin: baked });
    const [p, f] = await Promise.all([provision, fallback]);
    const states = helperStates(root);
    const mixed = !(allOf(root, 'baked') || allOf(root, 'hotfix'));
    const sawMix = observed(root).some((line) => line !== `baked=0 hotfix=${N}`);
    clearStatus(root);
    const after = await runAnc(provisionArgs(root), { root, bin: baked });
    const restored = after.exitCode === 0 && allOf(root, 'baked');
    if (p.exitCode !== 0 || f.exitCode !== 0 || mixed || sawMix || !restored) {
      broken.push(
        `trial ${trial}: provision ${p.exitCode} fallback ${f.exitCode} states ${[...new Set(states)]} observed ${observed(root)} baked-after ${after.exitCode} ${after.stderr}`,
      );
    }
  }
  assert.equal(broken, []);
});

test("R4-8: `apply-embedded-hotfix` racing `provision`, 12 trials: neither removes the other's files; one consistent apply", async () => {
  const broken: string[] = [];
  for (let trial = 0; trial < 12; trial++) {
    const root = image();
    const provision = runAnc(provisionArgs(root), { root, bin: racer });
    await sleep(trial * 30);
    const apply = runAnc(['apply-embedded-hotfix'], { root, bin: racer });
    const [p, a] = await Promise.all([provision, apply]);
    const consistent = allOf(root, 'hotfix') && observed(root).every((line) => line === `baked=0 hotfix=${N}`);
    clearStatus(root);
    const after = await runAnc(provisionArgs(root), { root, bin: baked });
    const restored = after.exitCode === 0 && allOf(root, 'baked');
    if (p.exitCode !== 0 || a.exitCode !== 0 || !consistent || !restored) {
      broken.push(
        `trial ${trial}: provision ${p.exitCode} ${p.stderr} apply ${a.exitCode} ${a.stderr} baked-after ${after.exitCode} ${after.stderr}`,
      );
    }
  }
  assert.equal(broken, []);
});

test('R4-8: a writer past its bound refuses, naming the holder, and changes nothing; a SIGKILLed holder releases the lock', async () => {
  const root = image();
  // The holder: a provision whose scripts take 4 s (it holds the lock until they end).
  const holder = runAnc(provisionArgs(root), { root, bin: killable });
  const marker = join(root, C, 'aks-node-controller-scripts-started');
  for (const end = Date.now() + 30_000; Date.now() < end && !existsSync(marker); ) await sleep(20);
  const refused = await runAnc(['apply-embedded-hotfix'], { root, bin: racer, env: { ANC_SCRIPTS_LOCK_WAIT_SECONDS: '1' } });
  assert.is(refused.exitCode, 1, refused.stdout + refused.stderr);
  assert.match(
    refused.stderr,
    /apply-embedded-hotfix: the provisioning scripts are being written by provision \(pid \d+\) since \S+ \(lock \S+aks-node-controller-scripts\.lock, waited 1 s\); nothing was changed/,
  );
  assert.match(refused.stderr, 'run this again when it has finished');
  // A second provision is refused the same way and writes no status: the holder's result will stand.
  const second = await runAnc(provisionArgs(root), { root, bin: baked, env: { ANC_SCRIPTS_LOCK_WAIT_SECONDS: '1' } });
  assert.is(second.exitCode, 1, second.stderr);
  assert.match(second.stderr, /provision: the provisioning scripts are being written by provision \(pid \d+\)/);
  assert.not.ok(existsSync(join(root, 'var/log/azure/aks/provision.json')), 'no status file from the refused attempt');
  assert.is((await holder).exitCode, 0);
  assert.is(JSON.parse(readFileSync(join(root, 'var/log/azure/aks/provision.json'), 'utf8')).ExitCode, '0');
  // A holder that dies by SIGKILL: the kernel releases its lock; the next writer goes on at once.
  const lock = join(root, C, 'aks-node-controller-scripts.lock');
  const dead = spawn('flock', ['-o', lock, 'sleep', '30'], { stdio: 'ignore' });
  await sleep(300);
  const waiting = runAnc(['apply-embedded-hotfix'], { root, bin: racer, env: { ANC_SCRIPTS_LOCK_WAIT_SECONDS: '20' } });
  await sleep(500);
  dead.kill('SIGKILL');
  const applied = await waiting;
  assert.is(applied.exitCode, 0, applied.stderr);
  assert.ok(applied.durationMs < 10_000, `took the lock after its holder died (${applied.durationMs} ms)`);
  // The bound without a holder: nothing waits.
  const free = await runAnc(['apply-embedded-hotfix'], { root, bin: racer, env: { ANC_SCRIPTS_LOCK_WAIT_SECONDS: '1' } });
  assert.is(free.exitCode, 0, free.stderr);
});

test('R4-7: a staged hotfix that answers `version` in 6 s is recalled by its record; the node provisions with the baked agent', async () => {
  const root = image();
  stageHotfix(root, slowVersion, HOTFIX);
  writeFileSync(imagePaths(root).hotfixPointer, `{"hotfixes":{},"recall":["${HOTFIX}"]}`);
  const boot = await runLauncher(root, {}, 120_000);
  assert.is(boot.exitCode, 0, boot.stdout + boot.stderr);
  assert.ok(boot.stdout.includes('Using VHD-baked binary'), boot.stdout);
  assert.not.ok(boot.stdout.includes('Using hotfix binary'), boot.stdout);
  assert.not.ok(existsSync(imagePaths(root).hotfixBinary), 'unstaged');
  assert.not.ok(existsSync(imagePaths(root).hotfixRecord), 'its record goes with it');
  assert.equal(
    quarantine(root).map((q: Record<string, unknown>) => [q.version, q.cause]),
    [[HOTFIX, 'recalled']],
  );
  assert.equal(events(root, 'HotfixFallback'), [
    `recall: hotfix ${HOTFIX} recalled by the hotfix pointer; version ${HOTFIX} quarantined on this node; the baked agent ${BAKED} provisions`,
  ]);
  assert.ok(allOf(root, 'baked'));
});

test('R4-7: a truncated staged binary is recalled ("cannot tell" under a recall means recalled); a matching record of another version is kept', async () => {
  const root = image();
  stageHotfix(root, racer, HOTFIX);
  // A recall of another version: the record says what is staged, nothing is run, nothing changes.
  writeFileSync(imagePaths(root).hotfixPointer, '{"hotfixes":{},"recall":["202604.01.9"]}');
  const kept = await runAnc(['download-hotfix'], { root, bin: baked });
  assert.is(kept.exitCode, 0, kept.stderr);
  assert.ok(existsSync(imagePaths(root).hotfixBinary), 'not recalled');
  assert.equal(events(root, 'HotfixFallback'), []);
  // Truncated after promotion: its record no longer describes it.
  truncateSync(imagePaths(root).hotfixBinary, 4096);
  const recalled = await runAnc(['download-hotfix'], { root, bin: baked });
  assert.is(recalled.exitCode, 0, recalled.stderr);
  assert.not.ok(existsSync(imagePaths(root).hotfixBinary), 'unstaged');
  assert.equal(
    quarantine(root).map((q: Record<string, unknown>) => [q.version, q.cause]),
    [[HOTFIX, 'recalled']],
  );
  assert.match(
    events(root, 'HotfixFallback')[0]!,
    `recall: hotfix ${HOTFIX} recalled by the hotfix pointer: its version cannot be told (the staged binary is not the file its record describes (changed, truncated or replaced since promotion)), so it is given up;`,
  );
  // Without any record (staged by hand, or before records): also given up under a recall.
  const bare = image();
  mkdirSync(join(bare, C), { recursive: true });
  writeFileSync(imagePaths(bare).hotfixBinary, readFileSync(racer).subarray(0, 4096), { mode: 0o755 });
  writeFileSync(imagePaths(bare).hotfixPointer, '{"hotfixes":{},"recall":["202604.01.9"]}');
  assert.is((await runAnc(['download-hotfix'], { root: bare, bin: baked })).exitCode, 0);
  assert.not.ok(existsSync(imagePaths(bare).hotfixBinary));
  assert.equal(
    quarantine(bare).map((q: Record<string, unknown>) => [q.version, q.cause]),
    [['unknown', 'recalled']],
  );
});

test.run();

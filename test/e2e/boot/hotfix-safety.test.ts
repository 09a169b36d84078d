// A bad hotfix can never stop a node: the sandboxed first boot (the demo's path: real launcher, real apt,
// apiserver stand-in, stand-in provisioning scripts, provision-wait beside it) with a broken hotfix
// package per test. The broken binaries are small ELF stand-ins (test/fakes/misbehaving-agent.c) around
// the real 202604.01.1 build, packaged into the .deb like any hotfix.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waveSeed } from '../../../src/pointer/wave.ts';
import { BAKED_VERSION, HOTFIX_VERSION, sandboxedFirstBoot, type BootOptions, type BootResult } from '../../fakes/boot.ts';
import { buildMisbehavingAgent, type Fault } from '../../fakes/misbehaving-agent.ts';
import { imagePaths, runLauncher } from '../../fakes/node-image.ts';
import { buildAgent, buildHotfixPackages, type HotfixPackages } from '../../fakes/repos.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-hotfix-safety-'));
let baked = '';
let realHotfix = '';
const boots: BootResult[] = [];

test.before(() => {
  baked = buildAgent(BAKED_VERSION, join(work, 'baked'));
  realHotfix = buildAgent(HOTFIX_VERSION, join(work, 'hotfix'));
});
test.after(() => {
  for (const b of boots) b.cleanup();
  rmSync(work, { recursive: true, force: true });
});

function packageOf(fault: Fault | 'none'): HotfixPackages {
  const bin = fault === 'none' ? realHotfix : buildMisbehavingAgent(fault, realHotfix, join(work, fault, 'aks-node-controller'));
  return buildHotfixPackages(HOTFIX_VERSION, join(work, `pkg-${fault}`), { bin });
}

async function boot(fault: Fault | 'none', extra: Partial<BootOptions> = {}): Promise<BootResult> {
  const b = await sandboxedFirstBoot({ bakedBin: baked, hotfixPackages: packageOf(fault), ...extra });
  boots.push(b);
  return b;
}

const messages = (b: BootResult, task: string) =>
  b.events.filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`).map((e) => e.Message!.split(' | ')[0]!);
const logLines = (b: BootResult) =>
  readFileSync(b.logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
/** The version of every binary that started a real (not dry-run) provision, in order. */
const provisionedBy = (b: BootResult) =>
  logLines(b)
    .filter((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision' && l.dryRun === false)
    .map((l) => l.version);
const gateMs = (b: BootResult) =>
  logLines(b)
    .filter((l) => l.msg === 'hotfix health check passed')
    .map((l) => l.durationMs as number);

const newestEvent = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1))
    .at(-1)!;

function assertProvisionWaitReturned(b: BootResult, exitCode = '0') {
  assert.is(b.provisionWait.exitCode, exitCode === '0' ? 0 : 1, b.provisionWait.stderr);
  assert.is(JSON.parse(b.provisionWait.stdout).ExitCode, exitCode);
}

test('crash at provision: the launcher falls back to the baked agent once and quarantines the version', async () => {
  const b = await boot('CRASH_PROVISION');
  const out = b.launcher.stdout;
  assert.is(b.launcher.exitCode, 0, out + b.launcher.stderr);
  assert.match(messages(b, 'DownloadHotfix')[0]!, /^outcome=staged /, 'the crash is only in the real provision: the gate passed');
  assert.ok(out.includes('Using hotfix binary: '));
  assert.ok(
    out.includes('Hotfix binary was killed by signal 11 before the provisioning scripts started; falling back to the VHD-baked binary'),
    out,
  );
  const fallback = messages(b, 'HotfixFallback');
  assert.is(fallback.length, 1);
  assert.match(fallback[0]!, 'fallback');
  assert.match(fallback[0]!, HOTFIX_VERSION);
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assert.equal(messages(b, 'Provision'), ['Starting', 'Completed']);
  assertProvisionWaitReturned(b);
  const p = imagePaths(b.root);
  assert.not.ok(existsSync(p.hotfixBinary), 'the staged hotfix is gone');
  const record = JSON.parse(readFileSync(join(b.root, 'opt/azure/containers/aks-node-controller-hotfix-quarantine.json'), 'utf8'));
  assert.equal(
    record.versions.map((v: { version: string }) => v.version),
    [HOTFIX_VERSION],
  );
  // The next download-hotfix refuses the recorded version before touching apt; explain shows why.
  const again = await runAnc(['download-hotfix'], { root: b.root, bin: baked });
  assert.is(again.exitCode, 0, again.stderr);
  const last = JSON.parse(readFileSync(join(b.eventsDir, newestEvent(b.eventsDir)), 'utf8')).Message as string;
  assert.match(last, /^outcome=quarantined current=202604\.01\.0 target=202604\.01\.1 reason=hotfix 202604\.01\.1 is quarantined/);
  const explain = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: b.root, bin: baked })).stdout);
  assert.equal(
    [explain.reason, explain.upgrade, explain.binary, explain.quarantine.version],
    ['quarantined', false, 'baked', HOTFIX_VERSION],
  );
});

test("its own configuration error before the scripts: fallback; provision-wait sees the baked run's result", async () => {
  const b = await boot('CONFIG_ERROR');
  const out = b.launcher.stdout;
  assert.is(b.launcher.exitCode, 0, out + b.launcher.stderr);
  assert.ok(
    out.includes('Hotfix binary exited with status 1 before the provisioning scripts started; falling back to the VHD-baked binary'),
    out,
  );
  const fallback = messages(b, 'HotfixFallback');
  assert.is(fallback.length, 1);
  assert.match(fallback[0]!, `fallback to the baked agent ${BAKED_VERSION}: hotfix ${HOTFIX_VERSION} exited with status 1`);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION, BAKED_VERSION], 'the hotfix tried once, then the baked agent');
  const provision = messages(b, 'Provision');
  assert.equal(
    provision.map((m) => m.split(' ')[0]),
    ['Starting', 'aks-node-controller', 'Starting', 'Completed'],
  );
  assert.match(provision[1]!, 'exited with error');
  // The hotfix left the status files to the baked run: provision-wait reports the node's real result.
  assertProvisionWaitReturned(b);
  assert.not.ok(existsSync(imagePaths(b.root).hotfixBinary));
});

test('hangs in `version`: the health gate stops it at its bound; the baked agent provisions', async () => {
  const b = await boot('HANG_VERSION');
  assert.is(b.launcher.exitCode, 0, b.launcher.stdout + b.launcher.stderr);
  const download = messages(b, 'DownloadHotfix');
  assert.match(
    download[0]!,
    /^outcome=healthCheckFailed current=202604\.01\.0 target=202604\.01\.1 (?:\w+=\S+ )*error=health check: .*aks-node-controller-hotfix\.pending version: no answer within 5 s/,
  );
  assert.ok(b.launcher.stdout.includes('Using VHD-baked binary: '));
  assert.not.ok(existsSync(imagePaths(b.root).hotfixBinary));
  assert.not.ok(existsSync(join(b.root, 'opt/azure/containers/aks-node-controller-hotfix.pending')), 'never half-promoted');
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assert.equal(messages(b, 'HotfixFallback'), []);
  assert.equal(messages(b, 'Provision'), ['Starting', 'Completed']);
  assertProvisionWaitReturned(b);
});

test('fails the dry-run self-test: not promoted, the reason in the event; the baked agent provisions', async () => {
  const b = await boot('FAIL_SELF_TEST');
  assert.is(b.launcher.exitCode, 0);
  const download = messages(b, 'DownloadHotfix')[0]!;
  assert.match(download, /^outcome=healthCheckFailed /);
  assert.match(
    download,
    'provision --dry-run: exit status 1 (aks-node-controller: self-test stand-in: cannot build the provisioning command)',
  );
  assert.ok(b.launcher.stdout.includes('Using VHD-baked binary: '));
  assert.not.ok(existsSync(imagePaths(b.root).hotfixBinary));
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assert.equal(messages(b, 'Provision'), ['Starting', 'Completed'], 'the self-test emitted no Provision events');
  assertProvisionWaitReturned(b);
});

test("exits with the agent's error after the scripts started: never retried", async () => {
  const b = await boot('ERROR_AFTER_SCRIPTS');
  const out = b.launcher.stdout;
  assert.is(b.launcher.exitCode, 1, out);
  assert.match(messages(b, 'DownloadHotfix')[0]!, /^outcome=staged /);
  assert.ok(out.includes('Using hotfix binary: '));
  assert.ok(out.includes('Hotfix binary failed after the provisioning scripts started (exit 1); not retrying'), out);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION], 'the hotfix provisioned, once');
  // Issue 34: failed under a hotfix -> quarantined (exit code and name), the staged hotfix removed; the
  // scripts never run twice in this boot, the next boot runs the baked agent.
  assert.equal(messages(b, 'HotfixFallback'), [
    `hotfix ${HOTFIX_VERSION} failed provisioning with exit code 1 (ERR_UNSPECIFIED) after the provisioning scripts started; version ${HOTFIX_VERSION} quarantined on this node; this node does not provision again (the unit runs only while provision.complete is absent, and the scripts never run twice): reimage it, and the new node provisions with the baked agent ${BAKED_VERSION}`,
  ]);
  assert.equal(messages(b, 'Provision'), ['Starting', 'Completed']);
  assert.not.ok(existsSync(imagePaths(b.root).hotfixBinary), 'quarantined: the staged hotfix is removed');
  const quarantine = JSON.parse(readFileSync(join(b.root, 'opt/azure/containers/aks-node-controller-hotfix-quarantine.json'), 'utf8'));
  assert.match(JSON.stringify(quarantine), /"cause":"provisionFailed"/);
  assertProvisionWaitReturned(b);
});

test('its `version` run deletes the baked binary: the gate refuses it and puts the baked binary back; baked provisions', async () => {
  const b = await boot('DELETE_BAKED');
  const out = b.launcher.stdout;
  assert.is(b.launcher.exitCode, 0, out + b.launcher.stderr);
  assert.match(
    messages(b, 'DownloadHotfix')[0]!,
    /^outcome=healthCheckFailed .*error=health check: the candidate's runs deleted the baked binary \S+\/aks-node-controller \(restored\)/,
  );
  const p = imagePaths(b.root);
  assert.ok(readFileSync(p.binary).equals(readFileSync(baked)), 'the baked binary is back, byte for byte');
  assert.not.ok(existsSync(p.hotfixBinary));
  assert.equal(
    readdirSync(join(b.root, 'opt/azure/containers')).filter((f) => /pending|guard/.test(f)),
    [],
    'no leftovers',
  );
  assert.ok(out.includes('Using VHD-baked binary: '));
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assertProvisionWaitReturned(b);
});

test('the baked binary is gone under a staged hotfix: the launcher still provisions with the hotfix and writes status', async () => {
  const b = await boot('none');
  assert.equal(provisionedBy(b), [HOTFIX_VERSION]);
  const p = imagePaths(b.root);
  for (const f of [p.binary, p.provisionJson, p.provisionComplete]) rmSync(f, { force: true });
  const again = await runLauncher(b.root);
  assert.is(again.exitCode, 0, again.stdout + again.stderr);
  assert.ok(again.stdout.includes('VHD-baked binary'), again.stdout);
  assert.ok(again.stdout.includes('Using hotfix binary: '), again.stdout);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION, HOTFIX_VERSION]);
  assert.ok(existsSync(p.provisionJson) && existsSync(p.provisionComplete), 'status files written');
  assert.is(JSON.parse(readFileSync(p.provisionJson, 'utf8')).ExitCode, '0');
});

test('a fine hotfix, but the node is outside the wave: notInWave, nothing installed, explain says why', async () => {
  const uuid = '4c4c4544-0036-3510-8058-b7c04f4e3332';
  const percent = 30;
  // The first salt that puts this VM outside a 30% wave (deterministic: no clock, no randomness).
  const salt = Array.from({ length: 50 }, (_, i) => `wave-${i}`).find((s) => waveSeed(uuid, s) >= percent / 100)!;
  const pointer = { hotfixes: { '202604.01': HOTFIX_VERSION }, rollout: { '202604.01': { percent, salt } } };
  const b = await boot('none', { pointer, productUuid: uuid.toUpperCase() });
  assert.is(b.launcher.exitCode, 0);
  assert.equal(JSON.parse(b.stagedPointer).rollout, pointer.rollout, 'check-hotfix staged the waves with the map');
  const download = messages(b, 'DownloadHotfix')[0]!;
  assert.match(
    download,
    /^outcome=notInWave current=202604\.01\.0 target=202604\.01\.1 reason=node is outside the 30% wave for base 202604\.01: seed 0\.\d+, cutoff 0\.3(?: \w+=\S+)*$/,
  );
  assert.not.match(b.launcher.stdout, /Setting up aks-node-controller/);
  assert.ok(b.launcher.stdout.includes('Using VHD-baked binary: '));
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assertProvisionWaitReturned(b);
  const explain = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: b.root, bin: baked })).stdout);
  assert.equal([explain.inWave, explain.reason, explain.cutoff, explain.binary], [false, 'notInWave', 0.3, 'baked']);
  assert.is(explain.seed, waveSeed(uuid, salt));
  // The same node in a wave that includes it takes the hotfix (explain against a raised percent).
  const raised = JSON.parse(readFileSync(join(b.root, 'opt/azure/containers/aks-node-controller-hotfix.json'), 'utf8'));
  raised.rollout['202604.01'].percent = 100;
  writeFileSync(join(work, 'raised.json'), JSON.stringify(raised));
  const wide = JSON.parse(
    (await runAnc(['hotfix', 'explain', '-o', 'json', '--pointer', join(work, 'raised.json')], { root: b.root, bin: baked })).stdout,
  );
  assert.equal([wide.inWave, wide.reason], [true, 'upgrade']);
});

test('the health gate on the boot path: measured for a good hotfix (printed for the report)', async () => {
  const b = await boot('none');
  assert.match(messages(b, 'DownloadHotfix')[0]!, /^outcome=staged /);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION]);
  const [ms] = gateMs(b);
  assert.ok(typeof ms === 'number' && ms >= 0);
  console.log(`\n  health gate (version + dry-run self-test) on the boot path: ${ms} ms`);
});

test.run();

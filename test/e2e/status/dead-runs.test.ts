// `status` tells a live run from a dead one, and keeps boots apart (issue 31): the real launcher and the
// compiled binary in a sandbox whose <root>/proc is either a link to the kernel's /proc (this boot: real
// pids, the real boot id) or a directory with another boot id (after a reboot). A run killed with SIGKILL
// mid-provisioning reads `interrupted` in the same boot and after a reboot; a live run past the extension's
// 15 minutes reads `stalled`; a second boot after a fallback leads with this boot and shows the fallback
// with the boot it happened in. Times are instants: the report is the same under three time zones.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMisbehavingAgent } from '../../fakes/misbehaving-agent.ts';
import { imagePaths, installImage, LAUNCHER, runLauncher, writeHostname, writeStandInProvisionScripts } from '../../fakes/node-image.ts';
import { BIN, runAnc } from '../harness.ts';

const roots: string[] = [];
test.after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function image(sleepSeconds = 0): string {
  const root = mkdtempSync(join(tmpdir(), 'anc-dead-runs-'));
  roots.push(root);
  installImage(root, BIN);
  writeHostname(root);
  writeStandInProvisionScripts(root, { sleepSeconds });
  writeFileSync(imagePaths(root).config, JSON.stringify({ version: 'v1' }), { mode: 0o600 });
  return root;
}

/** This boot: the sandbox sees the kernel's boot id and pids. */
function kernelProc(root: string): void {
  rmSync(join(root, 'proc'), { recursive: true, force: true });
  symlinkSync('/proc', join(root, 'proc'));
}

/** Another boot: a boot id of its own and no processes (every process of the earlier boot ended). */
function rebootedProc(root: string, bootId: string): void {
  rmSync(join(root, 'proc'), { recursive: true, force: true });
  mkdirSync(join(root, 'proc/sys/kernel/random'), { recursive: true });
  writeFileSync(join(root, 'proc/sys/kernel/random/boot_id'), `${bootId}\n`);
}

const logLines = (root: string) =>
  readFileSync(join(root, 'var/log/azure/aks-node-controller.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, string>);

async function status(root: string, env: Record<string, string> = {}) {
  const json = await runAnc(['status', '-o', 'json'], { root, env });
  const text = await runAnc(['status'], { root, env });
  assert.is(json.exitCode, text.exitCode, text.stderr);
  return { code: json.exitCode, report: JSON.parse(json.stdout), text: text.stdout };
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The launcher in a process group of its own, so the whole unit can be killed as systemd or the OOM killer would. */
function startLauncher(root: string): ChildProcess {
  return spawn('bash', [LAUNCHER], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', AKS_NODE_ROOT: root, LOGGER_CMD: 'true' },
    cwd: root,
    detached: true,
    stdio: 'ignore',
  });
}

test('killed mid-provisioning: in-progress while it runs, interrupted (exit 5) in the same boot and after a reboot', async () => {
  const root = image(60);
  kernelProc(root);
  const launcher = startLauncher(root);
  const exited = new Promise((r) => launcher.on('exit', r));
  await until('the scripts to start', () => existsSync(join(root, 'opt/azure/containers/aks-node-controller-scripts-started')));
  const start = logLines(root).find((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision')!;
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  assert.equal([start.bootId, typeof start.pid, typeof start.pidStart], [bootId, 'string', 'string']);

  // Alive: the agent's pid runs with the start time it logged.
  const live = await status(root);
  assert.is(live.code, 3, live.text);
  assert.equal([live.report.state, live.report.run.liveness, live.report.run.pid], ['in-progress', 'alive', Number(start.pid)]);
  assert.match(live.text, /^in-progress: provisioning in progress \(running: Provision since /);
  // No enabledFeatures in the configuration: no features file, and that is not a problem.
  assert.match(live.text, /\n {2}not needed {2}features file: the configuration sets no enabledFeatures, so the boothook writes no /);
  assert.not.match(live.text, /MISSING/);

  // The whole unit killed (SIGKILL, as the OOM killer or a stop does): no result is ever written.
  process.kill(-launcher.pid!, 'SIGKILL');
  await exited;
  await until(
    'the agent to be gone',
    () => !existsSync(`/proc/${start.pid}`) || readFileSync(`/proc/${start.pid}/stat`, 'utf8').includes(') Z'),
    10_000,
  );
  const dead = await status(root);
  assert.is(dead.code, 5, dead.text);
  assert.equal([dead.report.state, dead.report.run.liveness], ['interrupted', 'gone']);
  assert.match(
    dead.text,
    new RegExp(
      `^INTERRUPTED: provisioning started at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(\\d+ s ago\\) in this boot and never finished: its process \\(pid ${start.pid}\\) is gone without writing a result`,
    ),
  );
  console.log(`\n--- killed mid-provisioning, same boot ---\n${dead.text}`);

  // After a reboot: another boot id; the launcher of this boot has not run yet.
  rebootedProc(root, '0c4b1ad5-9f61-4e59-a1f3-5b2a8d6f1e21');
  const after = await status(root);
  assert.is(after.code, 5, after.text);
  assert.equal([after.report.state, after.report.run.liveness], ['interrupted', 'earlier-boot']);
  assert.match(
    after.text,
    /^INTERRUPTED: provisioning started at .* in an earlier boot and never finished; this boot has not started it again/,
  );
  // This boot leads (nothing yet), the killed boot's timeline follows under its own heading.
  assert.equal(
    after.report.boots.map((b: { current: boolean; bootId: string }) => [b.current, b.bootId]),
    [
      [true, '0c4b1ad5-9f61-4e59-a1f3-5b2a8d6f1e21'],
      [false, bootId],
    ],
  );
  assert.match(after.text, /\n {2}Provision +\S+ \S+ +- {2}never finished\n/);
  assert.match(after.text, /\ntimeline, this boot \(boot id 0c4b1ad5\):\n {2}\(no events yet\)\n\ntimeline, an earlier boot \(boot id /);
  console.log(`\n--- killed mid-provisioning, after a reboot ---\n${after.text}`);
});

test('a live run past the 15 min the extension waits -> stalled (exit 6), its pid named', async () => {
  const root = image();
  kernelProc(root);
  // A process that lives (this test's sleep child) stands for the agent; its start line is 22 min old.
  const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    const stat = readFileSync(`/proc/${sleeper.pid}/stat`, 'utf8');
    const pidStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const at = new Date(Date.now() - 22 * 60_000).toISOString();
    writeFileSync(join(root, 'opt/azure/containers/aks-node-controller-scripts-started'), '');
    mkdirSync(join(root, 'var/log/azure'), { recursive: true });
    writeFileSync(
      join(root, 'var/log/azure/aks-node-controller.log'),
      `${JSON.stringify({ time: at, level: 'INFO', msg: 'aks-node-controller started', task: 'Provision', version: '202604.01.0', binary: 'baked', pid: String(sleeper.pid), bootId, pidStart, dryRun: false })}\n`,
    );
    const { code, report, text } = await status(root);
    assert.is(code, 6, text);
    assert.is(report.state, 'stalled');
    assert.match(
      text,
      new RegExp(
        `^STALLED: provisioning started at .* \\(22 min \\d+ s ago\\), running 22 min \\d+ s, beyond the 15 min the extension waits \\(pid ${sleeper.pid} still runs\\)`,
      ),
    );
    // The same pid with another start time is another process: the logged one is gone.
    writeFileSync(
      join(root, 'var/log/azure/aks-node-controller.log'),
      `${JSON.stringify({ time: at, level: 'INFO', msg: 'aks-node-controller started', task: 'Provision', version: '202604.01.0', binary: 'baked', pid: String(sleeper.pid), bootId, pidStart: '1', dryRun: false })}\n`,
    );
    assert.is((await status(root)).report.state, 'interrupted');
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('the same report in every time zone: UTC, Asia/Tokyo, America/New_York', async () => {
  const root = image();
  // The events of a run that started 2 h ago (node-local time on a UTC node; files named in unix ns).
  const at = Date.now() - 2 * 3600_000;
  const local = new Date(at).toISOString().slice(0, 23).replace('T', ' ');
  const events = join(root, 'var/log/azure/Microsoft.Azure.Extensions.CustomScript/events');
  mkdirSync(events, { recursive: true });
  writeFileSync(
    join(events, `${BigInt(at) * 1_000_000n}.json`),
    JSON.stringify({
      Timestamp: local,
      OperationId: local,
      Version: '1.23',
      TaskName: 'AKS.AKSNodeController.Provision',
      EventLevel: 'Informational',
      Message: `Starting | startTime=${local} endTime=${local} durationMs=0`,
      EventPid: '0',
      EventTid: '0',
    }),
  );
  const reports = [];
  for (const TZ of ['UTC', 'Asia/Tokyo', 'America/New_York']) {
    const { code, report, text } = await status(root, { TZ });
    assert.is(code, 6);
    assert.match(text, /\(2 h 0 min ago\), running 2 h 0 min, beyond the 15 min/, `${TZ}: ${text}`);
    reports.push(JSON.stringify({ ...report, run: { ...report.run, elapsedMs: 0 }, summary: report.summary.replace(/\d+ s\b/g, '') }));
  }
  assert.is(reports[1], reports[0]);
  assert.is(reports[2], reports[0]);
});

test('a second boot after a fallback: this boot leads, the fallback is shown with the boot it happened in', async () => {
  const root = image();
  const p = imagePaths(root);
  buildMisbehavingAgent('CRASH_PROVISION', BIN, p.hotfixBinary);
  rebootedProc(root, '11111111-2222-4333-8444-555555555555');
  const first = await runLauncher(root, {}, 120_000);
  assert.is(first.exitCode, 0, first.stdout + first.stderr);
  assert.ok(first.stdout.includes('falling back to the VHD-baked binary'), first.stdout);
  const boot1 = await status(root);
  assert.is(boot1.code, 0, boot1.text);
  assert.match(boot1.text, /^succeeded: provisioning succeeded on the baked agent: hotfix \S+ failed before the scripts \(quarantined\)/);

  rebootedProc(root, '66666666-7777-4888-9999-000000000000');
  const second = await runLauncher(root, {}, 120_000);
  assert.is(second.exitCode, 0, second.stdout + second.stderr);
  const boot2 = await status(root);
  assert.is(boot2.code, 0, boot2.text);
  assert.is(boot2.report.fallback, null, 'the fallback was an earlier boot');
  assert.match(boot2.text, /^succeeded: provisioning succeeded in \d+ s\n/);
  assert.equal(
    boot2.report.boots.map((b: { current: boolean; bootId: string; fallback: unknown }) => [b.current, b.bootId, b.fallback !== null]),
    [
      [true, '66666666-7777-4888-9999-000000000000', false],
      [false, '11111111-2222-4333-8444-555555555555', true],
    ],
  );
  const thisBoot = boot2.text.indexOf('timeline, this boot (boot id 66666666');
  const earlier = boot2.text.indexOf('timeline, an earlier boot (boot id 11111111');
  assert.ok(thisBoot > 0 && earlier > thisBoot, boot2.text);
  assert.match(
    boot2.text.slice(earlier),
    /\n {2}fallback in that boot: hotfix \S+ was killed by signal 11 before the provisioning scripts started/,
  );
  assert.ok(boot2.text.slice(thisBoot, earlier).includes('Provision'), 'this boot has its own Provision row');
  console.log(`\n--- second boot after a fallback ---\n${boot2.text}`);
});

test('staged hotfix the launcher refuses: status and explain use its rules, and agree with the launcher case by case', async () => {
  const root = image();
  const p = imagePaths(root);
  const elf = readFileSync(BIN);
  const otherArch = Buffer.from(elf.subarray(0, 64 * 1024));
  otherArch[18] = 0xb7; // e_machine EM_AARCH64
  otherArch[19] = 0x00;
  const cases: { name: string; write: () => void; refusal: RegExp | null }[] = [
    {
      name: 'wrong architecture',
      write: () => writeFileSync(p.hotfixBinary, otherArch, { mode: 0o755 }),
      refusal: /^it is not an executable for this machine \(ELF arm64 \(aarch64\); the baked agent is ELF x86-64\)$/,
    },
    { name: 'empty', write: () => writeFileSync(p.hotfixBinary, '', { mode: 0o755 }), refusal: /^it is empty \(0 bytes\)$/ },
    {
      name: 'a script',
      write: () => writeFileSync(p.hotfixBinary, '#!/bin/sh\necho 1\n', { mode: 0o755 }),
      refusal: /not an executable for this machine/,
    },
    { name: 'good', write: () => writeFileSync(p.hotfixBinary, elf, { mode: 0o755 }), refusal: null },
  ];
  // A pointer beside the node's files (not the node's own, so the launcher downloads nothing) for explain.
  const pointer = join(root, 'pointer.json');
  writeFileSync(pointer, JSON.stringify({ hotfixes: { '202604.01': '202604.01.9' } }));
  for (const c of cases) {
    rmSync(p.hotfixBinary, { force: true });
    c.write();
    // The launcher itself boots the node with that file staged; it leaves a refused file where it is.
    const boot = await runLauncher(root, {}, 120_000);
    assert.is(boot.exitCode, 0, boot.stdout + boot.stderr);
    const launcherTook = boot.stdout.includes('Using hotfix binary: ');
    assert.is(launcherTook, c.refusal === null, `${c.name}: the launcher and status agree\n${boot.stdout}`);
    const { report, text } = await status(root);
    const explained = await runAnc(['hotfix', 'explain', '-o', 'json', '--pointer', pointer, '--current-version', '202604.01.0'], { root });
    assert.is(explained.exitCode, 0, explained.stderr);
    const explain = JSON.parse(explained.stdout);
    if (c.refusal) {
      assert.ok(boot.stdout.includes('Not using hotfix binary'), boot.stdout);
      assert.is(report.hotfix.stagedAccepted, false, c.name);
      assert.match(report.hotfix.stagedRefusal, c.refusal, c.name);
      assert.match(text, /\n {2}staged {5}staged, but the launcher refuses it: /, c.name);
      assert.equal([explain.binary, explain.stagedRefused?.startsWith('staged, but the launcher refuses it: ')], ['baked', true], c.name);
      if (c.name === 'wrong architecture') console.log(`\n--- refused staged hotfix (${c.name}) ---\n${text}`);
    } else {
      assert.is(report.hotfix.stagedAccepted, true, c.name);
      assert.equal([explain.binary, explain.stagedRefused], ['hotfix', undefined], c.name);
    }
  }
});

test.run();

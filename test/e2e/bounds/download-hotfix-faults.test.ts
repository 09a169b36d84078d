// download-hotfix against process and input faults (issue: fail-open means bounded), with stand-in
// apt-get/dpkg first on PATH in a sandbox root: a package manager that leaves a `setsid` daemon holding
// stdout, one that ignores SIGTERM, an installed binary whose `version` leaves a daemon, a FIFO or
// /dev/zero as the pointer or /etc/os-release, and a SIGKILL mid-staging followed by a rerun. Each run
// asserts the bound (--timeout + 1 s, measured, with slack for a loaded machine), the exit code, the
// DownloadHotfix event, and that no partial file or temp file is left.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ANC_VERSION } from '../check-hotfix/node.ts';
import { BIN, makeSandbox, runAnc, type RunOutcome, type Sandbox } from '../harness.ts';
import { assertWholeEvents, EVENTS_DIR, leftoverTemps, measured, plantDevice, plantFifo, printWorstCases } from './support.ts';

const CONTAINERS = '/opt/azure/containers';
const POINTER = `${CONTAINERS}/aks-node-controller-hotfix.json`;
const HOTFIX = `${CONTAINERS}/aks-node-controller-hotfix`;
const PACKAGE_BINARY = '/usr/bin/aks-node-controller';
/** Slack over a promised bound for a loaded 2-core machine (the measured values are printed). */
const SLACK_MS = 2_000;

const sandboxes: Sandbox[] = [];
const daemonPidFiles: string[] = [];

test.after(() => {
  // The daemons the stand-ins left behind on purpose: stop them, then remove the sandboxes.
  for (const file of daemonPidFiles) {
    if (!existsSync(file)) continue;
    for (const pid of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const sb of sandboxes) sb.cleanup();
  printWorstCases('download-hotfix-faults');
});

interface FakeNode {
  sb: Sandbox;
  pids: string;
  run(args?: string[]): Promise<RunOutcome & { event: Record<string, string> | undefined }>;
}

/** A sandboxed Ubuntu node whose pointer asks for our next patch; `aptInstall` is the body of `apt-get install`. */
function fakeNode(aptInstall: string, options: { aptUpdate?: string } = {}): FakeNode {
  const sb = makeSandbox('anc-bounds-dl-');
  sandboxes.push(sb);
  const pids = sb.path('/daemon-pids');
  daemonPidFiles.push(pids);
  sb.write('/etc/os-release', 'NAME="Ubuntu"\nID=ubuntu\n');
  sb.write('/etc/apt/sources.list.d/microsoft-prod.list', 'deb [arch=amd64] https://example.invalid/ubuntu jammy main\n');
  sb.write('/etc/apt/apt.conf', '// stand-in\n');
  sb.write(POINTER, JSON.stringify({ hotfixes: { [ANC_VERSION.base]: ANC_VERSION.target } }));
  sb.write(`${CONTAINERS}/aks-node-controller`, readFileSync(BIN), 0o755);
  // The node's nbc command file: what the health gate's dry-run self-test provisions against.
  sb.write(`${CONTAINERS}/aks-node-controller-nbc-cmd.sh`, 'exit 0\n');
  const bin = sb.path('/fake-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'dpkg'), '#!/bin/bash\nexit 0\n', { mode: 0o755 });
  const script = [
    '#!/bin/bash',
    `PIDS=${JSON.stringify(pids)}`,
    `ROOT=${JSON.stringify(sb.root)}`,
    'case "$1" in',
    `  update) ${options.aptUpdate ?? 'exit 0'} ;;`,
    `  install) ${aptInstall} ;;`,
    'esac',
    'exit 0',
    '',
  ].join('\n');
  writeFileSync(join(bin, 'apt-get'), script, { mode: 0o755 });
  return {
    sb,
    pids,
    async run(args = []) {
      const out = await runAnc(['download-hotfix', ...args], {
        root: sb.root,
        env: { PATH: `${bin}:${process.env.PATH}` },
        timeoutMs: 120_000,
      });
      const events = sb.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
      assert.is(events.length, 1, `one DownloadHotfix event (stderr: ${out.stderr.slice(-2000)})`);
      assertWholeEvents(sb.path(EVENTS_DIR));
      assert.equal(leftoverTemps(sb.path(CONTAINERS)), [], 'no temp file left beside the staged binary');
      return { ...out, event: events[0] };
    },
  };
}

/** A daemon that leaves the group (setsid) and keeps the inherited stdout/stderr open for 5 minutes. */
const DAEMON = 'setsid sleep 300 & echo $! >> "$PIDS"';
/** The installed agent: prints the requested version (and a command for `provision --dry-run`); `extra` runs first (expanded by the stand-in apt-get). */
const installBinary = (extra = '') =>
  [
    'mkdir -p "$ROOT/usr/bin"',
    `cat > "$ROOT${PACKAGE_BINARY}" <<EOF`,
    '#!/bin/bash',
    // The health gate's dry-run self-test: a provisioning command as JSON.
    `if [ "\\$1" = provision ]; then echo '{"command":["/bin/bash"],"env":{}}'; exit 0; fi`,
    extra,
    `echo ${ANC_VERSION.target}`,
    'exit 0',
    'EOF',
    `chmod 0755 "$ROOT${PACKAGE_BINARY}"`,
  ].join('\n');

const messageOf = (event: Record<string, string> | undefined): string => event?.Message ?? '';
const outcomeOf = (event: Record<string, string> | undefined) => /outcome=(\w+)/.exec(messageOf(event))?.[1];

test('a fetch that takes longer than 10 s logs its progress every 10 s (log lines, none for a person in the journal)', async () => {
  const node = fakeNode(`sleep 11\n${installBinary()}\nexit 0`);
  const run = await node.run();
  assert.is(run.exitCode, 0, run.stderr);
  assert.is(outcomeOf(run.event), 'staged');
  const progress = node.sb
    .read('/var/log/azure/aks-node-controller.log')
    .split('\n')
    .filter((l) => l.includes('"msg":"hotfix download in progress"'));
  assert.is(progress.length, 1, progress.join('\n'));
  assert.match(progress[0]!, /"path":"apt-get","fetchedBytes":\d+,"seconds":1\d\}$/);
  assert.not.match(run.stderr, /download-hotfix: still working/);
});

test('apt-get leaves a setsid daemon holding stdout: the agent does not wait for it', async () => {
  const node = fakeNode(`${DAEMON}; exit 0`);
  const run = await node.run(['--timeout=60']);
  measured('download-hotfix', 'setsid daemon holding stdout', run.durationMs, 10_000);
  assert.is(outcomeOf(run.event), 'verifyFailed');
  assert.is(run.exitCode, 1);
  assert.match(messageOf(run.event), /does not exist after the install/);
  assert.ok(readFileSync(node.pids, 'utf8').trim() !== '', 'the daemon was started');
});

test('apt-get ignores SIGTERM and never ends: killed at the deadline, done within --timeout + 1 s', async () => {
  const node = fakeNode(`trap '' TERM; sleep 300; exit 0`);
  const run = await node.run(['--timeout=3']);
  measured('download-hotfix', 'SIGTERM-ignoring apt-get, --timeout=3', run.durationMs, 3_000 + 1_000 + SLACK_MS);
  const agentMs = Number(/durationMs=(\d+)/.exec(messageOf(run.event))?.[1]);
  assert.ok(agentMs <= 3_000 + 1_000 + SLACK_MS / 2, `the agent's own measure: ${agentMs} ms`);
  assert.is(outcomeOf(run.event), 'installFailed');
  assert.is(run.exitCode, 255, 'killed: 255 (spec 1.4)');
  assert.match(messageOf(run.event), /stopped at the 3s download-hotfix deadline/);
});

test('apt-get ignores SIGTERM and leaves a daemon holding stdout: still within --timeout + 1 s', async () => {
  const node = fakeNode(`trap '' TERM; ${DAEMON}; sleep 300; exit 0`, { aptUpdate: `${DAEMON}; exit 0` });
  const run = await node.run(['--timeout=3']);
  measured('download-hotfix', 'SIGTERM-ignoring apt-get + setsid daemons, --timeout=3', run.durationMs, 3_000 + 1_000 + SLACK_MS);
  assert.is(outcomeOf(run.event), 'installFailed');
  assert.is(run.exitCode, 255);
});

test("the installed binary's `version` leaves a daemon holding stdout: verified and staged anyway", async () => {
  const node = fakeNode(`${installBinary('setsid sleep 300 & echo \\$! >> "$PIDS"')}\nexit 0`);
  const run = await node.run(['--timeout=60']);
  measured('download-hotfix', 'version check leaves a setsid daemon', run.durationMs, 10_000);
  assert.is(outcomeOf(run.event), 'staged', run.stderr.slice(-2000));
  assert.is(run.exitCode, 0);
  assert.is(readFileSync(node.sb.path(HOTFIX), 'utf8'), readFileSync(node.sb.path(PACKAGE_BINARY), 'utf8'), 'the staged binary is whole');
});

test('the pointer is a FIFO or /dev/zero: pointerUnreadable, exit 0, at once', async () => {
  for (const plant of [plantFifo, plantDevice]) {
    const node = fakeNode('exit 0');
    plant(node.sb.path(POINTER));
    const run = await node.run();
    measured('download-hotfix', `pointer ${plant === plantFifo ? 'FIFO' : '/dev/zero'}`, run.durationMs, 5_000);
    assert.is(outcomeOf(run.event), 'pointerUnreadable');
    assert.is(run.exitCode, 0);
    assert.match(messageOf(run.event), /ENOTREG/);
  }
});

test('/etc/os-release is a FIFO: installFailed at once (exit 1), nothing installed', async () => {
  const node = fakeNode(`${installBinary()}\nexit 0`);
  plantFifo(node.sb.path('/etc/os-release'));
  const run = await node.run();
  measured('download-hotfix', 'os-release FIFO', run.durationMs, 5_000);
  assert.is(outcomeOf(run.event), 'installFailed');
  assert.is(run.exitCode, 1);
  assert.match(messageOf(run.event), /reading \/etc\/os-release: ENOTREG/);
  assert.not.ok(existsSync(node.sb.path(HOTFIX)));
});

test('SIGKILL while staging leaves a temp file; the next run removes it and stages whole', async () => {
  // A 200 MB binary: writing and syncing its temp copy takes long enough to be caught in the act.
  const node = fakeNode(`${installBinary()}\nhead -c 200000000 /dev/zero >> "$ROOT${PACKAGE_BINARY}"\nexit 0`);
  const dir = node.sb.path(CONTAINERS);
  const env = { ...process.env, PATH: `${node.sb.path('/fake-bin')}:${process.env.PATH}`, AKS_NODE_ROOT: node.sb.root };
  const killed = await new Promise<boolean>((resolve) => {
    const child = spawn(BIN, ['download-hotfix'], { env, stdio: 'ignore' });
    const watcher = watch(dir, (_event, name) => {
      if (String(name).startsWith('.aks-node-controller-update-')) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => {
      watcher.close();
      resolve(signal === 'SIGKILL');
    });
  });
  assert.ok(killed, 'the run was killed while its temp file existed');
  const left = readdirSync(dir).filter((n) => n.startsWith('.aks-node-controller-update-'));
  assert.is(left.length, 1, 'the kill left the temp file (the fault this test is about)');
  assert.not.ok(existsSync(node.sb.path(HOTFIX)), 'no partial hotfix binary');
  const run = await node.run();
  measured('download-hotfix', 'rerun after SIGKILL (200 MB binary)', run.durationMs, 60_000);
  assert.is(outcomeOf(run.event), 'staged');
  assert.match(run.stderr, new RegExp(`removed temp files left by an interrupted earlier run.*${left[0]}`));
  assert.is(statSync(node.sb.path(HOTFIX)).size, statSync(node.sb.path(PACKAGE_BINARY)).size);
});

test.run();

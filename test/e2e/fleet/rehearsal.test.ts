// `npm run fleet -- --bad`, small: the rehearsal script itself (scripts/fleet.ts) with a hotfix that breaks
// provisioning. The watch must halt after the first wave: the bad hotfix reached only the first wave's
// nodes, every one of them failed, and every other node stayed on the baked agent and succeeded.
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

function fleet(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', '--loader', 'tsm', 'scripts/fleet.ts', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', TMPDIR: process.env.TMPDIR ?? '/tmp' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 480_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('npm run fleet -- --nodes 4 --bad -o json: the watch halts after the first wave, the rest stay baked and succeed', async () => {
  const run = await fleet(['--nodes', '4', '--bad', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = JSON.parse(run.stdout.trim().split('\n').pop()!);
  assert.is(summary.nodes, 4);
  assert.is(summary.reported, 4);
  assert.is(summary.halted, true);
  assert.is(summary.haltedAt.wave, 1);
  // The identities spread evenly: one node of four is under the 25% wave.
  assert.is(summary.tookHotfix, 1);
  assert.is(summary.failed, 1);
  assert.equal(
    summary.byWave.map((w: { percent: number; failed: number; onHotfix: number; onBaked: number }) => [
      w.percent,
      w.failed,
      w.onHotfix,
      w.onBaked,
    ]),
    [
      [25, 1, 0, 3],
      [50, 1, 0, 3],
      [100, 1, 0, 3],
    ],
  );
  assert.match(run.stdout, /-> HALT: applying .*halt\.signed\.yaml \(serial 2\)/);
  assert.match(run.stdout, /FAILED.*\n202604\.01 +ubuntu-22\.04\/amd64 +0% +4 +0 +3 +0 +1 \(ERR_KUBELET_START_FAIL x1\)/);
  assert.match(run.stdout, /HALTED after wave 1 .*: the hotfix reached 1 of 4 nodes/);
  assert.is(summary.rolloutState, 'halted');
});

type Summary = {
  nodes: number;
  reported: number;
  tookHotfix: number;
  failed: number;
  halted: boolean;
  timedOut: number;
  rolloutState: string;
  watchDied: number | null;
  byWave: Array<{ onHotfix: number; failed: number }>;
};
const summaryOf = (stdout: string): Summary => JSON.parse(stdout.trim().split('\n').pop()!);

test('--hang 2: two nodes of the first wave never report; silence is failure: with --max-failed 1 the watch halts at timedOut >= 2', async () => {
  const run = await fleet(['--nodes', '8', '--hang', '2', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = summaryOf(run.stdout);
  assert.is(summary.halted, true);
  assert.ok(summary.timedOut >= 2, `timedOut ${summary.timedOut}`);
  assert.is(summary.failed, 0, 'the hotfix itself never failed');
  assert.is(summary.rolloutState, 'halted');
  assert.match(run.stdout, /timedOut=[2-9]\d* \(max 1\) state=\S+ -> HALT: applying/);
});

test('--gated --watch-dies-after-wave 1: a dead watch stalls the rollout; no node past wave 1 takes the hotfix, every node provisions', async () => {
  const run = await fleet(['--nodes', '8', '--gated', '--watch-dies-after-wave', '1', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = summaryOf(run.stdout);
  assert.is(summary.watchDied, 1);
  assert.is(summary.rolloutState, 'stalled');
  assert.equal([summary.reported, summary.failed], [8, 0], 'every node provisioned and reported');
  assert.equal(
    summary.byWave.map((w) => w.onHotfix),
    [2, 2, 2],
    'only the first wave (2 of 8) is on the hotfix',
  );
  assert.match(run.stdout, /stalled: awaiting evidence for step 2 \(50%\) since \S+/);
  assert.match(run.stdout, /\(awaiting evidence\)/);
});

test('the contrast: --watch-dies-after-wave 1 without --gated widens to every node with nobody watching', async () => {
  const run = await fleet(['--nodes', '8', '--watch-dies-after-wave', '1', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = summaryOf(run.stdout);
  assert.is(summary.watchDied, 1);
  assert.equal([summary.tookHotfix, summary.failed, summary.rolloutState], [8, 0, 'complete']);
});

test('--gated with the watch alive: each gated step opens on the evidence the watch signs, and the rollout completes', async () => {
  const run = await fleet(['--nodes', '8', '--gated', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = summaryOf(run.stdout);
  assert.equal([summary.tookHotfix, summary.failed, summary.halted, summary.rolloutState], [8, 0, false, 'complete']);
  assert.match(run.stdout, /evidence written for pointer serial 1: 202604\.01 step 2 \(50%\): 2 of 8 on the hotfix \(needed 2\)/);
  assert.match(run.stdout, /evidence written for pointer serial 1: 202604\.01 step 3 \(100%\)/);
});

test('npm run fleet -- --nodes 4 --recall -o json: after the good rollout, every node on the recalled hotfix is flagged, no reboot', async () => {
  const run = await fleet(['--nodes', '4', '--recall', '-o', 'json']);
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const summary = JSON.parse(run.stdout.trim().split('\n').pop()!);
  assert.is(summary.halted, false);
  assert.is(summary.tookHotfix, 4, 'the rollout completed first');
  assert.is(summary.recalledFlagged, 4, 'every node on the recalled version carries AKSNodeControllerRecalled');
  assert.is(summary.toReimage, 4);
  // No node booted again after the recall: the last wave's boots are the last ones.
  assert.is(summary.byWave.length, 3);
  assert.match(run.stdout, 'the report timer runs on every node: aks-node-controller report-status --refresh-pointer\n');
  assert.match(
    run.stdout,
    /4 node\(s\) flagged AKSNodeControllerRecalled: this node runs aks-node-controller 202604\.01\.1, which the hotfix pointer \(serial 2\) recalls; it provisioned under it/,
  );
  assert.match(run.stdout, 'to reimage (4): aks-fleet-00, aks-fleet-01, aks-fleet-02, aks-fleet-03\n');
  assert.match(run.stdout, 'recall: 4 of 4 nodes on the recalled hotfix flagged without a reboot; 4 to reimage\n');
});

test.run();

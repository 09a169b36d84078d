// `status` on the compiled binary from files alone (portable): an ongoing boot, a partial one, a node never
// booted. The failed boots through the real launcher are in boot-status.test.ts.
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

test('ongoing boot: Provision started, no status files yet; long ago and no boot id to tell it dead -> stalled, step running', async () => {
  const box = makeSandbox('anc-status-');
  try {
    box.write(
      '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/1000.json',
      '{"Timestamp":"2026-04-01 10:00:00.000","OperationId":"2026-04-01 10:00:00.000","Version":"202604.01.0","TaskName":"AKS.AKSNodeController.Provision","EventLevel":"Informational","Message":"Starting | startTime=2026-04-01 10:00:00.000 endTime=2026-04-01 10:00:00.000 durationMs=0","EventPid":"0","EventTid":"0"}',
    );
    box.write(
      '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/2000.json',
      '{"Timestamp":"2026-04-01 10:00:01.000","OperationId":"2026-04-01 10:00:04.500","Version":"1.23","TaskName":"AKS.CSE.installContainerRuntime","EventLevel":"Informational","Message":"Completed: installContainerRuntime","EventPid":"0","EventTid":"0"}',
    );
    // A half-written event (the node lost power) is a note, not a failure.
    box.write('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/3000.json', '{"Timestamp":"2026-');
    const s = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.is(s.state, 'stalled');
    assert.equal(
      s.timeline.map((t: { task: string; outcome: string; durationMs: number | null }) => [t.task, t.outcome, t.durationMs]),
      [
        ['Provision', 'running', null],
        ['AKS.CSE.installContainerRuntime', 'ok', 3500],
      ],
    );
    assert.ok(s.notes.some((n: string) => n.includes('3000.json')));
    const text = await runAnc(['status'], { root: box.root });
    assert.match(
      text.stdout,
      /^STALLED: provisioning step Provision started at 2026-04-01 10:00:00 UTC \(\d+ h \d+ min ago\), running \d+ h \d+ min, beyond the 15 min the extension waits/,
    );
    assert.is(text.exitCode, 6);
  } finally {
    box.cleanup();
  }
});

test('partial and never-booted nodes: a garbled provision.json and an empty root still give a report', async () => {
  const box = makeSandbox('anc-status-');
  try {
    const empty = await runAnc(['status'], { root: box.root });
    assert.is(empty.exitCode, 4);
    assert.match(empty.stdout, /^not-started: provisioning has not started: the custom data never arrived/);
    box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"5');
    const partial = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.is(partial.state, 'in-progress');
    assert.ok(partial.notes.some((n: string) => n.includes('provision.json is not JSON')));
    box.write('/opt/azure/containers/provision.complete', '');
    box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"240","Error":"unsupported version: v9","Output":""}');
    const config = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.equal(
      [config.state, config.provision.exitCode.name, config.provision.error],
      ['failed', 'ANC_CONFIG_ERROR', 'unsupported version: v9'],
    );
  } finally {
    box.cleanup();
  }
});

test('hotfix decision: status and explain give the one node decision (quarantined, outside the wave, taken)', async () => {
  const box = makeSandbox('anc-status-');
  try {
    const baked = '202604.01.0';
    box.write(
      '/var/log/azure/aks-node-controller.log',
      `${JSON.stringify({ time: '2026-04-01T10:00:00Z', level: 'INFO', msg: 'aks-node-controller check-hotfix started', binary: 'baked', version: baked })}\n`,
    );
    const pointer = (rollout?: object) => JSON.stringify({ hotfixes: { '202604.01': '202604.01.1' }, ...(rollout ? { rollout } : {}) });
    const decision = async () => {
      const status = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout).hotfix.decision;
      const explain = JSON.parse(
        (await runAnc(['hotfix', 'explain', '-o', 'json', '--current-version', baked], { root: box.root })).stdout,
      );
      assert.equal([status.upgrade, status.reason], [explain.upgrade, explain.reason], 'status and explain agree');
      const text = (await runAnc(['status'], { root: box.root })).stdout;
      return { upgrade: status.upgrade, reason: status.reason, line: text.split('\n').find((l) => l.includes('decision')) };
    };
    box.write('/opt/azure/containers/aks-node-controller-hotfix.json', pointer());
    assert.equal(await decision(), { upgrade: true, reason: 'upgrade', line: '  decision   upgrade 202604.01.0 -> 202604.01.1 (upgrade)' });
    // Quarantined here before: status used to say "upgrade" next to the quarantine line.
    box.write(
      '/opt/azure/containers/aks-node-controller-hotfix-quarantine.json',
      JSON.stringify({ versions: [{ version: '202604.01.1', reason: 'crashed before the scripts', recordedAt: '2026-04-01T10:01:00Z' }] }),
    );
    assert.equal(await decision(), { upgrade: false, reason: 'quarantined', line: '  decision   stay on 202604.01.0 (quarantined)' });
    // Outside a 0% wave (no quarantine record).
    rmSync(box.path('/opt/azure/containers/aks-node-controller-hotfix-quarantine.json'));
    box.write('/opt/azure/containers/aks-node-controller-hotfix.json', pointer({ '202604.01': { percent: 0, salt: 's' } }));
    assert.equal(await decision(), { upgrade: false, reason: 'notInWave', line: '  decision   stay on 202604.01.0 (notInWave)' });
  } finally {
    box.cleanup();
  }
});

test('an agent log over 16 MiB: its last MiBs still say which binary ran', async () => {
  const box = makeSandbox('anc-status-');
  try {
    const line = (version: string, binary: string) =>
      `${JSON.stringify({ time: '2026-04-01T10:00:00Z', level: 'INFO', msg: 'aks-node-controller started', task: 'Provision', version, binary })}\n`;
    const filler = `${JSON.stringify({ time: '2026-04-01T10:00:00Z', level: 'INFO', msg: 'x'.repeat(200) })}\n`.repeat(90_000);
    box.write(
      '/var/log/azure/aks-node-controller.log',
      line('202604.01.0', 'baked') + filler + line('202604.01.1', 'hotfix') + filler.slice(0, 1 << 20),
    );
    const s = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.equal(s.binary, { kind: 'hotfix', version: '202604.01.1' });
    assert.equal(s.notes, []);
  } finally {
    box.cleanup();
  }
});

test.run();

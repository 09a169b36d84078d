// `status` on the compiled binary: a failed sandboxed boot (the real launcher, the baked or a staged
// hotfix binary, stand-in scripts exiting 50), an ongoing boot, a partial one, and a node never booted.
import { copyFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, installImage, runLauncher, writeHostname, writeStandInProvisionScripts } from '../../fakes/node-image.ts';
import { BIN, makeSandbox, runAnc } from '../harness.ts';

function failedBoot(options: { hotfix?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'anc-status-'));
  installImage(root, BIN);
  writeHostname(root);
  const p = imagePaths(root);
  writeStandInProvisionScripts(root, { exitCode: 50 });
  // An unknown field: a configuration warning status must show.
  writeFileSync(p.config, JSON.stringify({ version: 'v1', noSuchField: 1 }), { mode: 0o600 });
  if (options.hotfix) {
    copyFileSync(BIN, p.hotfixBinary);
    chmodSync(p.hotfixBinary, 0o755);
    writeFileSync(p.hotfixPointer, JSON.stringify({ hotfixes: { '202604.01': '202604.01.9' } }));
  }
  return { root, p, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

test('failed boot: -o json names exit code 50 ERR_OUTBOUND_CONN_FAIL and the binary that ran', async () => {
  const boot = failedBoot();
  try {
    const launcher = await runLauncher(boot.root, {}, 120_000);
    assert.is(launcher.exitCode, 50, launcher.stdout);
    const r = await runAnc(['status', '-o', 'json'], { root: boot.root });
    assert.is(r.exitCode, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.is(s.state, 'failed');
    assert.equal(s.provision.exitCode, { code: 50, name: 'ERR_OUTBOUND_CONN_FAIL', meaning: s.provision.exitCode.meaning });
    assert.equal(s.failingStep.exitCode.name, 'ERR_OUTBOUND_CONN_FAIL');
    assert.is(s.binary.kind, 'baked');
    const version = (await runAnc(['version'], { root: boot.root })).stdout.trim();
    assert.is(s.binary.version, version);
    assert.ok(s.timeline.some((t: { task: string; outcome: string }) => t.task === 'Provision' && t.outcome === 'error'), JSON.stringify(s.timeline));
    assert.ok(s.configWarnings.some((w: string) => w.includes('noSuchField')), JSON.stringify(s.configWarnings));
    assert.is(s.hotfix.pointer, 'absent');
    // The same report for people: verdict first, the name, the step, which binary.
    const text = await runAnc(['status'], { root: boot.root });
    assert.match(text.stdout, /^FAILED: provisioning FAILED with exit code 50 ERR_OUTBOUND_CONN_FAIL/);
    assert.match(text.stdout, /ran +baked binary, version /);
    assert.match(text.stdout, /timeline:\n +step +start +duration +outcome\n +Provision /);
    const yaml = await runAnc(['status', '-o', 'yaml'], { root: boot.root });
    assert.match(yaml.stdout, /^state: failed\n/);
  } finally {
    boot.cleanup();
  }
});

test('failed boot run by a staged hotfix binary: status says hotfix, and the pointer decision', async () => {
  const boot = failedBoot({ hotfix: true });
  try {
    await runLauncher(boot.root, {}, 120_000);
    const s = JSON.parse((await runAnc(['status', '-o', 'json'], { root: boot.root })).stdout);
    assert.is(s.binary.kind, 'hotfix');
    assert.is(s.hotfix.pointer, 'present');
    assert.is(s.hotfix.staged, true);
    assert.ok(s.hotfix.decision && typeof s.hotfix.decision.reason === 'string');
  } finally {
    boot.cleanup();
  }
});

test('ongoing boot: Provision started, no status files yet -> in-progress, step running', async () => {
  const box = makeSandbox('anc-status-');
  try {
    box.write('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/1000.json',
      '{"Timestamp":"2026-04-01 10:00:00.000","OperationId":"2026-04-01 10:00:00.000","Version":"202604.01.0","TaskName":"AKS.AKSNodeController.Provision","EventLevel":"Informational","Message":"Starting | startTime=2026-04-01 10:00:00.000 endTime=2026-04-01 10:00:00.000 durationMs=0","EventPid":"0","EventTid":"0"}');
    box.write('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/2000.json',
      '{"Timestamp":"2026-04-01 10:00:01.000","OperationId":"2026-04-01 10:00:04.500","Version":"1.23","TaskName":"AKS.CSE.installContainerRuntime","EventLevel":"Informational","Message":"Completed: installContainerRuntime","EventPid":"0","EventTid":"0"}');
    // A half-written event (the node lost power) is a note, not a failure.
    box.write('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/3000.json', '{"Timestamp":"2026-');
    const s = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.is(s.state, 'in-progress');
    assert.equal(s.timeline.map((t: { task: string; outcome: string; durationMs: number | null }) => [t.task, t.outcome, t.durationMs]), [
      ['Provision', 'running', null],
      ['AKS.CSE.installContainerRuntime', 'ok', 3500],
    ]);
    assert.ok(s.notes.some((n: string) => n.includes('3000.json')));
    const text = await runAnc(['status'], { root: box.root });
    assert.match(text.stdout, /^in-progress: provisioning in progress \(running: Provision since 2026-04-01 10:00:00.000\)/);
  } finally {
    box.cleanup();
  }
});

test('partial and never-booted nodes: a garbled provision.json and an empty root still give a report', async () => {
  const box = makeSandbox('anc-status-');
  try {
    const empty = await runAnc(['status'], { root: box.root });
    assert.is(empty.exitCode, 0);
    assert.match(empty.stdout, /^not-started: /);
    box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"5');
    const partial = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.is(partial.state, 'in-progress');
    assert.ok(partial.notes.some((n: string) => n.includes('provision.json is not JSON')));
    box.write('/opt/azure/containers/provision.complete', '');
    box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"240","Error":"unsupported version: v9","Output":""}');
    const config = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.equal([config.state, config.provision.exitCode.name, config.provision.error], ['failed', 'ANC_CONFIG_ERROR', 'unsupported version: v9']);
  } finally {
    box.cleanup();
  }
});

test.run();

// `status` after a failed sandboxed boot: the real launcher, the baked or a staged hotfix binary, stand-in
// provisioning scripts exiting 50 (ERR_OUTBOUND_CONN_FAIL).
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, installImage, runLauncher, writeHostname, writeStandInProvisionScripts } from '../../fakes/node-image.ts';
import { BIN, runAnc } from '../harness.ts';

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
    assert.is(r.exitCode, 2, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.is(s.state, 'failed');
    assert.equal(s.provision.exitCode, { code: 50, name: 'ERR_OUTBOUND_CONN_FAIL', meaning: s.provision.exitCode.meaning });
    assert.equal(s.failingStep.exitCode.name, 'ERR_OUTBOUND_CONN_FAIL');
    assert.is(s.binary.kind, 'baked');
    const version = (await runAnc(['version'], { root: boot.root })).stdout.trim();
    assert.is(s.binary.version, version);
    assert.ok(
      s.timeline.some((t: { task: string; outcome: string }) => t.task === 'Provision' && t.outcome === 'error'),
      JSON.stringify(s.timeline),
    );
    assert.ok(
      s.configWarnings.some((w: string) => w.includes('noSuchField')),
      JSON.stringify(s.configWarnings),
    );
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
    // Which build wrote each step, from the agent log's start lines (the events carry the reference's bytes only).
    type Row = { task: string; agent: boolean; binary?: string; version?: string };
    const rows = (s.timeline as Row[]).filter((t) => t.agent).map((t) => [t.task, t.binary]);
    assert.ok(rows.length >= 2, JSON.stringify(s.timeline));
    assert.equal(
      rows.find(([task]) => task === 'DownloadHotfix'),
      ['DownloadHotfix', 'baked'],
      JSON.stringify(s.timeline),
    );
    assert.equal(
      rows.find(([task]) => task === 'Provision'),
      ['Provision', 'hotfix'],
      JSON.stringify(s.timeline),
    );
    assert.ok(
      (s.timeline as Row[]).filter((t) => t.agent).every((t) => typeof t.version === 'string' && t.version !== ''),
      JSON.stringify(s.timeline),
    );
    const events = `${boot.root}/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events`;
    for (const name of readdirSync(events)) {
      const event = JSON.parse(readFileSync(`${events}/${name}`, 'utf8'));
      if (event.TaskName.startsWith('AKS.AKSNodeController.')) assert.match(event.Message, / durationMs=\d+$/, name);
    }
  } finally {
    boot.cleanup();
  }
});

test.run();

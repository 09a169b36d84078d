// Script hotfixes end to end (issue 21): the sandboxed first boot (real launcher, real apt, apiserver
// stand-in, provision-wait beside it) of an image whose baked provision_start.sh has a bug
// (ERR_KUBELET_START_FAIL), with a hotfix package whose agent carries the fixed script (build.mjs
// --scripts). Each test changes one thing: the apply fails halfway, the hotfix crashes after applying,
// a second boot, an OS with no matching platform, a destination that is a symlink.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION, sandboxedFirstBoot, type BootOptions, type BootResult } from '../../fakes/boot.ts';
import { buildMisbehavingAgent } from '../../fakes/misbehaving-agent.ts';
import { runLauncher } from '../../fakes/node-image.ts';
import { buildAgent, buildHotfixPackages, type HotfixPackages } from '../../fakes/repos.ts';
import {
  BAKED_START,
  BUG,
  buildScriptFix,
  FIXED_HELPER,
  FIXED_START,
  imageManifestFor,
  pinnedFixEntries,
  SCRIPT_LABEL,
} from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-script-hotfix-'));
const C = 'opt/azure/containers';
const BAKED_HELPER = '#!/bin/bash\n# stand-in: nothing to source\n';
let baked = '';
let fixBin = '';
let fixPackages: HotfixPackages;
const boots: BootResult[] = [];

test.before(() => {
  baked = buildAgent(BAKED_VERSION, join(work, 'baked'));
  fixBin = buildScriptFix(HOTFIX_VERSION, join(work, 'fix'));
  fixPackages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'pkg-fix'), { bin: fixBin });
});
test.after(() => {
  for (const b of boots) {
    spawnChattr(join(b.root, C, 'provision_source.sh'), '-i');
    b.cleanup();
  }
  rmSync(work, { recursive: true, force: true });
});

function spawnChattr(path: string, flag: string): void {
  try {
    execFileSync('chattr', [flag, path], { stdio: 'ignore' });
  } catch {}
}

async function boot(extra: Partial<BootOptions> = {}): Promise<BootResult> {
  const b = await sandboxedFirstBoot({
    bakedBin: baked,
    hotfixPackages: fixPackages,
    standIn: { exitCode: BUG.exitCode, note: BUG.note },
    ...extra,
  });
  boots.push(b);
  return b;
}

const messages = (b: { events: Array<Record<string, string>> }, task: string) =>
  b.events.filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`).map((e) => e.Message!.split(' | ')[0]!);
const read = (b: BootResult, rel: string) => readFileSync(join(b.root, rel), 'utf8');
const mode = (b: BootResult, rel: string) => (statSync(join(b.root, rel)).mode & 0o777).toString(8);
const provisionedBy = (b: BootResult) =>
  readFileSync(b.logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision' && l.dryRun === false)
    .map((l) => l.version);
const state = (b: BootResult) => join(b.root, C, 'aks-node-controller-script-hotfix');

function assertBakedScripts(b: BootResult): void {
  assert.is(read(b, `${C}/provision_start.sh`), BAKED_START, 'the baked provision_start.sh, byte for byte');
  assert.is(read(b, `${C}/provision_source.sh`), BAKED_HELPER, 'the baked helper, byte for byte');
  assert.is(mode(b, `${C}/provision_start.sh`), '755');
  assert.is(mode(b, `${C}/provision_source.sh`), '644');
}

function assertFailedWithTheBug(b: BootResult): void {
  assert.is(b.launcher.exitCode, BUG.exitCode, b.launcher.stdout);
  assert.is(JSON.parse(b.provisionWait.stdout).ExitCode, String(BUG.exitCode));
}

test('npm run package -- --scripts DIR packages an executable that carries exactly that payload', () => {
  const r = spawnSync(
    process.execPath,
    [
      'vhd/packaging/build-packages.mjs',
      '--bin',
      fixBin,
      '--arch',
      'amd64',
      '--formats',
      'deb',
      '--fast',
      '--out-dir',
      join(work, 'pkg-check'),
      '--scripts',
      join(work, 'fix', 'payload'),
      '--scripts-label',
      SCRIPT_LABEL,
    ],
    { encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`script payload ${SCRIPT_LABEL.replaceAll('.', '\\.')} \\(4 entries, sha256:[0-9a-f]{64}\\) in every executable`),
  );
  assert.ok(existsSync(join(work, 'pkg-check', `aks-node-controller_${HOTFIX_VERSION}_amd64.deb`)));
});

test('the fix applied: the hotfix replaces the buggy script before the scripts start; provisioning succeeds', async () => {
  const b = await boot();
  assert.is(b.launcher.exitCode, 0, b.launcher.stdout + b.launcher.stderr);
  assert.is(b.provisionWait.exitCode, 0, b.provisionWait.stderr);
  assert.is(JSON.parse(b.provisionWait.stdout).ExitCode, '0');
  assert.equal(provisionedBy(b), [HOTFIX_VERSION]);
  assert.equal(messages(b, 'ScriptHotfix'), [`apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2 unchanged=0 missing=1`]);
  assert.is(read(b, `${C}/provision_start.sh`), FIXED_START);
  assert.is(read(b, `${C}/provision_source.sh`), FIXED_HELPER);
  assert.not.ok(existsSync(join(b.root, C, 'not-on-this-image.sh')), 'replace-only: a file the image lacks is never created');
  const record = JSON.parse(readFileSync(join(state(b), 'record.json'), 'utf8'));
  assert.is(record.state, 'applied');
  assert.equal(
    record.entries.map((e: { destination: string; oldMode: string; newMode: string }) => [e.destination, e.oldMode, e.newMode]),
    [
      ['/opt/azure/containers/provision_start.sh', '0755', '0755'],
      ['/opt/azure/containers/provision_source.sh', '0644', '0644'],
    ],
  );
  const backups = record.entries.map((e: { backup: string }) => readFileSync(join(state(b), 'backups', e.backup), 'utf8'));
  assert.equal(backups, [BAKED_START, BAKED_HELPER], 'the originals are kept');
  assert.ok(read(b, 'var/log/azure/cluster-provision.log').includes('kubelet flags fixed by script hotfix'));

  // Second boot: the same hotfix finds its record, applies nothing twice, never backs up hotfixed bytes.
  const again = await runLauncher(b.root, {}, 150_000);
  assert.is(again.exitCode, 0, again.stdout + again.stderr);
  const events = { events: readEvents(b) };
  assert.equal(
    messages(events, 'ScriptHotfix').at(-1),
    `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=0 unchanged=2 missing=1 already applied (2 replaced earlier)`,
  );
  const after = JSON.parse(readFileSync(join(state(b), 'record.json'), 'utf8'));
  assert.equal(after.entries, record.entries);
  assert.equal(
    after.entries.map((e: { backup: string }) => readFileSync(join(state(b), 'backups', e.backup), 'utf8')),
    [BAKED_START, BAKED_HELPER],
  );
  assert.is(read(b, `${C}/provision_start.sh`), FIXED_START);
});

function readEvents(b: BootResult): Array<Record<string, string>> {
  return readdirSync(b.eventsDir)
    .filter((n: string) => n.endsWith('.json'))
    .sort((x: string, y: string) => (BigInt(x.slice(0, -5)) < BigInt(y.slice(0, -5)) ? -1 : 1))
    .map((n: string) => JSON.parse(readFileSync(join(b.eventsDir, n), 'utf8')));
}

test('apply fails halfway (a read-only destination): rolled back, fallback, the baked scripts byte for byte', async () => {
  const b = await boot({ prepareRoot: (root) => execFileSync('chattr', ['+i', join(root, C, 'provision_source.sh')]) });
  spawnChattr(join(b.root, C, 'provision_source.sh'), '-i');
  const apply = messages(b, 'ScriptHotfix');
  assert.is(apply.length, 1, apply.join('\n'));
  assert.match(
    apply[0]!,
    new RegExp(`^apply label=${SCRIPT_LABEL} platform=ubuntu replaced=0 .*failed: .*(EPERM|operation not permitted).*; rolled back 1$`),
  );
  assert.ok(b.launcher.stdout.includes('Hotfix binary exited with status 1 before the provisioning scripts started'), b.launcher.stdout);
  assert.is(messages(b, 'HotfixFallback').length, 1);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION, BAKED_VERSION]);
  assertBakedScripts(b);
  assert.not.ok(existsSync(join(state(b), 'record.json')), 'a complete rollback leaves no record');
  assertFailedWithTheBug(b);
});

test('the hotfix crashes after applying, before the scripts: the baked agent restores the baked scripts, then provisions', async () => {
  const crashing = buildMisbehavingAgent('CRASH_BEFORE_SCRIPTS', fixBin, join(work, 'crash', 'aks-node-controller'));
  const packages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'pkg-crash'), { bin: crashing });
  const b = await boot({ hotfixPackages: packages });
  assert.ok(b.launcher.stdout.includes('Hotfix binary was killed by signal 11 before the provisioning scripts started'), b.launcher.stdout);
  const scripts = messages(b, 'ScriptHotfix');
  assert.equal(scripts, [
    `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2 unchanged=0 missing=1`,
    `restore label=${SCRIPT_LABEL} reason=fallback restored=2 unchanged=0 problems=0`,
  ]);
  const fallback = messages(b, 'HotfixFallback');
  assert.is(fallback.length, 1);
  assert.match(fallback[0]!, `baked scripts restored: 2 of hotfix ${SCRIPT_LABEL}`);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION, BAKED_VERSION]);
  assertBakedScripts(b);
  assert.not.ok(existsSync(join(state(b), 'record.json')));
  const last = JSON.parse(readFileSync(join(state(b), 'last-restore.json'), 'utf8'));
  assert.equal([last.label, last.reason, last.restored.length], [SCRIPT_LABEL, 'fallback', 2]);
  assertFailedWithTheBug(b);
});

test('an OS with no matching platform: no script hotfix there (logged, not an error); the baked scripts run', async () => {
  const b = await boot({
    prepareRoot: (root) => {
      // Staged by an earlier boot; download-hotfix has no package manager for this OS.
      copyFileSync(fixBin, join(root, C, 'aks-node-controller-hotfix'));
      writeFileSync(join(root, 'etc/os-release'), 'NAME="Debian GNU/Linux"\nID=debian\nVERSION_ID="12"\n');
    },
  });
  assert.ok(b.launcher.stdout.includes('Using hotfix binary: '), b.launcher.stdout);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION]);
  assert.equal(messages(b, 'ScriptHotfix'), [
    `apply label=${SCRIPT_LABEL} skipped: no script hotfix on this node: os-release ID=debian VARIANT_ID=(none) matches no payload platform`,
  ]);
  assertBakedScripts(b);
  assert.not.ok(existsSync(join(state(b), 'record.json')));
  assertFailedWithTheBug(b);
});

test('a destination that is a symlink: never followed; the health gate refuses the hotfix; the baked agent provisions', async () => {
  const b = await boot({
    prepareRoot: (root) => {
      const link = join(root, C, 'provision_source.sh');
      copyFileSync(link, join(root, 'opt/azure/elsewhere.sh'));
      rmSync(link);
      symlinkSync('../elsewhere.sh', link);
    },
  });
  const download = messages(b, 'DownloadHotfix')[0]!;
  assert.match(download, /^outcome=healthCheckFailed /);
  assert.match(download, '/opt/azure/containers/provision_source.sh is a symlink (never followed)');
  assert.ok(b.launcher.stdout.includes('Using VHD-baked binary: '));
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assert.ok(lstatSync(join(b.root, C, 'provision_source.sh')).isSymbolicLink());
  assert.is(readlinkSync(join(b.root, C, 'provision_source.sh')), '../elsewhere.sh');
  assert.is(read(b, 'opt/azure/elsewhere.sh'), BAKED_HELPER, 'the link target is untouched');
  assert.is(read(b, `${C}/provision_start.sh`), BAKED_START);
  assertFailedWithTheBug(b);
  // The dry run shows why, and writes nothing.
  const dry = await runAnc(['provision', '--dry-run', `--provision-config=${join(b.root, C, 'aks-node-controller-config.json')}`], {
    root: b.root,
    bin: fixBin,
  });
  assert.is(dry.exitCode, 1, dry.stderr);
  const plan = JSON.parse(dry.stdout).scripts;
  assert.equal(
    plan.entries.map((e: { destination: string; action: string }) => `${e.action} ${e.destination}`),
    [
      'replace /opt/azure/containers/provision_start.sh',
      'refused /opt/azure/containers/provision_source.sh',
      'missing /opt/azure/containers/not-on-this-image.sh',
    ],
  );
  assert.match(dry.stderr, 'is a symlink (never followed)');
});

// Issue 29: a payload pinned to another image build's provision_start.sh (build.mjs --image-manifest of
// an image whose script differs from this node's).
const pinnedElsewhere = () => {
  const manifest = imageManifestFor(baked, join(work, 'elsewhere'), { exitCode: 50, note: 'another image build' });
  return buildScriptFix(HOTFIX_VERSION, join(work, 'fix-elsewhere'), pinnedFixEntries(), ['--image-manifest', manifest]);
};
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

test('a payload pinned to another image: the health gate refuses it, nothing changes, the baked scripts run', async () => {
  const bin = pinnedElsewhere();
  const b = await boot({ hotfixPackages: buildHotfixPackages(HOTFIX_VERSION, join(work, 'pkg-elsewhere'), { bin }) });
  const download = messages(b, 'DownloadHotfix')[0]!;
  assert.match(download, /^outcome=healthCheckFailed /);
  // The entry and both digests: what this node holds, what the payload was built against.
  assert.match(
    download,
    `/opt/azure/containers/provision_start.sh: a hotfix for another image build: the file holds sha256:${sha(BAKED_START)}, not the image's sha256:`,
  );
  assert.match(download, /\(what the payload was built against\) nor the new sha256:[0-9a-f]{64}\)$/);
  assert.ok(b.launcher.stdout.includes('Using VHD-baked binary: '), b.launcher.stdout);
  assert.equal(provisionedBy(b), [BAKED_VERSION]);
  assert.equal(messages(b, 'ScriptHotfix'), [], 'no apply was attempted');
  assertBakedScripts(b);
  assert.not.ok(existsSync(join(state(b), 'record.json')));
  assertFailedWithTheBug(b);
});

test('a staged hotfix pinned to another image: provision refuses it before the scripts; the launcher falls back', async () => {
  const bin = join(work, 'fix-elsewhere', 'bin', 'aks-node-controller');
  const b = await boot({
    prepareRoot: (root) => {
      // Staged by an earlier boot; this boot's download finds nothing for this OS (the gate is not asked).
      copyFileSync(bin, join(root, C, 'aks-node-controller-hotfix'));
      writeFileSync(join(root, 'etc/os-release'), 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n');
      rmSync(join(root, 'etc/apt/sources.list.d'), { recursive: true, force: true });
    },
  });
  assert.ok(b.launcher.stdout.includes('Using hotfix binary: '), b.launcher.stdout);
  const apply = messages(b, 'ScriptHotfix');
  assert.is(apply.length, 1, apply.join('\n'));
  assert.match(
    apply[0]!,
    `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=0 unchanged=0 missing=0 refused=1: /opt/azure/containers/provision_start.sh: a hotfix for another image build: the file holds sha256:${sha(BAKED_START)}`,
  );
  assert.ok(b.launcher.stdout.includes('before the provisioning scripts started'), b.launcher.stdout);
  assert.is(messages(b, 'HotfixFallback').length, 1);
  assert.equal(provisionedBy(b), [HOTFIX_VERSION, BAKED_VERSION]);
  assertBakedScripts(b);
  assertFailedWithTheBug(b);
});

test.run();

// Issue 32, §3: `apply-embedded-hotfix` applies the binary's script payload with provision's own rules and
// records (idempotent, all or nothing, backups); exit 0 when there is nothing to apply, exit 1 with the
// reason when the payload is refused; a later `provision` sees it as already applied. Then the facts
// launcher (test/fakes/facts-launcher.ts) on a sandboxed image: the helper script absent, and an apply that
// fails (logged, the launcher continues with the hotfix binary).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { installFactsLauncher } from '../../fakes/facts-launcher.ts';
import { imagePaths, runLauncher, writeHostname, writeStandInProvisionScripts } from '../../fakes/node-image.ts';
import { BAKED_START, BUG, buildScriptFix, FIXED_HELPER, FIXED_START, SCRIPT_LABEL } from '../../fakes/script-fix.ts';
import { BIN, makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const HOTFIX_VERSION = '202604.01.1';
const work = mkdtempSync(join(tmpdir(), 'anc-apply-embedded-'));
const C = '/opt/azure/containers';
const BAKED_HELPER = '#!/bin/bash\n# stand-in: nothing to source\n';
const STATE = `${C}/aks-node-controller-script-hotfix`;
let fixBin = '';

test.before(() => {
  fixBin = buildScriptFix(HOTFIX_VERSION, join(work, 'fix'));
});
test.after(() => rmSync(work, { recursive: true, force: true }));

/** An Ubuntu image root with the buggy baked scripts, a configuration and components.json. */
function image(osId = 'ubuntu'): Sandbox {
  const box = makeSandbox('anc-apply-embedded-node-');
  box.write('/etc/os-release', `ID=${osId}\nVERSION_ID="22.04"\n`);
  writeStandInProvisionScripts(box.root, { exitCode: BUG.exitCode, sleepSeconds: 1, note: BUG.note });
  box.write(`${C}/aks-node-controller-config.json`, JSON.stringify({ version: 'v1' }), 0o600);
  return box;
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]));

const scriptEvents = (box: Sandbox) =>
  box
    .events()
    .filter((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix')
    .map((e) => e.Message!.split(' | startTime=')[0]!);

test('no payload in the binary: exit 0, nothing to apply, nothing written', async () => {
  const box = image();
  try {
    const r = await runAnc(['apply-embedded-hotfix'], { root: box.root });
    assert.is(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^nothing to apply: this binary carries no script payload/);
    assert.is(box.read(`${C}/provision_start.sh`), BAKED_START);
    assert.not.ok(existsSync(box.path(STATE)));
  } finally {
    box.cleanup();
  }
});

test("applied once with provision's rules (backups, record), idempotent, and a later provision finds it applied", async () => {
  const box = image();
  try {
    const first = await runAnc(['apply-embedded-hotfix', '-o', 'json'], { root: box.root, bin: fixBin });
    assert.is(first.exitCode, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    assert.equal(
      [report.applied, report.label, report.replaced],
      [true, SCRIPT_LABEL, [`${C}/provision_start.sh`, `${C}/provision_source.sh`]],
    );
    assert.is(box.read(`${C}/provision_start.sh`), FIXED_START);
    assert.is(box.read(`${C}/provision_source.sh`), FIXED_HELPER);
    // The record provision writes, and the image's originals backed up byte for byte.
    const record = JSON.parse(box.read(`${STATE}/record.json`));
    assert.is(record.state, 'applied');
    assert.is(record.label, SCRIPT_LABEL);
    const backups = filesUnder(box.path(STATE)).map((f) => readFileSync(f, 'utf8'));
    assert.ok(
      backups.some((b) => b.includes(BAKED_START)),
      'the baked provision_start.sh is backed up',
    );
    assert.ok(
      backups.some((b) => b.includes(BAKED_HELPER) && !b.includes('"label"')),
      'the baked helper is backed up',
    );

    const again = await runAnc(['apply-embedded-hotfix'], { root: box.root, bin: fixBin });
    assert.is(again.exitCode, 0, again.stderr);
    assert.match(again.stdout, `script hotfix ${SCRIPT_LABEL} already applied (2 file(s) replaced earlier); nothing changed`);
    assert.equal(JSON.parse(box.read(`${STATE}/record.json`)), record, 'the record is unchanged');

    const provision = await runAnc(['provision', `--provision-config=${box.path(`${C}/aks-node-controller-config.json`)}`], {
      root: box.root,
      bin: fixBin,
      timeoutMs: 60_000,
    });
    assert.is(provision.exitCode, 0, provision.stderr);
    const events = scriptEvents(box);
    assert.is(events.length, 3, events.join('\n'));
    assert.match(events[0]!, `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2 `);
    assert.match(events[1]!, 'already applied (2 replaced earlier)');
    assert.match(events[2]!, 'already applied (2 replaced earlier)');
    assert.is(JSON.parse(box.read('/var/log/azure/aks/provision.json')).ExitCode, '0', 'the fixed script ran');
  } finally {
    box.cleanup();
  }
});

test('an OS the payload has no platform for: exit 0, nothing to apply', async () => {
  const box = image('debian');
  try {
    const r = await runAnc(['apply-embedded-hotfix'], { root: box.root, bin: fixBin });
    assert.is(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^nothing to apply: no script hotfix on this node: os-release ID=debian/);
    assert.is(box.read(`${C}/provision_start.sh`), BAKED_START);
  } finally {
    box.cleanup();
  }
});

test('a refused payload: exit 1 with the reason, every file as it was', async () => {
  const box = image();
  try {
    const helper = box.path(`${C}/provision_source.sh`);
    rmSync(helper);
    writeFileSync(box.path(`${C}/real-helper.sh`), BAKED_HELPER);
    symlinkSync('real-helper.sh', helper);
    const r = await runAnc(['apply-embedded-hotfix'], { root: box.root, bin: fixBin });
    assert.is(r.exitCode, 1);
    assert.match(r.stderr, `script hotfix ${SCRIPT_LABEL} refused on this node: ${C}/provision_source.sh: `);
    assert.match(r.stderr, 'hint: The script payload was not applied');
    assert.is(box.read(`${C}/provision_start.sh`), BAKED_START, 'all or nothing: the start script is untouched');
    assert.not.ok(existsSync(box.path(`${STATE}/record.json`)));
  } finally {
    box.cleanup();
  }
});

/** An image root the facts launcher boots: the baked agent (this build) and, optionally, a staged hotfix. */
function launcherImage(options: { helper: boolean; hotfix: boolean }): Sandbox {
  const box = image();
  writeHostname(box.root);
  const p = imagePaths(box.root);
  copyFileSync(BIN, p.binary);
  if (options.hotfix) copyFileSync(fixBin, p.hotfixBinary);
  installFactsLauncher(p.launcher, { helper: options.helper });
  return box;
}

function startLines(box: Sandbox): Array<Record<string, unknown>> {
  return box
    .read('/var/log/azure/aks-node-controller.log')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l.task === 'string' && typeof l.binary === 'string');
}

test('facts launcher: the helper script absent never stops it; the baked binary provisions', async () => {
  const box = launcherImage({ helper: false, hotfix: true });
  try {
    const l = await runLauncher(box.root, {}, 90_000);
    assert.is(l.exitCode, BUG.exitCode, l.stdout + l.stderr);
    assert.match(l.stdout, `Using VHD-baked binary: ${imagePaths(box.root).binary}`);
    assert.not.match(l.stdout, 'Using hotfix binary');
    assert.equal(
      startLines(box).map((s) => [s.task, s.binary]),
      [['Provision', 'baked']],
    );
  } finally {
    box.cleanup();
  }
});

test('facts launcher: a failing apply-embedded-hotfix is logged and the launcher goes on with the hotfix binary', async () => {
  const box = launcherImage({ helper: true, hotfix: true });
  try {
    const helper = box.path(`${C}/provision_source.sh`);
    rmSync(helper);
    writeFileSync(box.path(`${C}/real-helper.sh`), BAKED_HELPER);
    symlinkSync('real-helper.sh', helper);
    const l = await runLauncher(box.root, {}, 90_000);
    const hotfix = imagePaths(box.root).hotfixBinary;
    assert.match(l.stdout, `Using hotfix binary: ${hotfix}`);
    assert.match(l.stdout, 'apply-embedded-hotfix failed (exit 1); continuing');
    assert.match(l.stdout, `provisioning with ${hotfix}`);
    // provision applies the same payload first and refuses it the same way: exit 1 before the scripts.
    assert.is(l.exitCode, 1, l.stdout + l.stderr);
    assert.equal(
      startLines(box).map((s) => [s.task, s.binary]),
      [
        ['ApplyEmbeddedHotfix', 'hotfix'],
        ['Provision', 'hotfix'],
      ],
    );
    assert.is(box.read(`${C}/provision_start.sh`), BAKED_START);
  } finally {
    box.cleanup();
  }
});

test.run();

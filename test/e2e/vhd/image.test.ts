// vhd/install.sh into an image root, the unit checked by systemd itself (systemd-analyze verify --root),
// and the launcher driving the REAL compiled binary in that root.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runAnc } from '../harness.ts';
import {
  imagePaths,
  INSTALL,
  installImage,
  runBoothook,
  runLauncher,
  UNIT,
  writeHostname,
  writeStandInProvisionScripts,
} from '../../fakes/node-image.ts';

const roots: string[] = [];
function image(): { root: string; p: ReturnType<typeof imagePaths> } {
  const root = mkdtempSync(join(tmpdir(), 'anc-image-'));
  roots.push(root);
  installImage(root, BIN);
  writeHostname(root);
  return { root, p: imagePaths(root) };
}
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o7777;

test.after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

test('install.sh: binary (unmodified), launcher, unit with modes, enabled through basic.target.wants', () => {
  const { p } = image();
  assert.is(sha(p.binary), sha(BIN), 'the binary must be copied byte for byte (never stripped)');
  assert.is(mode(p.binary), 0o755);
  assert.is(mode(p.launcher), 0o755);
  assert.is(readFileSync(p.unit, 'utf8'), readFileSync(UNIT, 'utf8'));
  assert.is(mode(p.unit), 0o644);
  assert.ok(lstatSync(p.unitWants).isSymbolicLink());
  assert.is(readlinkSync(p.unitWants), '/etc/systemd/system/aks-node-controller.service');
});

test('install.sh: usage errors', () => {
  const noArgs = spawnSync('bash', [INSTALL], { encoding: 'utf8' });
  assert.is(noArgs.status, 2);
  assert.match(noArgs.stderr, /usage/);
  const root = mkdtempSync(join(tmpdir(), 'anc-image-'));
  roots.push(root);
  const missing = spawnSync('bash', [INSTALL, root, join(root, 'no-such-binary')], { encoding: 'utf8' });
  assert.is(missing.status, 1);
  assert.match(missing.stderr, /not found/);
});

test('the unit: HEAD shape plus a clean environment, and systemd-analyze verify accepts it in the image', () => {
  const { root } = image();
  const unit = readFileSync(UNIT, 'utf8');
  for (const line of [
    'DefaultDependencies=no',
    'After=network-online.target',
    'Wants=network-online.target',
    'Type=oneshot',
    'RemainAfterExit=yes',
    'ExecStart=/opt/azure/containers/aks-node-controller-launcher.sh',
    'WantedBy=basic.target',
  ]) {
    assert.ok(unit.split('\n').includes(line), line);
  }
  // What the unit does, for `systemctl status` (not the reference's "Parse contract and run csecmd").
  assert.ok(
    unit.split('\n').includes('Description=AKS node provisioning (aks-node-controller: configuration, hotfix check, provisioning scripts)'),
  );
  const unset = unit
    .split('\n')
    .find((l) => l.startsWith('UnsetEnvironment='))!
    .split('=')[1]!
    .split(' ');
  for (const hook of ['BUN_OPTIONS', 'BUN_BE_BUN', 'NODE_OPTIONS', 'LD_PRELOAD']) assert.ok(unset.includes(hook), hook);
  const ok = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'aks-node-controller.service'], { encoding: 'utf8' });
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stderr.trim(), '', 'no warnings (unknown keys are only warnings)');
  // The check is real: a unit whose ExecStart is missing in the image fails it.
  rmSync(imagePaths(root).launcher);
  const broken = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'aks-node-controller.service'], { encoding: 'utf8' });
  assert.is.not(broken.status, 0);
  assert.match(broken.stderr, /aks-node-controller-launcher\.sh/);
});

test('real binary: the launcher exits 0 without inputs', async () => {
  const { root } = image();
  const out = await runLauncher(root);
  assert.is(out.exitCode, 0);
  assert.ok(out.stdout.includes('Gracefully exit aks-node-controller without provision config or nbc cmd'));
});

test('real binary: launcher -> provision -> stand-in scripts -> provision.json / complete <- provision-wait', async () => {
  const { root, p } = image();
  writeStandInProvisionScripts(root);
  const config = JSON.stringify({ version: 'v1', clusterConfig: { location: 'westus2' }, enabledFeatures: { FEATURE_A: '1' } });
  writeFileSync(p.config, config, { mode: 0o600 });
  writeFileSync(p.features, 'FEATURE_A=1\n');
  const out = await runLauncher(root, { BUN_OPTIONS: '--smol', NODE_OPTIONS: '--max-old-space-size=1' }, 120_000);
  assert.is(out.exitCode, 0, out.stdout + out.stderr);
  assert.ok(out.stdout.includes(`Using VHD-baked binary: ${p.binary}`));
  assert.ok(out.stdout.includes(`Launching aks-node-controller with config ${p.config}`));
  assert.ok(out.stdout.includes('aks-node-controller completed successfully'));
  // AKS_NODE_ROOT survived the clean environment: everything landed in the sandbox.
  assert.ok(readFileSync(join(root, 'var/log/azure/aks-node-controller.log'), 'utf8').includes('aks-node-controller started'));
  assert.is(JSON.parse(readFileSync(p.provisionJson, 'utf8')).ExitCode, '0');
  assert.ok(statSync(p.provisionComplete).isFile());
  // Feature flags reach the provisioning scripts; runtime hooks do not.
  const names = readFileSync(p.standInEnvNames, 'utf8').split('\n');
  assert.ok(names.includes('FEATURE_A'));
  assert.not.ok(names.includes('BUN_OPTIONS') || names.includes('NODE_OPTIONS'));
  // What the CustomScript extension runs afterwards.
  const wait = await runAnc(['provision-wait'], { root, timeoutMs: 30_000 });
  assert.is(wait.exitCode, 0, wait.stderr);
  assert.is(JSON.parse(wait.stdout).ExitCode, '0');
});

test('real binary: a failing provisioning script gives the launcher the same exit code as a direct run', async () => {
  const { root, p } = image();
  writeStandInProvisionScripts(root, { exitCode: 3 });
  writeFileSync(p.config, JSON.stringify({ version: 'v1' }), { mode: 0o600 });
  const viaLauncher = await runLauncher(root, {}, 120_000);
  assert.is.not(viaLauncher.exitCode, 0);
  rmSync(p.provisionJson);
  rmSync(p.provisionComplete);
  const direct = await runAnc(['provision', `--provision-config=${p.config}`], { root, timeoutMs: 120_000 });
  assert.is(viaLauncher.exitCode, direct.exitCode, `launcher: ${viaLauncher.stdout}\ndirect: ${direct.stderr}`);
  assert.ok(viaLauncher.stdout.includes(`aks-node-controller exited with code ${viaLauncher.exitCode}`));
});

test('real binary: BUN_BE_BUN / BUN_OPTIONS given to the launcher do not turn the agent into bun', async () => {
  const { root, p } = image();
  // Directly, the hook works: the compiled agent becomes plain bun (prints bun's version, not ours).
  const hooked = spawnSync(p.binary, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH, BUN_BE_BUN: '1' } });
  const ours = await runAnc(['--version'], { root });
  assert.is.not(hooked.stdout, ours.stdout, 'BUN_BE_BUN has an effect on a direct run');
  // Through the launcher the agent is ours: provision with an nbc cmd pointing nowhere behaves as without hooks.
  writeFileSync(p.nbcCmd, '');
  const env = { BUN_BE_BUN: '1', BUN_OPTIONS: `--preload ${join(root, 'evil.js')}` };
  writeFileSync(join(root, 'evil.js'), `require('fs').writeFileSync(${JSON.stringify(join(root, 'pwned'))}, 'x')`);
  const withHooks = await runLauncher(root, env, 120_000);
  const without = await runLauncher(root, {}, 120_000);
  assert.is(withHooks.exitCode, without.exitCode);
  assert.not.ok(withHooks.stdout.includes('Bun is a fast JavaScript runtime'), withHooks.stdout);
  assert.throws(() => statSync(join(root, 'pwned')), 'the preload hook ran');
});

test('boot chain on the real binary: custom-data -> boothook -> launcher -> provision -> provision-wait', async () => {
  const { root, p } = image();
  writeStandInProvisionScripts(root);
  const input = join(root, 'input-config.json');
  writeFileSync(input, JSON.stringify({ version: 'v1', clusterConfig: { location: 'westus2' }, enabledFeatures: { FEATURE_B: 'b' } }));
  const rendered = await runAnc(['custom-data', '--raw', input], { root });
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const boothook = runBoothook(root, rendered.stdout);
  assert.is(boothook.exitCode, 0, boothook.stderr);
  assert.equal(boothook.systemctl, ['start --no-block aks-node-controller.service']);
  const out = await runLauncher(root, {}, 120_000);
  assert.is(out.exitCode, 0, out.stdout + out.stderr);
  assert.ok(readFileSync(p.standInEnvNames, 'utf8').split('\n').includes('FEATURE_B'));
  const wait = await runAnc(['provision-wait'], { root, timeoutMs: 30_000 });
  assert.is(wait.exitCode, 0, wait.stderr);
  assert.is(JSON.parse(wait.stdout).ExitCode, '0');
});

test.run();

// Small operator gaps closed in issue 31, each on the compiled binary: `hlep` gets a suggestion, `-ojson`
// is read as kubectl reads it, `render -o text` is a summary (YAML stays the manifest), a missing
// --serial/--expires is named, check-hotfix without root says why in one line and exits 0 (fail-open),
// read-only commands do not hint "readable by root", and the man page lists the environment and files.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-round3-'));
chmodSync(work, 0o755);
test.after(() => rmSync(work, { recursive: true, force: true }));

const RENDER = ['hotfix', 'pointer', 'render', '--hotfix', '202604.01=202604.01.1', '--rollout', '202604.01=10:wave-a'];

test('hlep: did you mean help?', async () => {
  const r = await runAnc(['hlep'], { root: work });
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /^aks-node-controller: unknown command "hlep"; did you mean help\?\n/);
});

test('-ojson, -o json, -o=json and --output json give the same; -o json on a command without -o is still refused', async () => {
  const forms = [['-ojson'], ['-o', 'json'], ['-o=json'], ['--output', 'json'], ['--output=json'], ['-output', 'json']];
  const outs = await Promise.all(forms.map((f) => runAnc(['version', ...f], { root: work })));
  for (const [i, o] of outs.entries()) {
    assert.is(o.exitCode, 0, `${forms[i]!.join(' ')}: ${o.stderr}`);
    assert.is(o.stdout, outs[0]!.stdout, forms[i]!.join(' '));
  }
  assert.ok(JSON.parse(outs[0]!.stdout).version);
  const refused = await runAnc(['provision-wait', '-ojson'], { root: work });
  assert.is(refused.exitCode, 1);
  assert.match(refused.stderr, /(^|\n)Incorrect Usage: flag provided but not defined: -ojson\n/);
});

test('hotfix pointer render: YAML by default, -o text a summary; a missing --serial or --expires is named', async () => {
  const full = [...RENDER, '--serial', '7', '--expires', '2099-12-31T00:00:00Z'];
  const yaml = await runAnc(full, { root: work });
  assert.is(yaml.exitCode, 0, yaml.stderr);
  assert.match(yaml.stdout, /^apiVersion: v1\nkind: ConfigMap\n/);
  const text = await runAnc([...full, '-otext'], { root: work });
  assert.is(text.exitCode, 0, text.stderr);
  assert.not.match(text.stdout, /apiVersion/);
  assert.match(
    text.stdout,
    /^hotfix pointer \(ConfigMap kube-system\/anc-hotfix-version, unsigned\):\n {2}image 202604\.01: take 202604\.01\.1 on 10% of nodes \(wave wave-a\)\n {2}serial {3}7\n {2}expires {2}2099-12-31T00:00:00Z\n/,
  );
  const noSerial = await runAnc([...RENDER, '--expires', '2099-12-31T00:00:00Z'], { root: work });
  assert.is(noSerial.exitCode, 1);
  assert.match(noSerial.stderr, /^aks-node-controller: --serial is missing: /);
  const noExpires = await runAnc([...RENDER, '--serial', '7'], { root: work });
  assert.is(noExpires.exitCode, 1);
  assert.match(noExpires.stderr, /^aks-node-controller: --expires is missing: /);
  const help = await runAnc(['hotfix', 'pointer', 'render', '--help']);
  assert.match(help.stdout, /-o, --output <format> +Output format: yaml \(default, the manifest\), json, or text \(a summary for people\)/);
});

const asNobody = (args: string[], cwd: string) =>
  spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, AKS_NODE_ROOT: join(cwd, 'node') },
    encoding: 'utf8',
  });

test('without root: check-hotfix says why in one line and exits 0; a read-only command does not ask for root', () => {
  if (process.getuid?.() !== 0) return; // the test needs root to become another user
  const cwd = mkdtempSync(join(work, 'user-'));
  chmodSync(cwd, 0o755);
  const check = asNobody(['check-hotfix'], cwd);
  assert.is(check.status, 0, check.stderr);
  assert.is(check.stdout, '');
  const lines = check.stderr.trim().split('\n');
  assert.is(lines.length, 1, check.stderr);
  assert.match(
    lines[0]!,
    /^aks-node-controller check-hotfix: nothing checked: failed to open log file: .*EACCES.*; it needs root \(the launcher runs it at boot as root\); exit 0 \(fail-open\)$/,
  );
  const secret = join(work, 'root-only.json');
  writeFileSync(secret, '{"version":"v1"}', { mode: 0o600 });
  const validate = asNobody(['config', 'validate', secret], cwd);
  assert.is(validate.status, 1);
  assert.match(
    validate.stderr,
    /hint: Check that the file exists, is a regular file and is readable by the user running this command\.\n$/,
  );
  assert.not.match(validate.stderr, /readable by root/);
});

test('status --help documents the verdicts of their own: interrupted (5) and stalled (6), and --wide', async () => {
  const help = (await runAnc(['status', '--help'])).stdout;
  assert.match(help, /\n {2}5 {2}interrupted: provisioning started and its process is gone without a result/);
  assert.match(help, /\n {2}6 {2}stalled: provisioning runs \(or cannot be told dead\) beyond the 15 min the extension waits/);
  assert.match(help, /\n {2}--wide {2,}On a terminal, do not cut table rows/);
});

test('the man page: ENVIRONMENT and FILES name what an operator meets', async () => {
  const man = (await runAnc(['manpage'])).stdout;
  const section = (name: string) => man.slice(man.indexOf(`.SH ${name}`), man.indexOf('.SH', man.indexOf(`.SH ${name}`) + 4));
  const env = section('ENVIRONMENT');
  for (const name of ['AKS_NODE_ROOT', 'ANC_LOG_STDERR', 'ENABLE_PROVISIONING_HOTFIX', 'ANC_HOTFIX_POINTER_SIGNING', 'KUBECONFIG'])
    assert.match(env, `.B ${name}\n`, name);
  const files = section('FILES');
  for (const path of [
    'aks\\-node\\-controller\\-hotfix\\-quarantine.json',
    'aks\\-node\\-controller\\-hotfix\\-serial.json',
    '/opt/azure/containers/aks\\-node\\-controller\\-hotfix\n',
    'aks\\-node\\-controller\\-config.json',
    'aks\\-node\\-controller\\-script\\-hotfix',
    'boot_id',
  ])
    assert.ok(files.includes(path), path);
  const rendered = spawnSync('man', ['-l', '-'], { input: man, encoding: 'utf8', env: { ...process.env, MANWIDTH: '100' } });
  if (rendered.status === 0) assert.match(rendered.stdout, /ANC_HOTFIX_POINTER_SIGNING\n/);
});

test.run();

// What operators get on the node: install.sh refusing wrong binaries and answering --help, the unit
// sending the launcher's output to the serial console, `status` in the launcher's output after a failed
// provisioning, and packages carrying the man page and completion, rpmlint clean.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildPackages, rpmlintProblems } from '../../../vhd/packaging/build-packages.mjs';
import {
  imagePaths,
  INSTALL,
  installImage,
  runLauncher,
  UNIT,
  writeHostname,
  writeStandInProvisionScripts,
} from '../../fakes/node-image.ts';
import { BIN } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-operators-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const install = (...args: string[]) => spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8' });

test('install.sh --help, and it refuses a non-ELF file, the wrong architecture and a binary that does not answer version', () => {
  const help = install('--help');
  assert.is(help.status, 0);
  assert.match(help.stdout, /^install\.sh: install aks-node-controller into an image root/);
  assert.match(help.stdout, /--arch A/);
  const root = mkdtempSync(join(work, 'image-'));
  const script = join(work, 'script');
  writeFileSync(script, '#!/bin/sh\necho 202604.01.0\n', { mode: 0o755 });
  assert.match(install(root, script).stderr, /refusing .*script: not a Linux executable/);
  const otherArch = process.arch === 'x64' ? 'arm64' : 'amd64';
  const wrong = install('--arch', otherArch, root, BIN);
  assert.is(wrong.status, 1);
  assert.match(wrong.stderr, new RegExp(`not a linux-${otherArch} executable`));
  // A real ELF executable of the right architecture that is not the agent: no version, refused.
  const silent = install(root, '/usr/bin/true');
  assert.is(silent.status, 1);
  assert.match(silent.stderr, /`version` did not print a YYYYMM\.DD\.PATCH version/);
  assert.equal(spawnSync('find', [root, '-type', 'f'], { encoding: 'utf8' }).stdout, '', 'nothing installed by a refused run');
  assert.is(install('--bogus').status, 2);
  const ok = install(root, BIN);
  assert.is(ok.status, 0, ok.stderr);
  // On PATH as the baked binary, with the man page and completion; the output lists what went where.
  assert.is(readlinkSync(join(root, 'usr/local/bin/aks-node-controller')), '/opt/azure/containers/aks-node-controller');
  const listed = [
    '/opt/azure/containers/aks-node-controller',
    '/usr/local/bin/aks-node-controller -> /opt/azure/containers/aks-node-controller',
    '/usr/local/share/man/man8/aks-node-controller.8.gz',
    '/usr/local/share/bash-completion/completions/aks-node-controller',
    '/usr/local/share/zsh/site-functions/_aks-node-controller',
  ];
  for (const line of listed) assert.ok(ok.stdout.includes(`\n  ${line}`), `${line} listed in: ${ok.stdout}`);
  const share = join(root, 'usr/local/share');
  const man = execFileSync('sh', ['-c', 'gunzip -c "$1"', 'sh', join(share, 'man/man8/aks-node-controller.8.gz')]).toString();
  assert.match(man, /^\.TH AKS\\-NODE\\-CONTROLLER 8 /);
  assert.match(man, /status/);
  // The installed completion, as bash-completion would load it, completes a subcommand.
  const bash = spawnSync(
    'bash',
    [
      '--norc',
      '-c',
      'source "$1"; COMP_WORDS=(aks-node-controller stat); COMP_CWORD=1; _aks_node_controller; echo "${COMPREPLY[*]}"',
      'bash',
      join(share, 'bash-completion/completions/aks-node-controller'),
    ],
    { encoding: 'utf8' },
  );
  assert.is(bash.stdout, 'status\n', bash.stderr);
  assert.match(readFileSync(join(share, 'zsh/site-functions/_aks-node-controller'), 'utf8'), /^#compdef aks-node-controller\n/);
  // The link resolves inside the image: the runbook's `aks-node-controller status` runs the baked agent.
  assert.is(statSync(join(root, 'opt/azure/containers/aks-node-controller')).mode & 0o777, 0o755);
});

test('the unit sends the launcher output to the serial console too; after a failure the launcher prints status', async () => {
  const unit = readFileSync(UNIT, 'utf8').split('\n');
  assert.ok(unit.includes('StandardOutput=journal+console'));
  assert.ok(unit.includes('StandardError=journal+console'));
  const root = mkdtempSync(join(work, 'node-'));
  installImage(root, BIN);
  writeHostname(root);
  writeStandInProvisionScripts(root, { exitCode: 50 });
  writeFileSync(imagePaths(root).config, JSON.stringify({ version: 'v1' }), { mode: 0o600 });
  const out = await runLauncher(root, {}, 120_000);
  assert.is(out.exitCode, 50);
  assert.match(out.stdout, /aks-node-controller exited with code 50\n/);
  assert.match(out.stdout, /FAILED: provisioning FAILED with exit code 50 ERR_OUTBOUND_CONN_FAIL/);
  // systemd accepts the unit in the image (journal+console is a valid output).
  const verify = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'aks-node-controller.service'], { encoding: 'utf8' });
  assert.is(verify.status, 0, verify.stderr);
  assert.is(verify.stderr.trim(), '');
});

test('packages ship the man page and bash/zsh completion; rpmlint and lintian find nothing', () => {
  const out = buildPackages({
    bins: { amd64: BIN },
    outDir: join(work, 'pkg'),
    version: '202604.01.3',
    fast: true,
    formats: ['deb', 'rpm'],
  });
  const deb = out.find((p) => p.format === 'deb')!.file;
  const rpm = out.find((p) => p.format === 'rpm')!.file;
  const debFiles = execFileSync('dpkg-deb', ['-c', deb]).toString();
  for (const path of [
    'usr/share/man/man8/aks-node-controller.8.gz',
    'usr/share/bash-completion/completions/aks-node-controller',
    'usr/share/zsh/vendor-completions/_aks-node-controller',
  ]) {
    assert.match(debFiles, new RegExp(`-rw-r--r-- root/root .* \\./${path}\\n`), path);
  }
  const rpmFiles = execFileSync('rpm', ['-qlp', rpm]).toString();
  for (const path of [
    '/usr/share/man/man8/aks-node-controller.8.gz',
    '/usr/share/bash-completion/completions/aks-node-controller',
    '/usr/share/zsh/site-functions/_aks-node-controller',
  ]) {
    assert.ok(rpmFiles.includes(path), path);
  }
  assert.match(
    execFileSync('rpm', ['-qp', '--changelog', rpm]).toString(),
    /^\* \w{3} \w{3} \d\d \d{4} .+ - 202604\.01\.3-1\n- Release 202604\.01\.3\./,
  );
  assert.match(execFileSync('rpm', ['-qp', '--qf', '%{GROUP}', rpm]).toString(), /^System Environment\/Daemons$/);
  assert.equal(rpmlintProblems(rpm), []);
  // The man page renders and carries the package version; completion completes a subcommand.
  const man = execFileSync('sh', [
    '-c',
    'rpm2cpio "$1" | cpio --quiet -i --to-stdout ./usr/share/man/man8/aks-node-controller.8.gz | gunzip',
    'sh',
    rpm,
  ]).toString();
  assert.match(man, /^\.TH AKS\\-NODE\\-CONTROLLER 8 "" "aks\\-node\\-controller 202604\.01\.3"/);
  const rendered = spawnSync('man', ['-l', '-'], { input: man, encoding: 'utf8', env: { ...process.env, MANWIDTH: '100' } });
  if (rendered.status === 0) assert.match(rendered.stdout, /config diff/);
  const bash = spawnSync(
    'bash',
    [
      '-c',
      `source <(${BIN} completion bash); COMP_WORDS=(aks-node-controller config di); COMP_CWORD=2; _aks_node_controller; echo "\${COMPREPLY[*]}"`,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH, AKS_NODE_ROOT: work } },
  );
  assert.is(bash.stdout, 'diff\n', bash.stderr);
});

test.run();

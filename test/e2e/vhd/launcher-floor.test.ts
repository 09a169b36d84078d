// The launcher's floor under a staged hotfix and its feature-flag allow-list, through the real launcher
// installed by install.sh with the real compiled agent baked in: a hotfix executable that is empty, a
// script, an ELF for another machine, or an ELF whose `version` fails is never run, and the baked agent
// provisions (the status files appear, provision-wait succeeds). Feature flags that would reach the
// package manager (APT_CONFIG, SSL_*, *_proxy, PERL5*, GCONV_PATH, LD_*, BASH_ENV) are refused and logged.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  imagePaths,
  installImage,
  recordedCalls,
  runLauncher,
  writeFakeAgent,
  writeHostname,
  writeStandInProvisionScripts,
} from '../../fakes/node-image.ts';
import { BIN, runAnc } from '../harness.ts';

const roots: string[] = [];
test.after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function bakedNode(): { root: string; p: ReturnType<typeof imagePaths> } {
  const root = mkdtempSync(join(tmpdir(), 'anc-launcher-floor-'));
  roots.push(root);
  installImage(root, BIN);
  writeStandInProvisionScripts(root);
  writeHostname(root);
  const p = imagePaths(root);
  writeFileSync(p.config, JSON.stringify({ version: 'v1' }), { mode: 0o600 });
  return { root, p };
}

/** The baked agent's bytes with e_machine (bytes 18-19) set to another architecture. */
function elfForOtherMachine(): Buffer {
  const bytes = readFileSync(BIN);
  const otherMachine = bytes.readUInt16LE(18) === 0x3e ? 0xb7 : 0x3e; // x86-64 <-> aarch64
  const out = Buffer.from(bytes);
  out.writeUInt16LE(otherMachine, 18);
  return out;
}

const BROKEN_HOTFIXES: Array<[string, () => Buffer | string, RegExp]> = [
  ['a 0-byte file', () => '', /Not using hotfix binary \S+: it is empty/],
  ['a shell script', () => '#!/bin/sh\nexit 0\n', /Not using hotfix binary \S+: not an executable for this machine/],
  ['an ELF for another machine', elfForOtherMachine, /Not using hotfix binary \S+: not an executable for this machine/],
  ['an ELF whose `version` fails', () => readFileSync('/bin/false'), /Not using hotfix binary \S+: its version check failed/],
];

for (const [what, content, said] of BROKEN_HOTFIXES) {
  test(`a staged hotfix that is ${what} is not run: the baked agent provisions`, async () => {
    const { root, p } = bakedNode();
    writeFileSync(p.hotfixBinary, content());
    chmodSync(p.hotfixBinary, 0o755);
    const out = await runLauncher(root, {}, 60_000);
    assert.is(out.exitCode, 0, out.stdout + out.stderr);
    assert.match(out.stdout, said);
    assert.ok(out.stdout.includes(`Using VHD-baked binary: ${p.binary}`), out.stdout);
    assert.ok(existsSync(p.provisionComplete), 'provisioning ran: the sentinel exists');
    assert.is(JSON.parse(readFileSync(join(root, 'var/log/azure/aks/provision.json'), 'utf8')).ExitCode, '0');
    const wait = await runAnc(['provision-wait', '--timeout=10'], { root });
    assert.is(wait.exitCode, 0, wait.stderr);
    assert.ok(out.durationMs < 30_000, `launcher took ${out.durationMs} ms`);
  });
}

test('a healthy staged hotfix (the agent itself) still passes the floor and provisions', async () => {
  const { root, p } = bakedNode();
  copyFileSync(BIN, p.hotfixBinary);
  chmodSync(p.hotfixBinary, 0o755);
  const out = await runLauncher(root);
  assert.is(out.exitCode, 0, out.stdout + out.stderr);
  assert.match(out.stdout, /Hotfix binary \S+ reports version \d{6}\.\d{2}\.\d+/);
  assert.ok(out.stdout.includes(`Using hotfix binary: ${p.hotfixBinary}`));
  assert.ok(existsSync(p.provisionComplete));
});

test('feature flags that would reach the package manager are refused and logged; others pass', async () => {
  const root = mkdtempSync(join(tmpdir(), 'anc-launcher-floor-'));
  roots.push(root);
  const p = imagePaths(root);
  const rec = join(root, 'calls');
  writeFakeAgent(p.binary, rec);
  writeHostname(root);
  mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
  writeFileSync(p.config, '{}');
  const refused = [
    'APT_CONFIG=/tmp/evil-apt.conf',
    'SSL_CERT_FILE=/tmp/evil-ca.pem',
    'SSL_CERT_DIR=/tmp/evil',
    'http_proxy=http://evil:3128',
    'HTTPS_PROXY=http://evil:3128',
    'no_proxy=*',
    'PERL5OPT=-Mevil',
    'PERL5LIB=/tmp/evil',
    'GCONV_PATH=/tmp/evil',
    'LD_PRELOAD=/tmp/evil.so',
    'BASH_ENV=/tmp/evil.sh',
    'DPKG_ADMINDIR=/tmp/evil',
    'PYTHONPATH=/tmp/evil',
    'GNUPGHOME=/tmp/evil',
  ];
  writeFileSync(p.features, [...refused, 'FEATURE_OK=1', 'ENABLE_SOMETHING=true', ''].join('\n'));
  const out = await runLauncher(root);
  assert.is(out.exitCode, 0, out.stderr);
  const env = recordedCalls(rec).at(-1)!.env;
  for (const line of refused) {
    const name = line.split('=')[0]!;
    assert.is(env[name], undefined, `${name} reached the agent`);
    assert.match(out.stdout, new RegExp(`Ignoring reserved feature flag name ${name} \\(it would reach`));
  }
  assert.is(env.FEATURE_OK, '1');
  assert.is(env.ENABLE_SOMETHING, 'true');
});

test('/etc/hostname is a FIFO: the launcher does not block on it (the hostname wait bound holds)', async () => {
  const { root, p } = bakedNode();
  rmSync(p.hostnameFile, { force: true });
  execFileSync('mkfifo', [p.hostnameFile]);
  const out = await runLauncher(root, { HOSTNAME_WAIT_TIMEOUT: '2' }, 30_000);
  assert.is(out.exitCode, 0, out.stdout + out.stderr);
  assert.match(out.stdout, /Hostname did not match \S+ after 2s; continuing/);
  assert.ok(out.durationMs < 20_000, `took ${out.durationMs} ms`);
});

test.run();

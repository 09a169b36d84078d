// Issue 40 (Low): vhd/install.sh names the architecture of a binary it refuses and the flag that takes it,
// and says which version it installed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-install-arch-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const install = (args: string[]) =>
  spawnSync('bash', ['vhd/install.sh', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });

test('an arm64 executable for an amd64 image: refused, naming arm64 and --arch arm64', () => {
  const arm64 = join(work, 'aks-node-controller-linux-arm64');
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 2; // ELFCLASS64
  header.writeUInt16LE(0xb7, 18); // EM_AARCH64
  writeFileSync(arm64, header, { mode: 0o755 });
  const root = mkdtempSync(join(work, 'root-'));
  const r = install(['--arch', 'amd64', root, arm64]);
  assert.is(r.status, 1, r.stderr);
  assert.is(
    r.stderr,
    `install.sh: refusing ${arm64}: not a linux-amd64 executable: it is a linux-arm64 executable (aarch64); for an arm64 image pass --arch arm64\n`,
  );
});

test('installed: the version and architecture it installed', () => {
  if (process.arch !== 'x64') return;
  const version = spawnSync(BIN, ['version'], { encoding: 'utf8', env: { AKS_NODE_ROOT: work } }).stdout.trim();
  const root = mkdtempSync(join(work, 'root-'));
  const r = install(['--arch', 'amd64', root, BIN]);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, `installed aks-node-controller ${version} (linux-amd64) into ${root}:`);
});

test.run();

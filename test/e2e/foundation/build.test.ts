// build.mjs on this machine: stamping, reproducibility, every shipped target, arm64 under qemu-user.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureArm64Sysroot } from '../../support/arm64-sysroot.mjs';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-build-'));
const build = (outdir: string, args: string[] = [], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['build.mjs', '--quiet', '--outdir', outdir, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });

test('ANC_VERSION is stamped; the same sources and version give byte-identical executables', async () => {
  const a = build(join(work, 'a'), [], { ANC_VERSION: '202604.01.7' });
  const b = build(join(work, 'b'), [], { ANC_VERSION: '202604.01.7' });
  assert.is(a.status, 0, a.stderr);
  assert.is(b.status, 0, b.stderr);
  const first = readFileSync(join(work, 'a', 'aks-node-controller'));
  const second = readFileSync(join(work, 'b', 'aks-node-controller'));
  assert.ok(first.equals(second), 'two builds are byte-identical');
  const sandbox = mkdtempSync(join(tmpdir(), 'anc-root-'));
  const r = await runAnc(['version'], { root: sandbox, bin: join(work, 'a', 'aks-node-controller') });
  rmSync(sandbox, { recursive: true, force: true });
  assert.is(r.stdout, '202604.01.7\n');
});

test('a malformed ANC_VERSION is rejected with one clear line', () => {
  for (const bad of ['dev', '2026.04.01', '202604.1.0', '202604.01.1-1', '202604.01.1 ']) {
    const r = build(join(work, 'bad'), [], { ANC_VERSION: bad });
    assert.is(r.status, 1, bad);
    assert.match(r.stderr, /ANC_VERSION .* is not YYYYMM\.DD\.PATCH/);
    assert.is(r.stderr.trimEnd().split('\n').length, 1);
  }
});

test('a missing target runtime fails with one line naming the target and why', () => {
  const r = build(join(work, 'none'), ['--all'], { ANC_RUNTIMES_DIR: join(work, 'no-runtimes') });
  assert.is(r.status, 1);
  assert.match(r.stderr, /^build: target linux-amd64: runtime @oven\/bun-linux-x64-baseline@1\.4\.5 is not installed/);
  assert.is(r.stderr.trimEnd().split('\n').length, 1);
  // The step that helps: npm ci for this machine's runtime, npm run runtimes for the other targets'.
  assert.match(r.stderr, process.platform === 'linux' && process.arch === 'x64' ? /\(run npm ci;/ : /\(run npm run runtimes:/);
  // Only this machine's runtime present (what a bare npm ci leaves): the other targets name npm run runtimes.
  const hostOnly = join(work, 'host-runtime-only', '@oven');
  mkdirSync(hostOnly, { recursive: true });
  const hostPkg =
    process.platform === 'darwin' ? 'bun-darwin-aarch64' : process.arch === 'x64' ? 'bun-linux-x64-baseline' : 'bun-linux-aarch64';
  symlinkSync(join(process.cwd(), 'node_modules', '@oven', hostPkg), join(hostOnly, hostPkg));
  const other = build(join(work, 'none'), ['--all'], { ANC_RUNTIMES_DIR: dirname(hostOnly) });
  assert.is(other.status, 1);
  assert.match(other.stderr, /\(run npm run runtimes: npm ci installs only this machine's runtime/);
});

test('--all builds linux amd64, linux arm64 and darwin arm64 with the right headers', () => {
  const out = join(work, 'all');
  const r = build(out, ['--all'], { ANC_VERSION: '202604.01.3' });
  assert.is(r.status, 0, r.stderr);
  const head = (name: string) => readFileSync(join(out, `aks-node-controller-${name}`)).subarray(0, 20);
  const amd64 = head('linux-amd64');
  const arm64 = head('linux-arm64');
  assert.is(amd64.subarray(0, 4).toString('latin1'), '\x7fELF');
  assert.is(amd64.readUInt16LE(18), 0x3e, 'EM_X86_64');
  assert.is(arm64.readUInt16LE(18), 0xb7, 'EM_AARCH64');
  const macho = head('darwin-arm64');
  assert.is(macho.readUInt32LE(0), 0xfeedfacf, 'MH_MAGIC_64');
  assert.is(macho.readUInt32LE(4), 0x0100000c, 'CPU_TYPE_ARM64');
  assert.is(macho.readUInt32LE(12), 2, 'MH_EXECUTE');
});

// Needs qemu-user and apt-get (for Debian's arm64 libc); where they are missing (macOS, PATH without the
// Debian tools) the test says so and is skipped.
const missingForQemu = ['qemu-aarch64-static', 'apt-get'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missingForQemu.length > 0) process.stdout.write(`skip: linux-arm64 under qemu-user (needs ${missingForQemu.join(', ')})\n`);
(missingForQemu.length > 0 ? test.skip : test)('the linux-arm64 executable answers `version` under qemu-user', () => {
  const sysroot = ensureArm64Sysroot();
  const sandbox = mkdtempSync(join(tmpdir(), 'anc-root-'));
  try {
    const stdout = execFileSync('qemu-aarch64-static', ['-L', sysroot, join(work, 'all', 'aks-node-controller-linux-arm64'), 'version'], {
      env: { PATH: process.env.PATH ?? '', AKS_NODE_ROOT: sandbox },
      encoding: 'utf8',
    });
    assert.is(stdout, '202604.01.3\n');
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();

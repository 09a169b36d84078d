// vhd/packaging: .deb/.rpm metadata, file mode, no auto-dependencies, lintian clean, byte-reproducible,
// and the packaged executable byte-identical to the build output (never stripped).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildPackages, lintianErrors } from '../../../vhd/packaging/build-packages.mjs';
import { BIN } from '../harness.ts';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const sh = (cmd: string, ...args: string[]) => execFileSync('sh', ['-c', cmd, 'sh', ...args], { maxBuffer: 512 * 1024 * 1024 });
const work = mkdtempSync(join(tmpdir(), 'anc-pkg-e2e-'));
// A small real ELF executable stands in for the 110 MB agent where only the package layout matters.
const small = join(work, 'stand-in');
copyFileSync('/usr/bin/true', small);

test.after(() => rmSync(work, { recursive: true, force: true }));

test('release packages: zstd deb member and rpm payload, xz on request', () => {
  const out = buildPackages({ bins: { amd64: small }, outDir: join(work, 'zst'), version: '202604.01.3' });
  assert.match(sh('ar t "$1"', out.find((p) => p.format === 'deb')!.file).toString(), 'data.tar.zst', 'release deb: zstd');
  assert.is(execFileSync('rpm', ['-qp', '--qf', '%{PAYLOADCOMPRESSOR}', out.find((p) => p.format === 'rpm')!.file]).toString(), 'zstd');
  const xz = buildPackages({
    bins: { amd64: small },
    outDir: join(work, 'xz'),
    version: '202604.01.3',
    compression: 'xz',
    formats: ['rpm'],
  });
  assert.is(execFileSync('rpm', ['-qp', '--qf', '%{PAYLOADCOMPRESSOR}', xz[0]!.file]).toString(), 'xz');
});

test('xz .deb: control fields, 0755 root-owned binary, lintian without errors', () => {
  const [deb] = buildPackages({
    bins: { amd64: small },
    outDir: join(work, 'rel'),
    version: '202604.01.3',
    formats: ['deb'],
    compression: 'xz',
  });
  assert.is(deb!.file, join(work, 'rel', 'aks-node-controller_202604.01.3_amd64.deb'));
  const field = (f: string) => execFileSync('dpkg-deb', ['-f', deb!.file, f]).toString().trim();
  assert.is(field('Package'), 'aks-node-controller');
  assert.is(field('Version'), '202604.01.3');
  assert.is(field('Architecture'), 'amd64');
  assert.is(field('Depends'), 'libc6 (>= 2.17)');
  assert.match(field('Maintainer'), /<.+@.+>/);
  assert.match(field('Description'), 'AKS node controller');
  const listing = execFileSync('dpkg-deb', ['-c', deb!.file]).toString();
  assert.match(listing, /-rwxr-xr-x root\/root .* \.\/usr\/bin\/aks-node-controller\n/);
  assert.match(sh('ar t "$1"', deb!.file).toString(), 'data.tar.xz', '--compression xz');
  assert.equal(lintianErrors(deb!.file), []);
});

test('.rpm: rpm -qip metadata, only glibc required (AutoReqProv no), 0755 root-owned binary', () => {
  const [rpm] = buildPackages({ bins: { amd64: small }, outDir: join(work, 'rpm'), version: '202604.01.3', formats: ['rpm'], fast: true });
  const info = execFileSync('rpm', ['-qip', rpm!.file]).toString();
  assert.match(info, /Name\s+: aks-node-controller\n/);
  assert.match(info, /Version\s+: 202604\.01\.3\n/);
  assert.match(info, /Release\s+: 1\n/);
  assert.match(info, /Architecture: x86_64\n/);
  assert.match(info, /License\s+: MIT\n/);
  const requires = execFileSync('rpm', ['-qpR', rpm!.file])
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('rpmlib('));
  assert.equal(requires, ['glibc >= 2.17']);
  assert.match(execFileSync('rpm', ['-qplv', rpm!.file]).toString(), /-rwxr-xr-x\s+1 root\s+root\s+.*\/usr\/bin\/aks-node-controller/);
});

test('arm64 packages carry arm64 / aarch64 metadata', () => {
  const out = buildPackages({ bins: { arm64: small }, outDir: join(work, 'arm'), version: '202604.01.3', fast: true });
  assert.equal(
    out.map((p) => p.file.split('/').pop()),
    ['aks-node-controller_202604.01.3_arm64.deb', 'aks-node-controller-202604.01.3-1.aarch64.rpm'],
  );
  assert.is(execFileSync('dpkg-deb', ['-f', out[0]!.file, 'Architecture']).toString().trim(), 'arm64');
  assert.is(execFileSync('rpm', ['-qp', '--qf', '%{ARCH}', out[1]!.file]).toString(), 'aarch64');
});

test('two builds are byte-identical (SOURCE_DATE_EPOCH from the version)', () => {
  const a = buildPackages({ bins: { amd64: small }, outDir: join(work, 'a'), version: '202604.01.3', fast: true });
  const b = buildPackages({ bins: { amd64: small }, outDir: join(work, 'b'), version: '202604.01.3', fast: true });
  for (let i = 0; i < a.length; i++) assert.is(sha(readFileSync(a[i]!.file)), sha(readFileSync(b[i]!.file)), a[i]!.file);
});

test('the real agent: version read from the binary, packaged bytes identical, extracted binary runs', () => {
  const out = buildPackages({ bins: { amd64: BIN }, outDir: join(work, 'real'), fast: true });
  const version = execFileSync(BIN, ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: work } })
    .toString()
    .trim();
  const input = sha(readFileSync(BIN));
  for (const p of out) {
    assert.is(p.version, version);
    assert.is(p.sha256, input);
  }
  const x = join(work, 'extracted');
  sh('mkdir -p "$2" && dpkg-deb -x "$1" "$2"', out[0]!.file, x);
  assert.is(sha(readFileSync(join(x, 'usr/bin/aks-node-controller'))), input);
  assert.is(
    execFileSync(join(x, 'usr/bin/aks-node-controller'), ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: work } })
      .toString()
      .trim(),
    version,
  );
});

test('CLI: builds with flags, refuses --lintian without xz, a bad version, and executables stamped with another ANC_VERSION', () => {
  const script = resolve('vhd/packaging/build-packages.mjs');
  const ok = spawnSync(
    process.execPath,
    [script, '--fast', '--arch', 'amd64', '--bin', small, '--out-dir', join(work, 'cli'), '--version', '202604.01.4', '--formats', 'deb'],
    { encoding: 'utf8' },
  );
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^packaging amd64 as deb \(fast\)\n/);
  assert.match(
    ok.stdout,
    /aks-node-controller_202604\.01\.4_amd64\.deb .* payload sha256 [0-9a-f]{64} OK {2}\(\d+\.\d s\) {2}\[1\/1, total \d+ s\]\n/,
  );
  // What is being built, n/N and the elapsed time, every ANC_PACKAGE_PROGRESS_MS (10 s by default): lines in
  // a pipe, one updating line on a terminal.
  const args = [script, '--fast', '--arch', 'amd64', '--bin', small, '--version', '202604.01.4', '--formats', 'deb,rpm'];
  const piped = spawnSync(process.execPath, [...args, '--out-dir', join(work, 'cli-piped')], {
    encoding: 'utf8',
    env: { ...process.env, ANC_PACKAGE_PROGRESS_MS: '20' },
  });
  assert.is(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, /\n\[1\/2\] building aks-node-controller amd64 deb: \d+ s \(total \d+ s\)\n/);
  assert.match(piped.stdout, /\n\[2\/2\] building aks-node-controller amd64 rpm: \d+ s \(total \d+ s\)\n/);
  const quoted = [process.execPath, ...args, '--out-dir', join(work, 'cli-tty')].map((a) => `'${a}'`).join(' ');
  const tty = spawnSync('script', ['-qec', quoted, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, ANC_PACKAGE_PROGRESS_MS: '20' },
  });
  assert.is(tty.status, 0, tty.stdout);
  const ESC = String.fromCharCode(27);
  assert.ok(tty.stdout.includes(`\r${ESC}[K[2/2] building aks-node-controller amd64 rpm: `), JSON.stringify(tty.stdout));
  assert.not.match(tty.stdout, /\n\[\d\/2\] building/, 'on a terminal the progress line is rewritten, not repeated');
  const help = spawnSync(process.execPath, [script, '--help'], { encoding: 'utf8' });
  assert.is(help.status, 0);
  assert.match(help.stdout, /^Usage: npm run package -- \[flags\]/);
  for (const part of ['--delta-from FILE', 'PACKAGE_MAINTAINER', 'rpmlint.toml', 'lintian-overrides'])
    assert.ok(help.stdout.includes(part), part);
  // No executables in the --bin-dir: one line that says which file and how to build it; nothing packaged.
  const empty = mkdtempSync(join(work, 'empty-dist-'));
  const missing = spawnSync(process.execPath, [script, '--fast', '--bin-dir', empty, '--out-dir', join(empty, 'out')], {
    encoding: 'utf8',
  });
  assert.is(missing.status, 1);
  assert.match(
    missing.stderr,
    /^build-packages: \S+\/aks-node-controller-linux-amd64 is missing: build the executables first with `node build\.mjs --all`/,
  );
  assert.is(missing.stderr.trimEnd().split('\n').length, 1);
  assert.is(existsSync(join(empty, 'out')), false);
  const lint = spawnSync(process.execPath, [script, '--fast', '--lintian', '--arch', 'amd64', '--bin', small, '--version', '202604.01.4'], {
    encoding: 'utf8',
  });
  assert.is(lint.status, 1);
  assert.match(lint.stderr, 'lintian rejects zstd');
  const bad = spawnSync(
    process.execPath,
    [script, '--fast', '--arch', 'amd64', '--bin', small, '--out-dir', join(work, 'cli'), '--version', '1.2'],
    { encoding: 'utf8' },
  );
  assert.is(bad.status, 1);
  assert.match(bad.stderr, 'is not YYYYMM.DD.PATCH');
  const env = { ...process.env, ANC_VERSION: '202604.01.9' };
  const stale = spawnSync(process.execPath, [script, '--fast', '--arch', 'amd64', '--bin', BIN, '--out-dir', join(work, 'stale')], {
    encoding: 'utf8',
    env,
  });
  assert.is(stale.status, 1);
  assert.match(
    stale.stderr,
    /is stamped \d{6}\.\d{2}\.\d+, but ANC_VERSION=202604\.01\.9; build first: ANC_VERSION=202604\.01\.9 node build\.mjs --all/,
  );
  const staleArm = spawnSync(process.execPath, [script, '--fast', '--arch', 'arm64', '--bin', small, '--out-dir', join(work, 'stale')], {
    encoding: 'utf8',
    env,
  });
  assert.match(staleArm.stderr, 'is stamped another version, but ANC_VERSION=202604.01.9');
  assert.is(existsSync(join(work, 'stale')), false, 'nothing packaged');
});

test('CLI: each package is printed as soon as it is done, with its time, before the next one is built', async () => {
  const script = resolve('vhd/packaging/build-packages.mjs');
  const args = [script, '--fast', '--arch', 'amd64', '--bin', small, '--out-dir', join(work, 'progress'), '--version', '202604.01.5'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
  assert.is(await new Promise((done) => child.on('close', done)), 0);
  const chunkOf = (pattern: RegExp) => chunks.findIndex((c) => pattern.test(c));
  const deb = chunkOf(/_amd64\.deb .* OK {2}\(\d+\.\d s\)/);
  const rpm = chunkOf(/\.x86_64\.rpm .* OK {2}\(\d+\.\d s\)/);
  assert.ok(deb >= 0 && rpm > deb, `the .deb line came in its own write before the .rpm was built: ${JSON.stringify(chunks)}`);
  assert.match(chunks.join(''), /\nbuilt 2 packages in \d+\.\d s\n$/);
});

test.run();

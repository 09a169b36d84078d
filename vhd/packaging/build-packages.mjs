#!/usr/bin/env node
// Builds the aks-node-controller .deb and .rpm packages from the compiled executables.
//
//   node vhd/packaging/build-packages.mjs [--compression zstd|xz] [--fast] [--arch amd64|arm64|all]
//        [--bin-dir DIR | --bin FILE] [--out-dir DIR] [--version V] [--formats deb,rpm] [--lintian]
//        [--delta-from FILE...]
//
// Inputs: DIR/aks-node-controller-linux-<arch> (node build.mjs --all), or one --bin FILE for one --arch.
// The package version is the stamped version (the amd64 binary's `version` output) unless --version says
// otherwise (tests use that to build a deliberately broken package). Release packages are compressed with
// zstd -19 (deb member and rpm payload; docs/hotfix.md has the measurement against xz, which stays
// available as --compression xz); --fast uses zstd -3 (tests). With ANC_VERSION set, the executables
// must report that version, or nothing is packaged. SOURCE_DATE_EPOCH (default: midnight UTC of the version's date) makes builds
// byte-reproducible. Each package's /usr/bin/aks-node-controller is checked to be byte-identical to the
// input (a stripped bun executable silently becomes plain bun). Never run a strip step on these files.
// --delta-from takes the executables images ship (the baked agents) and adds the aks-node-controller-delta
// packages beside the full ones (build-delta-packages.mjs).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildDeltaPackages } from './build-delta-packages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const ARCHES = {
  amd64: { deb: 'amd64', rpm: 'x86_64' },
  arm64: { deb: 'arm64', rpm: 'aarch64' },
};
export const MAINTAINER = process.env.PACKAGE_MAINTAINER ?? 'AKS node controller maintainers <aks-node-controller@example.invalid>';
export const HOMEPAGE = 'https://github.com/Azure/AgentBaker';
const VERSION_RE = /^\d{6}\.\d{2}\.\d+$/;

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** dpkg-deb and rpmbuild settings per compression (`fast` is zstd at a low level, for tests). */
export const COMPRESSIONS = {
  zstd: { deb: ['-Zzstd', '-z19'], rpm: 'w19T0.zstdio' },
  xz: { deb: ['-Zxz', '-z9'], rpm: 'w9.xzdio' },
  fast: { deb: ['-Zzstd', '-z3'], rpm: 'w3T0.zstdio' },
};
const compressionOf = (options) => options.compression ?? (options.fast ? 'fast' : 'zstd');
export const run = (program, args, options = {}) => execFileSync(program, args, { maxBuffer: 512 * 1024 * 1024, ...options });

/** Runs the binary's `version` in a throwaway root so nothing is written to the host's /var/log. */
export function binaryVersion(binary) {
  const root = mkdtempSync(join(tmpdir(), 'anc-pkg-version-'));
  try {
    return run(binary, ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: root }, cwd: root }).toString().trim();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Midnight UTC of the version's YYYYMM.DD, so a version always builds to the same bytes. */
export function defaultEpoch(version) {
  const m = /^(\d{4})(\d{2})\.(\d{2})\./.exec(version);
  return m ? String(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000) : '1775000000';
}

function buildDeb({ bin, arch, version, outDir, compression, epoch, work }) {
  const root = join(work, `deb-${arch}`);
  const put = (rel, data, mode) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    if (typeof data === 'string' && data.startsWith('copy:')) copyFileSync(data.slice(5), path);
    else writeFileSync(path, data);
    chmodSync(path, mode);
  };
  const fill = (text) => text.replaceAll('@HOMEPAGE@', HOMEPAGE);
  put('usr/bin/aks-node-controller', `copy:${bin}`, 0o755);
  put('usr/share/doc/aks-node-controller/copyright', fill(readFileSync(join(here, 'copyright'), 'utf8')), 0o644);
  const changelog = `aks-node-controller (${version}) stable; urgency=medium\n\n  * Release ${version}.\n\n -- ${MAINTAINER}  ${new Date(Number(epoch) * 1000).toUTCString().replace('GMT', '+0000')}\n`;
  put('usr/share/doc/aks-node-controller/changelog.gz', gzipSync(changelog, { level: 9 }).fill(0, 4, 8), 0o644);
  put('usr/share/lintian/overrides/aks-node-controller', readFileSync(join(here, 'lintian-overrides')), 0o644);
  const installedKb = Math.ceil(statSync(bin).size / 1024) + 8;
  const control = readFileSync(join(here, 'control.in'), 'utf8')
    .replaceAll('@VERSION@', version).replaceAll('@ARCH@', ARCHES[arch].deb).replaceAll('@MAINTAINER@', MAINTAINER)
    .replaceAll('@INSTALLED_SIZE@', String(installedKb)).replaceAll('@HOMEPAGE@', HOMEPAGE);
  put('DEBIAN/control', control, 0o644);
  const md5 = run('sh', ['-c', 'cd "$1" && find usr -type f | LC_ALL=C sort | xargs md5sum', 'sh', root]);
  put('DEBIAN/md5sums', md5, 0o644);
  run('find', [root, '-type', 'd', '-exec', 'chmod', '0755', '{}', '+']);
  run('find', [root, '-exec', 'touch', '-h', '-d', `@${epoch}`, '{}', '+']);
  const out = join(outDir, `aks-node-controller_${version}_${ARCHES[arch].deb}.deb`);
  run('dpkg-deb', ['--root-owner-group', ...COMPRESSIONS[compression].deb, '--build', root, out], {
    env: { ...process.env, SOURCE_DATE_EPOCH: epoch }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const payload = run('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -xOf - ./usr/bin/aks-node-controller', 'sh', out]);
  return { file: out, payloadSha256: sha256(payload) };
}

function buildRpm({ bin, arch, version, outDir, compression, epoch, work }) {
  const top = join(work, `rpm-${arch}`);
  const defines = {
    _topdir: top, pkg_version: version, pkg_release: '1', bin_src: bin, pkg_maintainer: MAINTAINER, pkg_homepage: HOMEPAGE,
    _binary_payload: COMPRESSIONS[compression].rpm, use_source_date_epoch_as_buildtime: '1',
    clamp_mtime_to_source_date_epoch: '1', _buildhost: 'reproducible', _rpmdir: outDir, _build_name_fmt: '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}.rpm',
  };
  const args = ['-bb', '--quiet', '--target', ARCHES[arch].rpm];
  for (const [k, v] of Object.entries(defines)) args.push('--define', `${k} ${v}`);
  args.push(join(here, 'aks-node-controller.spec'));
  run('rpmbuild', args, { env: { ...process.env, SOURCE_DATE_EPOCH: epoch }, stdio: ['ignore', 'ignore', 'inherit'] });
  const out = join(outDir, `aks-node-controller-${version}-1.${ARCHES[arch].rpm}.rpm`);
  const payload = run('sh', ['-c', 'rpm2cpio "$1" | cpio --quiet -i --to-stdout ./usr/bin/aks-node-controller', 'sh', out]);
  return { file: out, payloadSha256: sha256(payload) };
}

/**
 * Builds packages and verifies their payload. Returns [{format, arch, file, size, rawSize, sha256}].
 * options: {bins: {amd64?: file, arm64?: file}, outDir, version?, compression?: 'zstd'|'xz'|'fast', fast?, formats?, epoch?}
 */
export function buildPackages(options) {
  const bins = Object.entries(options.bins).filter(([, file]) => file);
  if (bins.length === 0) throw new Error('no input binaries');
  const version = options.version ?? binaryVersion(options.bins.amd64 ?? bins[0][1]);
  if (!VERSION_RE.test(version)) throw new Error(`package version "${version}" is not YYYYMM.DD.PATCH`);
  const epoch = options.epoch ?? process.env.SOURCE_DATE_EPOCH ?? defaultEpoch(version);
  const formats = options.formats ?? ['deb', 'rpm'];
  const compression = compressionOf(options);
  if (!COMPRESSIONS[compression]) throw new Error(`unknown compression ${compression} (zstd, xz)`);
  const outDir = resolve(options.outDir);
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'anc-pkg-'));
  const results = [];
  try {
    for (const [arch, binFile] of bins) {
      if (!ARCHES[arch]) throw new Error(`unknown arch ${arch}`);
      const bin = resolve(binFile);
      const input = { bin, arch, version, outDir, compression, epoch, work };
      const expected = sha256(readFileSync(bin));
      for (const format of formats) {
        const built = format === 'deb' ? buildDeb(input) : buildRpm(input);
        if (built.payloadSha256 !== expected) throw new Error(`${built.file}: packaged binary sha256 ${built.payloadSha256} != build output ${expected}`);
        results.push({ package: 'aks-node-controller', format, arch, version, file: built.file, size: statSync(built.file).size, rawSize: statSync(bin).size, sha256: expected });
      }
    }
    if (options.deltaFrom?.length) {
      const bins = Object.fromEntries(Object.entries(options.bins).map(([arch, file]) => [arch, file && resolve(file)]));
      const deltaFrom = options.deltaFrom.map((file) => resolve(file));
      for (const d of buildDeltaPackages({ bins, deltaFrom, outDir, version, epoch, formats, work })) {
        results.push({ package: 'aks-node-controller-delta', ...d, rawSize: d.manifest.target.size, sha256: d.manifest.target.sha256 });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

/** lintian on a .deb; returns the E: lines (empty = clean). */
export function lintianErrors(debFile) {
  let text = '';
  try {
    text = run('lintian', ['--no-cfg', '--fail-on', 'none', debFile], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  } catch (error) {
    text = `${error.stdout ?? ''}${error.stderr ?? ''}` || `E: lintian failed: ${error.message}`;
  }
  return text.split('\n').filter((l) => l.startsWith('E:'));
}

function parseArgs(argv) {
  const root = resolve(here, '..', '..');
  const a = { fast: false, compression: undefined, arch: 'all', binDir: join(root, 'dist'), bin: undefined, outDir: join(root, 'dist', 'packages'), version: undefined, formats: ['deb', 'rpm'], lintian: false, deltaFrom: [] };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--fast') a.fast = true;
    else if (flag === '--compression') a.compression = value();
    else if (flag === '--lintian') a.lintian = true;
    else if (flag === '--arch') a.arch = value();
    else if (flag === '--bin-dir') a.binDir = resolve(value());
    else if (flag === '--bin') a.bin = resolve(value());
    else if (flag === '--out-dir') a.outDir = resolve(value());
    else if (flag === '--version') a.version = value();
    else if (flag === '--formats') a.formats = value().split(',');
    else if (flag === '--delta-from') {
      // One or more executables: everything up to the next flag.
      if (inline !== undefined) a.deltaFrom.push(resolve(inline));
      while (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) a.deltaFrom.push(resolve(argv[++i]));
      if (a.deltaFrom.length === 0) fail('--delta-from needs at least one executable');
    }
    else fail(`unknown argument ${argv[i]}`);
  }
  return a;
}

const HOST_ARCH = { x64: 'amd64', arm64: 'arm64' }[process.arch];

/**
 * ANC_VERSION set: every executable must carry that version. The host's own architecture is run
 * (`version`); the others cannot run here and must contain the stamped version string the build defines.
 */
export function checkStampedVersion(bins, wanted) {
  const howToBuild = `build first: ANC_VERSION=${wanted} node build.mjs --all (or unset ANC_VERSION to package what dist/ holds)`;
  for (const [arch, file] of Object.entries(bins)) {
    let stamped;
    try {
      stamped = arch === HOST_ARCH ? binaryVersion(file) : readFileSync(file).includes(JSON.stringify(wanted)) ? wanted : 'another version';
    } catch (error) {
      throw new Error(`cannot read the version of ${file} (${error.message.split('\n')[0]}); ${howToBuild}`);
    }
    if (stamped !== wanted) throw new Error(`${file} is stamped ${stamped}, but ANC_VERSION=${wanted}; ${howToBuild}`);
  }
}

function fail(message) {
  process.stderr.write(`build-packages: ${message}\n`);
  process.exit(1);
}

function main() {
  const a = parseArgs(process.argv.slice(2));
  const arches = a.arch === 'all' ? ['amd64', 'arm64'] : [a.arch];
  if (a.bin && arches.length !== 1) throw new Error('--bin needs a single --arch');
  if (a.lintian && a.compression !== 'xz') throw new Error('--lintian needs --compression xz: lintian rejects zstd members');
  const bins = Object.fromEntries(arches.map((arch) => [arch, a.bin ?? join(a.binDir, `aks-node-controller-linux-${arch}`)]));
  if (process.env.ANC_VERSION) checkStampedVersion(bins, process.env.ANC_VERSION);
  const started = Date.now();
  const results = buildPackages({ bins, outDir: a.outDir, version: a.version, fast: a.fast, compression: a.compression, formats: a.formats, deltaFrom: a.deltaFrom });
  for (const r of results) {
    if (r.package === 'aks-node-controller-delta') {
      const deltas = r.manifest.deltas.map((d) => `${d.base.sha256.slice(0, 12)}: ${d.size} bytes`).join(', ') || 'no base of this architecture';
      process.stdout.write(`${r.file}  ${r.size} bytes  target sha256 ${r.manifest.target.sha256}  deltas ${deltas}\n`);
      continue;
    }
    process.stdout.write(`${r.file}  ${r.size} bytes (raw ${r.rawSize}, ${(r.size / r.rawSize * 100).toFixed(1)}%)  payload sha256 ${r.sha256} OK\n`);
  }
  if (a.deltaFrom.length && !results.some((r) => r.package === 'aks-node-controller-delta')) {
    process.stderr.write(`build-packages: no --delta-from executable is of a built architecture (${arches.join(', ')}): no delta package\n`);
  }
  if (a.lintian) {
    for (const r of results.filter((x) => x.format === 'deb')) {
      const errors = lintianErrors(r.file);
      if (errors.length) throw new Error(`lintian errors in ${r.file}:\n${errors.join('\n')}`);
      process.stdout.write(`lintian ${r.file}: no errors\n`);
    }
  }
  process.stdout.write(`built ${results.length} packages in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`build-packages: ${error.message}\n`);
    process.exitCode = 1;
  }
}

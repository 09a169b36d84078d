// Builds the aks-node-controller-delta .deb and .rpm (docs/hotfix.md "Delta packages"): per architecture,
// one VCDIFF delta (RFC 3284, encoded by the stock xdelta3 without its extensions: no secondary
// compression, no application header, no checksum) from each known base executable to the new
// executable, named `<base sha256>.vcdiff`, and manifest.json with the target's sha256 and size. The
// payload is zstd -19 (5% smaller than gzip -9 on a typical delta; the node unpacks it with the zstd
// tool, like the full package). Called by build-packages.mjs for --delta-from.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ARCHES, copyrightText, HOMEPAGE, MAINTAINER, rpmChangelogDate, run } from './package-meta.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const DELTA_PACKAGE = 'aks-node-controller-delta';
export const DELTA_DIR = 'usr/lib/aks-node-controller/delta';
export const MANIFEST_SCHEMA = 'aks-node-controller-delta/1';
/**
 * Plain RFC 3284 from xdelta3 (-A: no application header, -n: no Adler-32, -S none: no secondary
 * compression), in 2 MiB target windows (-W): the node holds one window in memory while it rebuilds, and
 * smaller windows cost about 1 KB of delta per 100 MB of executable (measured against the default 8 MiB).
 */
export const XDELTA3_FLAGS = ['-9', '-S', 'none', '-A', '-n', '-W', String(2 * 1024 * 1024)];
/** What the package holds, for people who find it installed (rpmlint wants documentation too). */
const DELTA_README = `aks-node-controller-delta holds VCDIFF (RFC 3284) deltas that rebuild the
aks-node-controller executable of the same version from the executables that
VM images ship, one per base named by the base's sha256, and manifest.json
with the target's sha256 and size. aks-node-controller download-hotfix reads
them from the package repository; installing this package is not needed.
`;
const ELF_MACHINES = { 62: 'amd64', 183: 'arm64' };

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The architecture of an ELF executable (amd64 or arm64), from e_machine. */
export function elfArch(file) {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32BE(0) !== 0x7f454c46) throw new Error(`--delta-from ${file}: not an ELF executable`);
  const arch = ELF_MACHINES[header.readUInt16LE(18)];
  if (!arch) throw new Error(`--delta-from ${file}: ELF machine 0x${header.readUInt16LE(18).toString(16)} is neither amd64 nor arm64`);
  return arch;
}

/** Power of two >= the base size (at least 8 MiB): xdelta3's source window covers the whole base. */
function sourceWindow(size) {
  let window = 8 * 1024 * 1024;
  while (window < size) window *= 2;
  return String(window);
}

function encodeDelta(base, target, out) {
  run('xdelta3', ['-e', '-f', ...XDELTA3_FLAGS, '-B', sourceWindow(statSync(base).size), '-s', base, target, out]);
  // Prove the delta rebuilds the target before it is packaged (the node checks the same sha256).
  const decoded = run('xdelta3', ['-d', '-c', '-s', base, out]);
  if (sha256(decoded) !== sha256(readFileSync(target))) throw new Error(`${out}: xdelta3 does not rebuild ${target} from ${base}`);
}

/** Deltas + manifest for one architecture in `dir`; returns the manifest object. */
function writeDeltas({ target, bases, arch, version, dir }) {
  mkdirSync(dir, { recursive: true });
  const targetBytes = readFileSync(target);
  const manifest = {
    schema: MANIFEST_SCHEMA,
    package: 'aks-node-controller',
    version,
    architecture: arch,
    format: 'vcdiff',
    target: { sha256: sha256(targetBytes), size: targetBytes.length },
    deltas: [],
  };
  for (const base of bases) {
    const baseSha = sha256(readFileSync(base));
    if (baseSha === manifest.target.sha256 || manifest.deltas.some((d) => d.base.sha256 === baseSha)) continue;
    const file = `${baseSha}.vcdiff`;
    encodeDelta(base, target, join(dir, file));
    const delta = readFileSync(join(dir, file));
    manifest.deltas.push({ base: { sha256: baseSha, size: statSync(base).size }, file, sha256: sha256(delta), size: delta.length });
  }
  manifest.deltas.sort((a, b) => (a.base.sha256 < b.base.sha256 ? -1 : 1));
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
  return manifest;
}

function buildDeltaDeb({ arch, version, outDir, epoch, work, deltaDir }) {
  const root = join(work, `delta-deb-${arch}`);
  const put = (rel, data, mode) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileSync(path, data);
    chmodSync(path, mode);
  };
  let bytes = 0;
  for (const name of readdirSync(deltaDir).sort()) {
    const data = readFileSync(join(deltaDir, name));
    bytes += data.length;
    put(`${DELTA_DIR}/${name}`, data, 0o644);
  }
  const doc = `usr/share/doc/${DELTA_PACKAGE}`;
  put(`${doc}/copyright`, readFileSync(join(here, 'copyright'), 'utf8').replaceAll('@HOMEPAGE@', HOMEPAGE), 0o644);
  const changelog = `${DELTA_PACKAGE} (${version}) stable; urgency=medium\n\n  * Release ${version}.\n\n -- ${MAINTAINER}  ${new Date(Number(epoch) * 1000).toUTCString().replace('GMT', '+0000')}\n`;
  put(`${doc}/changelog.gz`, gzipSync(changelog, { level: 9 }).fill(0, 4, 8), 0o644);
  const control = readFileSync(join(here, 'control-delta.in'), 'utf8')
    .replaceAll('@VERSION@', version)
    .replaceAll('@ARCH@', ARCHES[arch].deb)
    .replaceAll('@MAINTAINER@', MAINTAINER)
    .replaceAll('@INSTALLED_SIZE@', String(Math.ceil(bytes / 1024) + 8))
    .replaceAll('@HOMEPAGE@', HOMEPAGE);
  put('DEBIAN/control', control, 0o644);
  put('DEBIAN/md5sums', run('sh', ['-c', 'cd "$1" && find usr -type f | LC_ALL=C sort | xargs md5sum', 'sh', root]), 0o644);
  run('find', [root, '-type', 'd', '-exec', 'chmod', '0755', '{}', '+']);
  run('find', [root, '-exec', 'touch', '-h', '-d', `@${epoch}`, '{}', '+']);
  const out = join(outDir, `${DELTA_PACKAGE}_${version}_${ARCHES[arch].deb}.deb`);
  run('dpkg-deb', ['--root-owner-group', '-Zzstd', '-z19', '--build', root, out], {
    env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return out;
}

function buildDeltaRpm({ arch, version, outDir, epoch, work, deltaDir }) {
  const docs = join(work, `delta-rpm-${arch}-docs`);
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'copyright'), copyrightText());
  writeFileSync(join(docs, 'README'), DELTA_README);
  const defines = {
    docs_dir: docs,
    pkg_changelog_date: rpmChangelogDate(epoch),
    _topdir: join(work, `delta-rpm-${arch}`),
    pkg_version: version,
    pkg_release: '1',
    delta_src: deltaDir,
    pkg_maintainer: MAINTAINER,
    pkg_homepage: HOMEPAGE,
    _binary_payload: 'w19.zstdio',
    use_source_date_epoch_as_buildtime: '1',
    clamp_mtime_to_source_date_epoch: '1',
    _buildhost: 'reproducible',
    _rpmdir: outDir,
    _build_name_fmt: '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}.rpm',
  };
  const args = ['-bb', '--quiet', '--target', ARCHES[arch].rpm];
  for (const [k, v] of Object.entries(defines)) args.push('--define', `${k} ${v}`);
  args.push(join(here, 'aks-node-controller-delta.spec'));
  run('rpmbuild', args, { env: { ...process.env, SOURCE_DATE_EPOCH: epoch }, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(outDir, `${DELTA_PACKAGE}-${version}-1.${ARCHES[arch].rpm}.rpm`);
}

/**
 * The delta packages for every built architecture that has a base among `deltaFrom` (executables; each
 * one's architecture is read from its ELF header). Returns [{format, arch, version, file, size, manifest}].
 */
export function buildDeltaPackages({ bins, deltaFrom, outDir, version, epoch, formats = ['deb', 'rpm'], work, onPackage = () => {} }) {
  const byArch = {};
  for (const base of deltaFrom) (byArch[elfArch(base)] ??= []).push(base);
  const results = [];
  for (const [arch, target] of Object.entries(bins).filter(([, file]) => file)) {
    if (!byArch[arch]) continue;
    if (elfArch(target) !== arch) throw new Error(`${target} is not an ${arch} executable`);
    const deltaDir = join(work, `delta-${arch}`);
    rmSync(deltaDir, { recursive: true, force: true });
    const manifest = writeDeltas({ target, bases: byArch[arch], arch, version, dir: deltaDir });
    for (const format of formats) {
      const input = { arch, version, outDir, epoch, work, deltaDir };
      const file = format === 'deb' ? buildDeltaDeb(input) : buildDeltaRpm(input);
      results.push({ format, arch, version, file, size: statSync(file).size, manifest });
      onPackage(results.at(-1));
    }
  }
  return results;
}

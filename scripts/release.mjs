#!/usr/bin/env node
// `npm run release -- --version V [--scripts DIR] --image-manifest FILE... [--pointer-keys FILE]
// [--delta-from BAKED...]`: the release checklist as one command (docs/hotfix.md "Release in one command").
//   1. build every target (build.mjs --all, stamped V; the payload checked against the images, pinned)
//   2. package them (vhd/packaging/build-packages.mjs, one run per architecture and format, with progress)
//   3. publish the hotfix index into a repository root, when given one
//   4. preview each image: what the payload does there (`hotfix scripts`), and whether it takes the
//      hotfix under the pointer this release proposes (`hotfix explain`)
// Exit 0 when at least one image takes the hotfix; 1 when a step fails (a script payload no checked image
// takes is one: refused before packaging); 3 when no image would take it.
// It never deletes what it did not write: --out-dir must be empty, new, or a previous release's output
// (marked with OUT_MARKER), unless --force; a repository root or apt suite must exist unless --new-repository.
import { spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_KEYS_WARNING } from '../build.mjs';
import { createProgress } from '../vhd/packaging/progress.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HOST = { x64: 'amd64', arm64: 'arm64' }[process.arch];
/** The file that marks a directory as a release's output: only such a directory is emptied without --force. */
const OUT_MARKER = '.aks-node-controller-release';
/** What a release writes into --out-dir (with --force, only these are replaced). */
const OUT_ENTRIES = ['bin', 'packages', 'pointer-proposed.yaml', OUT_MARKER];
const USAGE = `Usage: npm run release -- --version V --image-manifest FILE... [flags]

  --version V               the release version, YYYYMM.DD.PATCH (stamped into every executable)
  --image-manifest FILE     an image the release targets (its \`image manifest -o json\`); repeat per image
  --scripts DIR             embed this script payload, checked against the images and pinned
  --scripts-label L         the payload's label (default: the version)
  --unchecked-platform P    a platform the payload lists that no image manifest covers, on purpose
  --pointer-keys FILE       the pointer signing keys to bake (or --no-pointer-keys, on purpose)
  --delta-from BAKED...     the executables images ship: delta packages from each
  --arch amd64|arm64|all    architectures to build and package (default all)
  --formats deb,rpm         package formats (default both)
  --fast                    quick package compression (tests)
  --out-dir DIR             where executables, packages and the preview go (default dist/release-V); it
                            must be empty, new, or an earlier release's output (marked ${OUT_MARKER})
  --force                   write into a non-empty --out-dir anyway: only bin/, packages/ and
                            pointer-proposed.yaml are replaced there, nothing else is deleted
  --repository-root DIR     copy the packages there and publish the hotfix index (signs with gpg); the
                            directory (and, for apt, its dists/SUITE) must exist
  --new-repository          start a new repository root or apt suite there (a typo'd path is refused without it)
  --repository-path P       with --repository-root: the root's URL path as nodes' sources name it (e.g.
                            /ubuntu/22.04/prod, or /; https://host/path binds the host too); the signed
                            index is bound to it (docs/hotfix.md)
  --repository-kind apt|rpm which packages and index (default apt); --apt-suite S (default stable)
`;

function fail(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const a = { manifests: [], unchecked: [], deltaFrom: [], arch: 'all', formats: 'deb,rpm', kind: 'apt', suite: 'stable' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (flag === '--version') a.version = value();
    else if (flag === '--image-manifest') a.manifests.push(resolve(value()));
    else if (flag === '--scripts') a.scripts = resolve(value());
    else if (flag === '--scripts-label') a.label = value();
    else if (flag === '--unchecked-platform') a.unchecked.push(value());
    else if (flag === '--pointer-keys') a.keys = resolve(value());
    else if (flag === '--no-pointer-keys') a.noKeys = true;
    else if (flag === '--arch') a.arch = value();
    else if (flag === '--formats') a.formats = value();
    else if (flag === '--fast') a.fast = true;
    else if (flag === '--out-dir') a.outDir = resolve(value());
    else if (flag === '--force') a.force = true;
    else if (flag === '--new-repository') a.newRepository = true;
    else if (flag === '--repository-root') a.repository = resolve(value());
    else if (flag === '--repository-path') a.repositoryPath = value();
    else if (flag === '--repository-kind') a.kind = value();
    else if (flag === '--apt-suite') a.suite = value();
    else if (flag === '--delta-from') {
      if (inline !== undefined) a.deltaFrom.push(resolve(inline));
      while (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) a.deltaFrom.push(resolve(argv[++i]));
      if (a.deltaFrom.length === 0) fail('--delta-from needs at least one executable');
    } else fail(`unknown argument ${argv[i]} (see --help)`);
  }
  if (!a.version || !/^\d{6}\.\d{2}\.\d+$/.test(a.version)) fail('--version V is required, YYYYMM.DD.PATCH (e.g. 202604.01.1)');
  if (a.manifests.length === 0) fail('give every image the release targets: --image-manifest FILE (its `image manifest -o json`)');
  for (const m of a.manifests) if (!existsSync(m)) fail(`--image-manifest ${m}: no such file`);
  if (!['amd64', 'arm64', 'all'].includes(a.arch)) fail('--arch must be amd64, arm64 or all');
  if (!['apt', 'rpm'].includes(a.kind)) fail('--repository-kind must be apt or rpm');
  if (a.keys && a.noKeys) fail('--pointer-keys and --no-pointer-keys contradict each other');
  // Checked before the long build: the hotfix index is bound to where nodes fetch it from (issue 34).
  if (a.repository && !(a.repositoryPath?.startsWith('/') || /^https?:\/\/[^/]+/.test(a.repositoryPath ?? '')))
    fail(
      "--repository-root needs --repository-path P: the repository root's URL path as nodes' sources name it (e.g. /ubuntu/22.04/prod, or /)",
    );
  a.outDir ??= join(REPO, 'dist', `release-${a.version}`);
  a.label ??= a.version;
  checkDeltaFrom(a);
  checkOutDir(a);
  if (a.repository) checkRepository(a);
  return a;
}

/** Refuses an --out-dir that holds what this release did not write (never empties it without a word). */
function checkOutDir(a) {
  if (!existsSync(a.outDir)) return;
  if (!statSync(a.outDir).isDirectory()) fail(`--out-dir ${a.outDir} is not a directory`);
  const entries = readdirSync(a.outDir);
  if (entries.length === 0 || entries.includes(OUT_MARKER) || a.force) return;
  const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, … (${entries.length} entries)` : '');
  fail(
    `--out-dir ${a.outDir} is not empty and is not a release's output (no ${OUT_MARKER} in it): it holds ${shown}.\n` +
      'Give a new or empty directory (or leave --out-dir out: dist/release-V), or --force to write into it ' +
      '(only bin/, packages/ and pointer-proposed.yaml are replaced; nothing else is deleted).',
  );
}

/** A typo'd repository root or suite would start a new tree and sign it: only with --new-repository. */
function checkRepository(a) {
  const hint = 'give --new-repository to start one there on purpose';
  if (!existsSync(a.repository)) {
    if (!a.newRepository) fail(`--repository-root ${a.repository} does not exist (a typo?); ${hint}`);
    return;
  }
  if (!statSync(a.repository).isDirectory()) fail(`--repository-root ${a.repository} is not a directory`);
  if (a.kind !== 'apt' || a.newRepository) return;
  const dists = join(a.repository, 'dists');
  if (!existsSync(join(dists, a.suite))) {
    const suites = existsSync(dists) ? readdirSync(dists) : [];
    fail(
      `--apt-suite ${a.suite}: ${join(dists, a.suite)} does not exist (${suites.length ? `suites there: ${suites.join(', ')}` : 'no suite there'}); ${hint}`,
    );
  }
}

/** The architecture of an ELF executable (e_machine), or a reason it has none. */
function elfArch(file) {
  const head = Buffer.alloc(20);
  let fd;
  try {
    fd = openSync(file, 'r');
    readSync(fd, head, 0, 20, 0);
  } catch (error) {
    fail(`--delta-from ${file}: ${error.message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (head.readUInt32BE(0) !== 0x7f454c46) fail(`--delta-from ${file}: not an executable (no ELF header)`);
  return { 62: 'amd64', 183: 'arm64' }[head.readUInt16LE(18)] ?? `machine ${head.readUInt16LE(18)}`;
}

/** A delta that would not be built is an error, named before the build: from an executable of another architecture. */
function checkDeltaFrom(a) {
  const built = a.arch === 'all' ? ['amd64', 'arm64'] : [a.arch];
  for (const file of a.deltaFrom) {
    const arch = elfArch(file);
    if (!built.includes(arch))
      fail(
        `--delta-from ${file} is an ${arch} executable, but this release builds ${built.join(' and ')} only: no delta from it would be built (--arch all, or leave it out)`,
      );
  }
}

/** Runs a child; resolves with its status and output (streamed to ours when `echo`). */
function runChild(program, args, options = {}) {
  return new Promise((done) => {
    const child = spawn(program, args, { cwd: REPO, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const say = (line) => process.stdout.write(`${line}\n`);
const indent = (text) =>
  text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => `  ${l}`)
    .join('\n');

async function buildAll(a, binDir) {
  const arches = a.arch === 'all' ? ['amd64', 'arm64'] : [a.arch];
  const args = ['build.mjs', '--outdir', binDir];
  if (a.arch === 'all') args.push('--all');
  else if (a.arch !== HOST) fail(`--arch ${a.arch} alone builds only on an ${a.arch} machine; use --arch all`);
  if (a.keys) args.push('--pointer-keys', a.keys);
  else args.push('--no-pointer-keys'); // the release warns itself, once, below
  if (a.scripts) {
    args.push('--scripts', a.scripts, '--scripts-label', a.label);
    for (const m of a.manifests) args.push('--image-manifest', m);
    for (const p of a.unchecked) args.push('--unchecked-platform', p);
  }
  const r = await runChild(process.execPath, args, { env: { ANC_VERSION: a.version } });
  if (r.status !== 0) fail(`build refused:\n${r.stderr.trimEnd()}`);
  say(
    indent(
      r.stdout
        .split('\n')
        .filter((l) => !/^\s+\d+\s/.test(l) && !l.startsWith('bundle '))
        .join('\n'),
    ),
  );
  if (a.arch !== 'all') renameSync(join(binDir, 'aks-node-controller'), join(binDir, `aks-node-controller-linux-${a.arch}`));
  return Object.fromEntries(arches.map((arch) => [arch, join(binDir, `aks-node-controller-linux-${arch}`)]));
}

async function packageAll(a, bins, pkgDir, started) {
  const runs = Object.keys(bins).flatMap((arch) => a.formats.split(',').map((format) => ({ arch, format })));
  const progress = createProgress(runs.length, started, say);
  for (const { arch, format } of runs) {
    const rpmArch = { amd64: 'x86_64', arm64: 'aarch64' }[arch];
    const name = format === 'deb' ? `aks-node-controller_${a.version}_${arch}.deb` : `aks-node-controller-${a.version}-1.${rpmArch}.rpm`;
    progress.start(`${name}${a.deltaFrom.length ? ' + delta' : ''}`);
    const args = ['vhd/packaging/build-packages.mjs', '--bin', bins[arch], '--arch', arch, '--formats', format];
    args.push('--out-dir', pkgDir, '--version', a.version, '--no-pointer-keys', ...(a.fast ? ['--fast'] : []));
    if (a.scripts) {
      args.push('--scripts', a.scripts, '--scripts-label', a.label);
      for (const m of a.manifests) args.push('--image-manifest', m);
      for (const p of a.unchecked) args.push('--unchecked-platform', p);
    }
    if (a.deltaFrom.length) args.push('--delta-from', ...a.deltaFrom);
    const r = await runChild(process.execPath, args);
    progress.stop();
    if (r.status !== 0) fail(`packaging ${name}:\n${r.stderr.trimEnd()}`);
    // A requested delta that was not built is an error, never a warning swallowed here.
    if (a.deltaFrom.length && /no delta package/.test(r.stderr)) fail(`packaging ${name}: ${r.stderr.trim()}`);
    // The package script's own counter and total are for one run of it: the release's counter is the one shown.
    for (const line of r.stdout.split('\n').filter((l) => / sha256 | -> |\.(deb|rpm) /.test(l)))
      say(`    ${line.replace(/\s*\[\d+\/\d+, total [^\]]*\]/, '').trim()}`);
  }
}

async function publish(a, pkgDir) {
  const ext = a.kind === 'apt' ? '.deb' : '.rpm';
  const pool = a.kind === 'apt' ? join(a.repository, 'pool') : a.repository;
  mkdirSync(pool, { recursive: true });
  const files = readdirSync(pkgDir).filter((f) => f.endsWith(ext));
  for (const f of files) copyFileSync(join(pkgDir, f), join(pool, f));
  const script = join(REPO, 'vhd/packaging/publish-hotfix-index.sh');
  const r = await runChild(script, a.kind === 'apt' ? ['apt', a.repository, a.suite] : ['rpm', a.repository], {
    env: { ANC_REPOSITORY_PATH: a.repositoryPath },
  });
  if (r.status !== 0) fail(`publishing the hotfix index in ${a.repository}: ${r.stderr.trimEnd()}`);
  say(
    `  ${files.length} packages copied to ${pool}; hotfix index signed and published (${a.kind === 'apt' ? `dists/${a.suite}/aks-node-controller` : 'aks-node-controller/repodata'})`,
  );
}

/** §4's preview per image: the payload's plan, then the decision under the pointer this release proposes. */
/**
 * The payload on each checked image (`hotfix scripts`), before packaging: a payload no image takes (its
 * own exit 3 with nothing to apply anywhere) fails the release, naming the images that take nothing.
 */
async function checkPayload(a, bin) {
  const root = mkdtempSync(join(tmpdir(), 'anc-release-preview-'));
  const manifestArgs = a.manifests.flatMap((m) => ['--image-manifest', m]);
  let json;
  try {
    json = await runChild(bin, ['hotfix', 'scripts', ...manifestArgs, '-o', 'json'], { env: { AKS_NODE_ROOT: root } });
    const text = await runChild(bin, ['hotfix', 'scripts', ...manifestArgs], { env: { AKS_NODE_ROOT: root } });
    say(indent(text.stdout || text.stderr));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  let images;
  try {
    images = JSON.parse(json.stdout).images;
  } catch {}
  if (!Array.isArray(images)) fail(`previewing the payload: \`hotfix scripts -o json\` exited ${json.status}: ${json.stderr.trim()}`);
  const takesNothing = images.filter((i) => !i.takes);
  const why = (i) => `  takes nothing: ${i.image}: ${i.skipped ?? (i.noop ? `nothing applies: ${i.noop}` : 'an entry is refused')}`;
  if (takesNothing.length === images.length)
    fail(
      `the script payload ${a.label} changes nothing on any checked image: it is no fix there, so it is not released.\n` +
        `${takesNothing.map(why).join('\n')}\n` +
        "Check the payload entries' platforms and destinations against these images (an --unchecked-platform is checked against none).",
    );
  for (const i of takesNothing) say(why(i));
}

/** §4's preview per image: the decision under the pointer this release proposes. */
async function preview(a, bin, outDir) {
  const root = mkdtempSync(join(tmpdir(), 'anc-release-preview-'));
  const agent = (args) => runChild(bin, args, { env: { AKS_NODE_ROOT: root } });
  try {
    const manifestArgs = a.manifests.flatMap((m) => ['--image-manifest', m]);
    const base = a.version.split('.').slice(0, 2).join('.');
    const images = a.manifests.map((m) => JSON.parse(readFileSync(m, 'utf8')).agentVersion);
    if (!images.some((v) => typeof v === 'string' && v.startsWith(`${base}.`))) {
      say(`  no image's baked agent is of base ${base}: no pointer to propose; publish one by hand (docs/hotfix.md)`);
      return 3;
    }
    const expires = new Date(Date.now() + 14 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const pointer = join(outDir, 'pointer-proposed.yaml');
    const rendered = await agent([
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      `${base}=${a.version}`,
      '--serial',
      '1',
      '--expires',
      expires,
    ]);
    if (rendered.status !== 0) fail(`rendering the proposed pointer: ${rendered.stderr.trimEnd()}`);
    writeFileSync(pointer, rendered.stdout);
    say(`  proposed pointer (unsigned, serial 1; sign it and set the serial: docs/pointer-signing.md): ${pointer}`);
    const r = await agent(['hotfix', 'explain', '--pointer', pointer, '--candidate', bin, ...manifestArgs]);
    say(indent(r.stdout || r.stderr));
    return r.status;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const noKeys = !a.keys && !a.noKeys;
  if (noKeys) process.stderr.write(`release: ${NO_KEYS_WARNING}\n`);
  const binDir = join(a.outDir, 'bin');
  const pkgDir = join(a.outDir, 'packages');
  // Only what a release writes: the whole directory when it is a release's output, else our entries (--force).
  if (existsSync(join(a.outDir, OUT_MARKER))) rmSync(a.outDir, { recursive: true, force: true });
  else for (const entry of OUT_ENTRIES) rmSync(join(a.outDir, entry), { recursive: true, force: true });
  const foreign = existsSync(a.outDir) && readdirSync(a.outDir).length > 0;
  mkdirSync(a.outDir, { recursive: true });
  // A directory that holds others' files (--force) is never marked: the next release there needs --force again.
  if (!foreign) writeFileSync(join(a.outDir, OUT_MARKER), `aks-node-controller release ${a.version}: this directory is its output\n`);
  say(
    `release ${a.version}: build ${a.arch === 'all' ? 'every target' : `linux-${a.arch} only`}${a.scripts ? `, the script payload checked against ${a.manifests.length} image(s)` : ''}`,
  );
  const bins = await buildAll(a, binDir);
  const host = bins[HOST];
  if (!host) fail(`no ${HOST} executable to preview with (--arch ${a.arch})`);
  if (a.scripts) {
    say(`release ${a.version}: the script payload on each image`);
    await checkPayload(a, host);
  }
  say(`release ${a.version}: package`);
  await packageAll(a, bins, pkgDir, started);
  if (a.repository) {
    say(`release ${a.version}: publish the hotfix index`);
    await publish(a, pkgDir);
  }
  say(`release ${a.version}: preview on each image`);
  const status = await preview(a, host, a.outDir);
  say(
    `release ${a.version}: ${status === 0 ? 'done' : 'built, but NO image takes the hotfix'} in ${Math.round((Date.now() - started) / 1000)} s; packages in ${pkgDir}`,
  );
  if (noKeys) process.stderr.write(`release: ${NO_KEYS_WARNING}\n`);
  process.exitCode = status === 0 ? 0 : 3;
}

main().catch((error) => fail(error.message));

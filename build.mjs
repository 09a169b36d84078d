#!/usr/bin/env node
// Builds aks-node-controller: esbuild bundles src/main.ts (tree-shaken, minified, metafile kept), then
// bun's --compile turns the bundle into one self-contained executable per target.
//
//   node build.mjs                 the machine's own target  -> dist/aks-node-controller
//   node build.mjs --all           every shipped target      -> dist/aks-node-controller-<os>-<arch>
//   node build.mjs --outdir DIR    write somewhere else (tests build hotfix versions this way)
//
// ANC_VERSION=YYYYMM.DD.PATCH stamps the version (D13); without it the version is <today>.0.
// --pointer-keys FILE (or ANC_POINTER_KEYS=FILE) bakes the trusted hotfix-pointer signing keys
// (docs/pointer-signing.md); the build prints the key ids it baked.
// --scripts DIR [--scripts-label L] embeds a script payload (docs/hotfix.md "script payload"): DIR holds
// active + rendered_nodecustomdata_<platform>.yml (the reference's current form; nothing is embedded
// unless active reads true), manifest.json + payloads/, or cloud-config/<platform>.yaml; it is checked with the node's own rules and
// refused with every problem; the label defaults to the stamped version. Without --scripts the build is
// byte-identical to one of the same tree that never heard of script payloads.
// --image-manifest FILE (repeatable, one per image; needs --scripts) checks the payload against the
// images it targets and pins each entry to the bytes it replaces; --unchecked-platform P leaves a listed
// platform without a manifest on purpose (docs/hotfix.md "pinned payloads").
// A release build (--all) without --pointer-keys warns that it trusts no signing key; --no-pointer-keys
// says the omission is on purpose.
// The target runtimes come from the lockfile-pinned @oven/bun-* packages (--compile-executable-path), so
// the build needs nothing but `npm ci` and is byte-reproducible. Never strip the result: a stripped
// bun executable silently turns back into plain bun.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readPointerKeys } from './scripts/pointer-keys.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BUN_VERSION = '1.4.5';

/** Shipped targets: output suffix, bun target name, npm package holding that runtime. */
const TARGETS = [
  { suffix: 'linux-amd64', os: 'linux', arch: 'x64', bunTarget: 'bun-linux-x64-baseline', pkg: '@oven/bun-linux-x64-baseline' },
  { suffix: 'linux-arm64', os: 'linux', arch: 'arm64', bunTarget: 'bun-linux-arm64', pkg: '@oven/bun-linux-aarch64' },
  { suffix: 'darwin-arm64', os: 'darwin', arch: 'arm64', bunTarget: 'bun-darwin-arm64', pkg: '@oven/bun-darwin-aarch64' },
  { suffix: 'darwin-amd64', os: 'darwin', arch: 'x64', bunTarget: 'bun-darwin-x64', pkg: '@oven/bun-darwin-x64', optional: true },
];

/** The release build's warning when it bakes no pointer key (npm run package repeats it). */
export const NO_KEYS_WARNING =
  'warning: no --pointer-keys: these executables trust no pointer signing key, so every signed hotfix pointer is refused and nodes in enforce mode stage no hotfix; pass --pointer-keys FILE, or --no-pointer-keys if that is on purpose';

function fail(message) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = {
    all: false,
    outdir: join(here, 'dist'),
    quiet: false,
    pointerKeys: process.env.ANC_POINTER_KEYS || undefined,
    scripts: undefined,
    scriptsLabel: undefined,
    imageManifests: [],
    unchecked: [],
    noPointerKeys: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--all') args.all = true;
    else if (arg === '--quiet') args.quiet = true;
    else if (arg === '--outdir') args.outdir = resolve(argv[++i] ?? fail('--outdir needs a directory'));
    else if (arg.startsWith('--outdir=')) args.outdir = resolve(arg.slice('--outdir='.length));
    else if (arg === '--pointer-keys') args.pointerKeys = argv[++i] ?? fail('--pointer-keys needs a key set file');
    else if (arg.startsWith('--pointer-keys=')) args.pointerKeys = arg.slice('--pointer-keys='.length);
    else if (arg === '--scripts') args.scripts = resolve(argv[++i] ?? fail('--scripts needs a directory'));
    else if (arg.startsWith('--scripts=')) args.scripts = resolve(arg.slice('--scripts='.length));
    else if (arg === '--scripts-label') args.scriptsLabel = argv[++i] ?? fail('--scripts-label needs a label');
    else if (arg.startsWith('--scripts-label=')) args.scriptsLabel = arg.slice('--scripts-label='.length);
    else if (arg === '--image-manifest') args.imageManifests.push(resolve(argv[++i] ?? fail('--image-manifest needs a file')));
    else if (arg.startsWith('--image-manifest=')) args.imageManifests.push(resolve(arg.slice('--image-manifest='.length)));
    else if (arg === '--unchecked-platform') args.unchecked.push(argv[++i] ?? fail('--unchecked-platform needs a platform'));
    else if (arg.startsWith('--unchecked-platform=')) args.unchecked.push(arg.slice('--unchecked-platform='.length));
    else if (arg === '--no-pointer-keys') args.noPointerKeys = true;
    else
      fail(
        `unknown argument ${arg} (use --all, --outdir DIR, --pointer-keys FILE, --no-pointer-keys, --scripts DIR, --scripts-label L, --image-manifest FILE, --unchecked-platform P, --quiet)`,
      );
  }
  return args;
}

export function stampVersion(env = process.env, today = new Date()) {
  const requested = env.ANC_VERSION;
  if (requested !== undefined && requested !== '') {
    if (!/^\d{6}\.\d{2}\.\d+$/.test(requested)) {
      fail(`ANC_VERSION "${requested}" is not YYYYMM.DD.PATCH (for example 202604.01.1)`);
    }
    return requested;
  }
  const pad = (n) => String(n).padStart(2, '0');
  return `${today.getUTCFullYear()}${pad(today.getUTCMonth() + 1)}.${pad(today.getUTCDate())}.0`;
}

/**
 * The commit and its time, stamped for `version -o json`. The commit time (not the wall clock) keeps the
 * build reproducible; `+dirty` marks uncommitted changes; outside a git checkout both are `unknown`.
 */
export function gitCommit() {
  const git = (...a) =>
    execFileSync('git', a, { cwd: here, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const id = git('rev-parse', '--short=12', 'HEAD');
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    return { id: dirty ? `${id}+dirty` : id, time: new Date(git('log', '-1', '--format=%cI')).toISOString() };
  } catch {
    return { id: 'unknown', time: 'unknown' };
  }
}

// Where the @oven/bun-* runtime packages live; ANC_RUNTIMES_DIR overrides it (tests, vendored runtimes).
const RUNTIMES_DIR = process.env.ANC_RUNTIMES_DIR ? resolve(process.env.ANC_RUNTIMES_DIR) : join(here, 'node_modules');

function packageBinary(pkg) {
  return join(RUNTIMES_DIR, pkg, 'bin', 'bun');
}

export function hostTarget() {
  const target = TARGETS.find((t) => t.os === process.platform && t.arch === process.arch);
  if (!target) fail(`no shipped target for this machine (${process.platform}-${process.arch}); shipped: linux x64/arm64, darwin arm64`);
  return target;
}

/** The step that installs a target's runtime: npm ci brings only this machine's (optionalDependencies). */
function installStep(target) {
  const host = target.os === process.platform && target.arch === process.arch;
  return host
    ? 'run npm ci; it is pinned in package-lock.json'
    : "run npm run runtimes: npm ci installs only this machine's runtime; that adds the others, checked against package-lock.json";
}

export function runtimeFor(target) {
  const path = packageBinary(target.pkg);
  if (!existsSync(path)) {
    return {
      missing: `target ${target.suffix}: runtime ${target.pkg}@${BUN_VERSION} is not installed in ${RUNTIMES_DIR} (${installStep(target)})`,
    };
  }
  return { path };
}

/**
 * Reads and checks a script payload directory with the agent's own code (scripts/script-payload-input.ts,
 * bundled on the fly), so the build refuses exactly what a node would refuse.
 */
export async function loadScripts(dir, label, scratchDir, check) {
  const loader = join(scratchDir, 'scripts-input.mjs');
  await build({
    entryPoints: [join(here, 'scripts', 'script-payload-input.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: loader,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const { loadScriptPayload } = await import(pathToFileURL(loader).href);
  try {
    return loadScriptPayload(dir, label, check);
  } catch (error) {
    fail(`--scripts ${dir}: ${error.message}`);
  }
}

/** Keep in step with src/platform/version-marker.ts. */
const VERSION_MARKER_PREFIX = 'ANC_VERSION_MARKER=';

async function bundle(outdir, version, commit, pointerKeys, scripts) {
  const outfile = join(outdir, '.build', 'bundle.cjs');
  const result = await build({
    entryPoints: [join(here, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    treeShaking: true,
    metafile: true,
    legalComments: 'none',
    define: {
      __ANC_VERSION__: JSON.stringify(version),
      // The version as bytes any reader finds in the executable without running it (image manifest --root,
      // any architecture); `version` prints the version taken from this same string (src/platform/version-marker.ts).
      __ANC_VERSION_MARKER__: JSON.stringify(`${VERSION_MARKER_PREFIX}${version};`),
      __ANC_COMMIT__: JSON.stringify(commit.id),
      __ANC_BUILD_TIME__: JSON.stringify(commit.time),
      __ANC_POINTER_KEYS__: JSON.stringify(pointerKeys),
      // Only with --scripts: a build without it has exactly the defines it always had.
      ...(scripts ? { __ANC_SCRIPT_PAYLOAD__: JSON.stringify(scripts.text) } : {}),
    },
    outfile,
    logLevel: 'warning',
  });
  writeFileSync(join(outdir, '.build', 'meta.json'), JSON.stringify(result.metafile));
  return { outfile, metafile: result.metafile };
}

function sizeReport(metafile) {
  const inputs = Object.entries(metafile.outputs)[0][1].inputs;
  const byPackage = new Map();
  for (const [file, info] of Object.entries(inputs)) {
    const key = file.includes('node_modules/')
      ? file
          .split('node_modules/')[1]
          .split('/')
          .slice(0, file.includes('/@') ? 2 : 1)
          .join('/')
      : file.split('/').slice(0, 2).join('/');
    byPackage.set(key, (byPackage.get(key) ?? 0) + info.bytesInOutput);
  }
  return [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `  ${String(v).padStart(8)}  ${k}`)
    .join('\n');
}

/** Compiles a bundle with the agent's exact runtime and flags (bench/startup.mjs compiles a trivial program so). */
export function compile(compiler, bundleFile, target, runtime, outfile) {
  execFileSync(
    compiler,
    [
      'build',
      bundleFile,
      '--compile',
      '--minify',
      '--bytecode',
      '--no-compile-autoload-dotenv',
      '--no-compile-autoload-bunfig',
      `--target=${target.bunTarget}`,
      `--compile-executable-path=${runtime}`,
      `--outfile=${outfile}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, BUN_BE_BUN: undefined, BUN_OPTIONS: undefined } },
  );
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.scriptsLabel && !args.scripts) fail('--scripts-label needs --scripts DIR');
  if (args.imageManifests.length > 0 && !args.scripts) fail('--image-manifest needs --scripts DIR (it checks a script payload)');
  if (args.unchecked.length > 0 && args.imageManifests.length === 0) fail('--unchecked-platform needs --image-manifest FILE');
  if (args.noPointerKeys && args.pointerKeys) fail('--no-pointer-keys and --pointer-keys contradict each other');
  const version = stampVersion();
  const pointerKeys = readPointerKeys(args.pointerKeys, fail);
  const host = hostTarget();
  const compilerRuntime = runtimeFor(host);
  if (compilerRuntime.missing) fail(compilerRuntime.missing);
  mkdirSync(join(args.outdir, '.build'), { recursive: true });
  const check = args.imageManifests.length > 0 ? { manifests: args.imageManifests, unchecked: args.unchecked } : undefined;
  const loaded = args.scripts
    ? await loadScripts(args.scripts, args.scriptsLabel ?? version, join(args.outdir, '.build'), check)
    : undefined;
  // The merged form switched off (`active` is not `true`): the build embeds nothing and says so.
  const inactive = loaded?.inactive;
  const scripts = inactive === undefined ? loaded : undefined;
  if (inactive !== undefined) process.stderr.write(`build: no script payload embedded: ${inactive} (the generator's switch is off)\n`);
  const { outfile: bundleFile, metafile } = await bundle(args.outdir, version, gitCommit(), pointerKeys.text, scripts);
  const wanted = args.all ? TARGETS : [host];
  const built = [];
  for (const target of wanted) {
    const runtime = runtimeFor(target);
    if (runtime.missing) {
      if (target.optional) continue;
      fail(runtime.missing);
    }
    const outfile = join(args.outdir, args.all ? `aks-node-controller-${target.suffix}` : 'aks-node-controller');
    compile(compilerRuntime.path, bundleFile, target, runtime.path, outfile);
    // The marker must be readable from the bytes (issue 41 R4-18): a build where it is not is refused.
    if (!readFileSync(outfile).includes(`${VERSION_MARKER_PREFIX}${version};`))
      fail(`${outfile}: the version marker is not in the executable`);
    built.push(`${outfile} (${target.bunTarget}, ${statSync(outfile).size} bytes)`);
  }
  if (args.all && pointerKeys.ids.length === 0 && !args.noPointerKeys) process.stderr.write(`${NO_KEYS_WARNING}\n`);
  if (!args.quiet) {
    process.stdout.write(`aks-node-controller ${version}\nbundle ${statSync(bundleFile).size} bytes; by input:\n${sizeReport(metafile)}\n`);
    process.stdout.write(built.map((b) => `built ${b}`).join('\n') + '\n');
    const baked =
      pointerKeys.ids.length > 0 ? pointerKeys.ids.join(', ') : 'none (every signed pointer is refused; enforce mode stages nothing)';
    process.stdout.write(`pointer keys baked: ${baked}\n`);
    if (scripts) {
      const { payload, digest, form } = scripts;
      const platforms = [...new Set(payload.entries.flatMap((e) => e.platforms))].join(', ');
      process.stdout.write(
        `script payload embedded: label ${payload.label}, ${payload.entries.length} entries (${platforms}), from ${form}, sha256:${digest}\n`,
      );
      for (const line of scripts.images ?? []) process.stdout.write(`  checked against ${line}\n`);
      if (payload.uncheckedPlatforms?.length) process.stdout.write(`  unchecked on purpose: ${payload.uncheckedPlatforms.join(', ')}\n`);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main().catch((error) => fail(error.message));

#!/usr/bin/env node
// The whole test suite: lint and format check (Biome), type-check, unit tests, build of the host binary, end-to-end tests against
// the compiled binary in sandbox roots. Ends with one line `N passed, N failed` (uvu prints none).
//
//   node test/run.mjs                 everything
//   node test/run.mjs <pattern>       only test files whose path matches <pattern> (both phases)
//   node test/run.mjs --e2e-only [p]  skip type-check and unit tests
//   --no-setup                        skip scripts/ensure-tools.sh (Debian packages, npm ci)
//   --jobs N                          end-to-end files run N at a time (default 2; ANC_E2E_JOBS)
//   ANC_HIDE_DEBIAN_TOOLS=1           run with the Debian-only tools hidden from PATH (the Mac subset)
// End-to-end files whose tools are missing (test/needs.mjs) are skipped with one line each saying why. The
// sandbox end-to-end files run two at a time (each in its own uvu process; most of their time is spent
// waiting on the agents they start), each file's output printed whole when it ends. The real boots
// (test/e2e/vm/) run last, one file at a time, as a phase of their own with its own bound; their base roots
// (vhd/vm/build-base.sh, the machine's cache) are made ready in the background from the suite's start, so
// a cold machine builds them while the other phases run. Every phase prints its duration, and a last
// table lists them all.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEBIAN_TOOLS, E2E_NEEDS } from './needs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const e2eOnly = args.includes('--e2e-only');
const jobsArg = args.includes('--jobs') ? args[args.indexOf('--jobs') + 1] : process.env.ANC_E2E_JOBS;
const jobs = Math.max(1, Number(jobsArg ?? 2) || 1);
const pattern = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--jobs')[0];
/** [phase, seconds] in the order they ran. */
const phases = [];
const suiteStarted = Date.now();
let passed = 0;
let failed = 0;

// ANC_HIDE_DEBIAN_TOOLS=1: one directory of links to every other executable on PATH stands in for PATH.
let hiddenDir;
if (process.env.ANC_HIDE_DEBIAN_TOOLS === '1') {
  hiddenDir = mkdtempSync(join(tmpdir(), 'anc-portable-path-'));
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    let names = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (DEBIAN_TOOLS.includes(name) || existsSync(join(hiddenDir, name))) continue;
      try {
        symlinkSync(join(dir, name), join(hiddenDir, name));
      } catch {}
    }
  }
  process.env.PATH = hiddenDir;
  process.stdout.write(`Debian tools hidden from PATH: ${DEBIAN_TOOLS.join(', ')}\n`);
}

function onPath(tool) {
  if (tool === 'linux') return process.platform === 'linux';
  if (tool === 'root') return process.getuid?.() === 0;
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      return statSync(join(dir, tool)).isFile();
    } catch {
      return false;
    }
  });
}

function step(name, command, commandArgs, env = {}, timeoutMin = 15) {
  process.stdout.write(`\n== ${name}\n`);
  const started = Date.now();
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    // A hung test must fail the run, not stall CI: the whole phase has a bound.
    timeout: timeoutMin * 60_000,
    killSignal: 'SIGKILL',
  });
  if (result.error) process.stdout.write(`${name}: ${result.error.message}\n`);
  process.stdout.write(result.stdout ?? '');
  const seconds = (Date.now() - started) / 1000;
  phases.push([name, seconds]);
  process.stdout.write(`(${name}: ${seconds.toFixed(1)} s)\n`);
  return result;
}

/** One end-to-end file in its own uvu process; its stdout and stderr kept for one block of output. */
function runFile(file, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, uvu('test/e2e', `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`), {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // A hung file must fail the run, not stall CI: what is left of the phase's bound.
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(timeoutMs, 1000));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** The files `jobs` at a time; each file's output printed whole, with its duration, when it ends. */
async function stepFiles(name, files, env, timeoutMin) {
  process.stdout.write(`\n== ${name} (${files.length} files, ${jobs} at a time)\n`);
  const started = Date.now();
  const deadline = started + timeoutMin * 60_000;
  const queue = [...files];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const fileStarted = Date.now();
      const result = await runFile(file, env, deadline - Date.now());
      const took = ((Date.now() - fileStarted) / 1000).toFixed(1);
      const killed = result.signal ? ` KILLED (${result.signal}: the phase's ${timeoutMin} min bound)` : '';
      process.stdout.write(`\n-- ${file} (${took} s)${killed}\n${result.stdout}${result.stderr}`);
      countUvu(file, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  const seconds = (Date.now() - started) / 1000;
  phases.push([name, seconds]);
  process.stdout.write(`(${name}: ${seconds.toFixed(1)} s)\n`);
}

function countUvu(name, result) {
  // The last summary is uvu's own: a failing test may quote a nested run's summary before it.
  const last = (re) => [...(result.stdout ?? '').matchAll(re)].at(-1)?.[1];
  const total = Number(last(/Total:\s+(\d+)/g) ?? NaN);
  const ok = Number(last(/Passed:\s+(\d+)/g) ?? NaN);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    // No summary at all: the runner itself crashed (a syntax error, an import that throws).
    process.stdout.write(`${name}: no uvu summary (exit ${result.status}); counted as one failure\n`);
    failed += 1;
    return;
  }
  passed += ok;
  // uvu's Total counts the tests that ran: test.skip() ones are only in Skipped.
  failed += total - ok;
  if (result.status !== 0 && total - ok === 0) failed += 1;
}

function countCheck(result) {
  if (result.status === 0) passed += 1;
  else failed += 1;
}

// Only *.test.ts files are test files (fixtures such as test/e2e/cases/*/ live beside them); a pattern given
// on the command line narrows that further.
const filePattern = pattern ? `^(?=.*${pattern}).*\\.test\\.ts$` : '\\.test\\.ts$';
const uvu = (dir, files = filePattern) => ['--no-warnings', '--loader', 'tsm', 'node_modules/uvu/bin.js', dir, files];

/** The e2e files to run: matching the pattern, with their tools on PATH; the rest are named and skipped. */
function e2eFiles(which) {
  const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  const e2eDir = join(root, 'test', 'e2e');
  const files = walk(e2eDir)
    .map((f) => relative(e2eDir, f))
    .filter((f) => new RegExp(filePattern).test(f))
    .sort();
  const run = [];
  // The real boots (test/e2e/vm/) are a phase of their own: its own time bound and duration line.
  for (const file of files.filter((f) => f.startsWith('vm/') === (which === 'vm'))) {
    const need = E2E_NEEDS.find(([prefix]) => file.startsWith(prefix));
    const missing = need ? need[1].filter((tool) => !onPath(tool)) : [];
    if (missing.length === 0) run.push(file);
    else
      process.stdout.write(
        `skip: ${file}: ${need[2]} (needs ${missing.map((t) => (t === 'linux' ? 'Linux' : t === 'root' ? 'root' : t)).join(', ')})\n`,
      );
  }
  return run;
}

if (!process.argv.includes('--no-setup')) {
  const setup = spawnSync('bash', ['scripts/ensure-tools.sh'], { cwd: root, stdio: 'inherit' });
  if (setup.status !== 0) {
    process.stdout.write('set-up failed (scripts/ensure-tools.sh)\n0 passed, 1 failed\n');
    process.exit(1);
  }
}

// The suite must never write the machine's own node paths: what exists before must be all that exists after.
const HOST_NODE_PATHS = ['/var/log/azure', '/opt/azure', '/etc/kubernetes', '/var/lib/kubelet', '/usr/bin/aks-node-controller'];
const hostBefore = HOST_NODE_PATHS.filter((p) => existsSync(p));

// The VM phase's base roots: a cache hit takes seconds; a cold machine builds them (arm64 on amd64: tens of
// minutes of emulated package scripts) while lint, unit and end-to-end tests run, each architecture in its
// own process so the native one is ready long before the foreign one. The VM tests wait for an entry still
// being built (build-base.sh locks it).
const vmFiles = e2eFiles('vm');
const HOST_VM_ARCH = process.arch === 'arm64' ? 'arm64' : 'amd64';
/** The VM files in the order they run: the host's own architecture first, the foreign arm64 boot last. */
const vmGroups = [
  [HOST_VM_ARCH, vmFiles.filter((f) => !f.includes('arm64'))],
  ['arm64', vmFiles.filter((f) => f.includes('arm64'))],
].filter(([, files]) => files.length > 0);
mkdirSync(join(root, '.vm'), { recursive: true });
/** arch -> a promise of {arch, status, out, err, startedAt}: build-base.sh's exit, JSON line and stderr, and its start in the suite. */
const bases = new Map(
  [...new Set(vmGroups.map(([arch]) => arch))].map((arch) => {
    const started = Date.now();
    return [
      arch,
      new Promise((resolve) => {
        // stderr to a file: the synchronous phases below do not read pipes while they run.
        const logFile = join(root, '.vm', `prewarm-base-${arch}.log`);
        const log = openSync(logFile, 'w');
        const child = spawn('bash', ['vhd/vm/build-base.sh', '--arch', arch], { cwd: root, stdio: ['ignore', 'pipe', log] });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        child.on('close', (status) => {
          closeSync(log);
          // A spawnSync phase may hold the event loop past the child's end: its own `seconds` says when it was ready.
          resolve({ arch, status, out, err: readFileSync(logFile, 'utf8'), startedAt: (started - suiteStarted) / 1000 });
        });
      }),
    ];
  }),
);

/** Waits for one architecture's base root, says how it came (cache hit or built, and when) and how long we waited. */
async function awaitBase(arch) {
  process.stdout.write(`\n== VM base root ${arch} (vhd/vm/build-base.sh, started at the suite's start)\n`);
  const waited = Date.now();
  const b = await bases.get(arch);
  let r = {};
  try {
    r = JSON.parse(b.out.trim().split('\n').at(-1) ?? '');
  } catch {}
  if (b.status === 0 && r.hash) process.stdout.write(`${arch} base ${r.hash}: cache ${r.cache} (${r.seconds} s)\n`);
  else process.stdout.write(`${arch}: build failed, exit ${b.status} (the VM tests try again and say why)\n${b.err.slice(-2000)}\n`);
  const seconds = (Date.now() - waited) / 1000;
  phases.push([`VM base root ${arch} (wait beyond the other phases)`, seconds]);
  process.stdout.write(
    `(VM base root ${arch}: ${r.seconds === undefined ? 'not' : `ready ${((b.startedAt + r.seconds) / 60).toFixed(1)} min`} after the suite's start; waited ${seconds.toFixed(1)} s for it)\n`,
  );
}

if (!e2eOnly) {
  countCheck(
    step('lint and format (biome ci)', process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--reporter=summary', '.']),
  );
  countCheck(step('type-check (tsc)', process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.']));
  countUvu('unit', step('unit tests', process.execPath, uvu('test/unit')));
}
const build = step('build host binary', process.execPath, ['build.mjs', '--quiet']);
countCheck(build);
if (build.status === 0) {
  const env = { ANC_BIN: join(root, 'dist', 'aks-node-controller') };
  const files = e2eFiles('sandbox');
  if (files.length > 0) await stepFiles('end-to-end tests (dist/aks-node-controller)', files, env, 45);
  const escapeRegex = (f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // One uvu process per architecture, one file and one qemu at a time: two guests starve each other under
  // TCG. The host's boots start as soon as its base is ready; on a cold machine the arm64 base is still
  // building beside them, and its boot waits for it.
  for (const [arch, files] of vmGroups) {
    await awaitBase(arch);
    countUvu(
      `vm ${arch}`,
      step(
        `real boots in a VM, ${arch} (test/e2e/vm: base root from the machine cache, image build, one qemu boot at a time)`,
        process.execPath,
        uvu('test/e2e', `^(${files.map(escapeRegex).join('|')})$`),
        env,
        60,
      ),
    );
  }
} else {
  failed += 1;
}
const appeared = HOST_NODE_PATHS.filter((p) => existsSync(p) && !hostBefore.includes(p));
process.stdout.write(`\n== host untouched: ${appeared.length === 0 ? 'yes' : `NO, created ${appeared.join(', ')}`}\n`);
countCheck({ status: appeared.length === 0 ? 0 : 1 });
if (hiddenDir) rmSync(hiddenDir, { recursive: true, force: true });
process.stdout.write('\n== phases\n');
for (const [name, seconds] of phases) process.stdout.write(`  ${(seconds / 60).toFixed(1).padStart(5)} min  ${name}\n`);
process.stdout.write(`  ${((Date.now() - suiteStarted) / 60_000).toFixed(1).padStart(5)} min  in all\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 ? 0 : 1;

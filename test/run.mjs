#!/usr/bin/env node
// The whole test suite: lint and format check (Biome), type-check, unit tests, build of the host binary, end-to-end tests against
// the compiled binary in sandbox roots. Ends with one line `N passed, N failed` (uvu prints none).
//
//   node test/run.mjs                 everything
//   node test/run.mjs <pattern>       only test files whose path matches <pattern> (both phases)
//   node test/run.mjs --e2e-only [p]  skip type-check and unit tests
//   --no-setup                        skip scripts/ensure-tools.sh (Debian packages, npm ci)
//   ANC_HIDE_DEBIAN_TOOLS=1           run with the Debian-only tools hidden from PATH (the Mac subset)
// End-to-end files whose tools are missing (test/needs.mjs) are skipped with one line each saying why. The
// real boots (test/e2e/vm/) run last, as a phase of their own with its own bound and duration line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEBIAN_TOOLS, E2E_NEEDS } from './needs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const e2eOnly = args.includes('--e2e-only');
const pattern = args.filter((a) => !a.startsWith('--'))[0];
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
  process.stdout.write(`(${name}: ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return result;
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
  const escapeRegex = (f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return run.length === 0 ? undefined : `^(${run.map(escapeRegex).join('|')})$`;
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
  const files = e2eFiles('sandbox');
  if (files) {
    countUvu(
      'e2e',
      step(
        'end-to-end tests (dist/aks-node-controller)',
        process.execPath,
        uvu('test/e2e', files),
        {
          ANC_BIN: join(root, 'dist', 'aks-node-controller'),
        },
        45,
      ),
    );
  }
  const vmFiles = e2eFiles('vm');
  if (vmFiles) {
    countUvu(
      'vm',
      step(
        'real boots in a VM (test/e2e/vm: image build, then one qemu boot at a time)',
        process.execPath,
        uvu('test/e2e', vmFiles),
        { ANC_BIN: join(root, 'dist', 'aks-node-controller') },
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
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 ? 0 : 1;

// The repository stands on its own: a clone anywhere must build and pass its tests. A static scan finds
// path literals that point outside the repository (the team's shared folder, home directories); a
// runtime check runs the generator and the tests that read repository data under Node's permission
// model, with file reads limited to the repository and a private temp directory, so any read outside
// fails with ERR_ACCESS_DENIED whatever path spelling it uses.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = process.cwd();

/** The repository's files: tracked, or new and not ignored (build output, .vm/ and node_modules are not ours to scan). */
function repoFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\0').filter((rel) => rel !== '' && existsSync(join(ROOT, rel)));
}

// Everything that runs as part of building or testing (spec/ and docs/ are prose, src/ names on-node paths).
const RUNS = /^(test|scripts|bench|vhd|\.ci)\/|^(build\.mjs|package\.json|tsconfig\.json)$/;
const TEXT = /\.(m?[jt]s|json|sh|bash|spec|service|ya?ml)$|(^|\/)(run|[^./]+)$/;
// Spelled in pieces so that this file does not match itself.
const OUTSIDE = [
  ['the shared spec folder', new RegExp(['\\.\\.', 'shared'].join('/'))],
  ['the shared spec folder', new RegExp(['shared', '(spec|fixtures)', ''].join('/'))],
  ['an absolute /work path', new RegExp(['', 'work', ''].join('/'))],
  ['a home directory', new RegExp(['', '(home|Users)', '[^/\'"`\\s]+'].join('/'))],
] as const;

test('no test, script, benchmark or build file names a path outside the repository', () => {
  const files = repoFiles().filter((rel) => RUNS.test(rel) && TEXT.test(rel));
  assert.ok(files.length > 50, `scanned ${files.length} files`);
  const found: string[] = [];
  for (const rel of files) {
    const lines = readFileSync(join(ROOT, rel), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [what, pattern] of OUTSIDE) if (pattern.test(line)) found.push(`${rel}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.equal(found, []);
});

test('relative links in README.md, docs/ and spec/README.md resolve inside the repository', () => {
  const docs = ['README.md', 'spec/README.md', ...readdirSync(join(ROOT, 'docs')).map((n) => `docs/${n}`)];
  const broken: string[] = [];
  for (const doc of docs) {
    for (const m of readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const path = resolve(dirname(join(ROOT, doc)), target);
      if (!path.startsWith(ROOT + '/') || !existsSync(path)) broken.push(`${doc}: ${target}`);
    }
  }
  assert.equal(broken, []);
});

/** Node's permission flag: `--permission` from Node 22.13/23.5, `--experimental-permission` before. */
const STABLE = process.allowedNodeEnvironmentFlags.has('--permission');
const PERMISSION = STABLE ? '--permission' : '--experimental-permission';
/** A directory and everything under it: a trailing `/*` wildcard before the stable flag, the directory after. */
const under = (dir: string) => (STABLE ? dir : `${dir}/*`);

function confined(args: string[]) {
  const tmp = mkdtempSync(join(tmpdir(), 'anc-self-contained-'));
  try {
    const flags = [PERMISSION, `--allow-fs-read=${under(ROOT)}`, `--allow-fs-read=${under(tmp)}`, `--allow-fs-write=${under(tmp)}`];
    flags.push('--allow-child-process', '--allow-worker');
    return spawnSync(process.execPath, [...flags, '--no-warnings', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 300_000,
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test('runtime: the generator reads the vendored catalogue, nothing outside the repository', () => {
  const ok = confined(['scripts/gen-config.mjs', '--check']);
  assert.is(ok.status, 0, ok.stderr);
  // The same confinement does refuse a read outside the repository (so the check above means something).
  const outside = confined(['-e', "require('node:fs').readFileSync('/etc/hostname')"]);
  assert.match(outside.stderr, /ERR_ACCESS_DENIED/);
});

test('runtime: the tests that read repository data (fixtures, spec, goldens) pass confined to the repository', () => {
  // The unit files that read files of the repository (the rest build their inputs in memory or in temp dirs).
  const pattern = '^(?=.*(config/(marshal|schema)|cse/|architecture)).*\\.test\\.ts$';
  const r = confined(['--loader', 'tsm', 'node_modules/uvu/bin.js', 'test/unit', pattern]);
  const total = Number(/Total:\s+(\d+)/.exec(r.stdout)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(r.stdout)?.[1] ?? NaN);
  assert.ok(total > 50, `ran ${total} tests\n${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  assert.is(passed, total, r.stdout.slice(-4000));
});

test.run();

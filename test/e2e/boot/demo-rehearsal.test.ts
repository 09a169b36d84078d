// The release engineer's rehearsal (issue 31): `npm run demo` boots a sandboxed node from one's own
// packages (--packages), repository directory (--repo) and pointer file (--pointer: a ConfigMap from
// `hotfix pointer render`), cleans its temporary files by default, and with --keep keeps them and the
// servers up so the printed kubectl command works; Ctrl-C stops the servers.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAgent, buildHotfixPackages } from '../../fakes/repos.ts';
import { BIN, runAnc } from '../harness.ts';
import { KUBECTL } from '../pointer/kubectl.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-demo-rehearsal-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

let packagesDir = '';
let target = '';

test.before(async () => {
  // The image runs this build; the hotfix is its next patch, packaged as a release engineer would.
  const baked = (await runAnc(['version'])).stdout.trim();
  const [y, d, patch] = baked.split('.');
  target = `${y}.${d}.${Number(patch) + 1}`;
  const bin = buildAgent(target, join(work, 'hotfix-bin'));
  packagesDir = join(work, 'packages');
  const built = buildHotfixPackages(target, join(work, 'built'), { bin });
  mkdirSync(packagesDir, { recursive: true });
  spawnSync('cp', [built.deb, packagesDir]);
});

/**
 * scripts/demo.ts as `npm run demo -- ...` runs it after its tool set-up (never npm ci from a test), with
 * its own TMPDIR so what it leaves behind can be counted.
 */
function demo(args: string[], tmp: string) {
  return spawn(process.execPath, ['--no-warnings', '--loader', 'tsm', 'scripts/demo.ts', ...args], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

test('--packages: boots from the given packages, the node stages that version, and nothing is left in TMPDIR', async () => {
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const child = demo(['--packages', packagesDir, '--baked-bin', BIN], tmp);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const code = await new Promise((r) => child.on('close', r));
  assert.is(code, 0, out);
  assert.match(out, `serving your packages: aks-node-controller_${target}_amd64.deb`);
  assert.match(out, `staged hotfix binary reports:  ${target}`);
  assert.match(out, /the sandbox \(\d+ MB under .*\) is removed: --keep keeps it and the servers/);
  assert.equal(readdirSync(tmp), [], `left in TMPDIR: ${readdirSync(tmp).join(', ')}`);
});

test('--repo and --pointer (a rendered ConfigMap) with --keep: files and servers stay, the printed kubectl works, Ctrl-C stops', async () => {
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const repo = join(work, 'repo');
  mkdirSync(join(repo, 'pool/main/a/aks-node-controller'), { recursive: true });
  spawnSync('cp', ['-r', `${packagesDir}/.`, join(repo, 'pool/main/a/aks-node-controller')]);
  const [y, d] = target.split('.');
  const rendered = await runAnc([
    'hotfix',
    'pointer',
    'render',
    '--hotfix',
    `${y}.${d}=${target}`,
    '--serial',
    '5',
    '--expires',
    '2099-01-01T00:00:00Z',
  ]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const pointer = join(work, 'pointer.yaml');
  writeFileSync(pointer, rendered.stdout);
  const child = demo(['--repo', repo, '--pointer', pointer, '--baked-bin', BIN, '--keep'], tmp);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const closed = new Promise((r) => child.on('close', r));
  const deadline = Date.now() + 300_000;
  while (!out.includes('Ctrl-C stops the servers')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`demo did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.match(out, `staged hotfix binary reports:  ${target}`);
  const kubectl = out.split('\n').find((l) => l.startsWith('try: kubectl'))!;
  const got = spawnSync('bash', ['-c', kubectl.slice(5).replace(/^kubectl/, KUBECTL)], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tmp },
  });
  assert.is(got.status, 0, got.stderr);
  assert.match(got.stdout, /pointer\.json|hotfixes\.json/);
  const status = out.split('\n').find((l) => l.startsWith('try: AKS_NODE_ROOT='))!;
  const report = spawnSync('bash', ['-c', status.slice(5)], { encoding: 'utf8' });
  assert.match(report.stdout, /^succeeded: /);
  process.kill(-child.pid!, 'SIGINT');
  assert.is(await closed, 0, out);
  const root = /sandbox root \(kept\): (\S+)/.exec(out)![1]!;
  assert.ok(existsSync(root), 'the sandbox is kept');
  rmSync(root, { recursive: true, force: true });
});

test.run();

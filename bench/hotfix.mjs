#!/usr/bin/env node
// download-hotfix end to end on loopback: the baked agent (202604.01.0) takes the hotfix 202604.01.1 (a
// typical fix: one log message changed) into throwaway roots through each path, measured in one run:
//   delta       the repository fast path with aks-node-controller-delta in the index (docs/hotfix.md)
//   repository  the same fast path, full package (no delta package in the index)
//   apt-get     --method package-manager: the real apt-get/dpkg
//   dnf         --method package-manager: the real dnf
// Repositories are signed and carry a realistic index (thousands of entries). Prints the median whole-
// command time, the bytes the repository served per run, stage medians, ratios, and each package's size.
// Never asserts.
//
//   npm run bench:hotfix [-- --runs N] [-- --release]     (--release also builds the xz packages: slow)
// Runs under tsm (package.json script) because it reuses the test repo builders in test/fakes/.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildAgent, buildBaseStubRpm, buildHotfixPackages, prepareAptRoot, prepareRpmRoot, startAptRepo, startRpmRepo,
} from '../test/fakes/repos.ts';
import { buildTypicalFix, FIX } from '../test/fakes/typical-fix.ts';
import { buildPackages } from '../vhd/packaging/build-packages.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;
const release = args.includes('--release');
const work = mkdtempSync(join(tmpdir(), 'anc-bench-hotfix-'));
const EVENTS = 'var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function runAgent(bin, root, method) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(bin, ['download-hotfix', '--method', method], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: root }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      code === 0 ? resolve(ms) : reject(new Error(`download-hotfix exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** The DownloadHotfix event's key=value tokens (path, stage durations). */
function eventTokens(root) {
  const dir = join(root, EVENTS);
  const message = readdirSync(dir).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')))
    .find((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')?.Message ?? '';
  return Object.fromEntries([...message.split(' | ')[0].matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}

async function timePath(name, { baked, repo, prepare, method }) {
  const samples = [];
  const bytes = [];
  const stages = {};
  let path = '';
  for (let i = 0; i < runs; i++) {
    const root = join(work, `${name}-${i}`);
    prepare(root, repo);
    mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
    copyFileSync(baked, join(root, 'opt/azure/containers/aks-node-controller'));
    chmodSync(join(root, 'opt/azure/containers/aks-node-controller'), 0o755);
    writeFileSync(join(root, 'opt/azure/containers/aks-node-controller-hotfix.json'), '{"hotfixes":{"202604.01":"202604.01.1"}}');
    const served = repo.bytesServed.count;
    samples.push(await runAgent(join(root, 'opt/azure/containers/aks-node-controller'), root, method));
    bytes.push(repo.bytesServed.count - served);
    const tokens = eventTokens(root);
    path = tokens.path;
    for (const [k, v] of Object.entries(tokens)) if (k.endsWith('Ms')) (stages[k] ??= []).push(Number(v));
    rmSync(root, { recursive: true, force: true });
  }
  const stageMedians = Object.entries(stages).map(([k, v]) => `${k}=${median(v).toFixed(0)}`).join(' ');
  return { name, path, median: median(samples), min: Math.min(...samples), max: Math.max(...samples), bytes: median(bytes), stageMedians };
}

const mb = (n) => (n / 1e6).toFixed(1).padStart(6) + ' MB';
const size = (n) => (n < 1e6 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1e6).toFixed(1)} MB`).padStart(9);

try {
  const baked = buildAgent('202604.01.0', join(work, 'baked'));
  const t0 = Date.now();
  const fixed = buildTypicalFix('202604.01.1', join(work, 'fixed'));
  const hot = buildHotfixPackages('202604.01.1', join(work, 'pkg'), { bin: fixed, deltaFrom: [baked] });
  const packMs = Date.now() - t0;
  const aptDelta = await startAptRepo(join(work, 'apt-delta'), [hot.deb, hot.delta.deb]);
  const apt = await startAptRepo(join(work, 'apt'), [hot.deb]);
  const rpm = await startRpmRepo(join(work, 'rpm'), [hot.rpm]);
  const stub = buildBaseStubRpm(join(work, 'stub'));
  const aptRoot = (root, repo) => prepareAptRoot(root, repo);
  const rpmRoot = (root, repo) => prepareRpmRoot(root, repo, stub);
  const rows = [
    await timePath('delta', { baked, repo: aptDelta, prepare: aptRoot, method: 'repository' }),
    await timePath('repository', { baked, repo: apt, prepare: aptRoot, method: 'repository' }),
    await timePath('apt-get', { baked, repo: apt, prepare: aptRoot, method: 'package-manager' }),
    await timePath('dnf', { baked, repo: rpm, prepare: rpmRoot, method: 'package-manager' }),
  ];
  for (const repo of [aptDelta, apt, rpm]) await repo.close();
  console.log(`download-hotfix, whole command on loopback (fetch + verify + stage, 202604.01.0 -> 202604.01.1, fix: ${FIX.file} log message), ${runs} runs each:`);
  for (const r of rows) {
    console.log(`  ${r.name.padEnd(11)} path=${r.path.padEnd(10)} median ${r.median.toFixed(0).padStart(5)} ms (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)})  served ${size(r.bytes)}  ${r.stageMedians}`);
  }
  const by = Object.fromEntries(rows.map((r) => [r.name, r]));
  const ratio = (a, b) => `${(by[a].median / by[b].median).toFixed(2)}x the time, ${(by[a].bytes / by[b].bytes * 100).toFixed(2)}% of the bytes`;
  console.log(`  delta vs full fast path: ${ratio('delta', 'repository')}`);
  console.log(`  delta vs apt-get:        ${ratio('delta', 'apt-get')}`);
  console.log(`  full fast path vs apt:   ${ratio('repository', 'apt-get')}`);
  console.log(`\npackages vs raw executable (${mb(statSync(hot.bin).size)}), amd64; build of the fast packages + deltas: ${(packMs / 1000).toFixed(1)} s incl. agent build:`);
  const packages = [...hot.built];
  if (release) {
    const r0 = Date.now();
    packages.push(...buildPackages({ bins: { amd64: hot.bin }, outDir: join(work, 'release'), version: '202604.01.1', deltaFrom: [baked] }).map((p) => ({ ...p, release: true })));
    console.log(`  (release packages built in ${((Date.now() - r0) / 1000).toFixed(0)} s)`);
  }
  for (const p of packages) {
    const delta = p.package === 'aks-node-controller-delta';
    const kind = delta ? 'vcdiff, gzip' : p.release ? (p.format === 'deb' ? 'xz -9' : 'xz w9') : p.format === 'deb' ? 'zstd -3' : 'zstd w3';
    console.log(`  ${p.package.padEnd(26)} .${p.format.padEnd(3)} ${kind.padEnd(12)} ${size(p.size)}  = ${((p.size / p.rawSize) * 100).toFixed(3)}% of raw`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

#!/usr/bin/env node
// download-hotfix end to end on loopback, all paths in one run: the baked agent (202604.01.0) stages the
// hotfix (202604.01.1, a typical fix: one log message changed) through the repository fast path with the
// delta package in the index (docs/hotfix.md "Delta packages"), through the fast path with the full
// package only, through the real apt-get/dpkg and through the real dnf (`--method package-manager`),
// each into a throwaway root holding the node's configuration (what the health gate's dry-run self-test
// provisions against). Same
// release packages (zstd -19 unless --compression says otherwise) and the same realistic indices
// (thousands of other entries) for every path, each repository with its hotfix index published as
// docs/hotfix.md says (plus one delta repository without it, the old way). Prints medians, the fast path
// as a share of the package manager's time, the bytes each path pulled from the server, the peak RSS of
// each whole command (children counted, /usr/bin/time) and of the agent alone (its final log line), the
// physical floor, and package sizes. Never asserts.
//
//   npm run bench:hotfix [-- --runs N] [-- --compression zstd|xz|fast]
// Runs under tsm (package.json script) because it reuses the test repo builders in test/fakes/repos.ts.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoConfiguration } from '../test/fakes/demo-config.ts';
import { FILLER_ENTRIES } from '../test/fakes/repo-index.ts';
import {
  APT_SUITE,
  buildAgent,
  buildBaseStubRpm,
  prepareAptRoot,
  prepareRpmRoot,
  startAptRepo,
  startRpmRepo,
} from '../test/fakes/repos.ts';
import { buildTypicalFix } from '../test/fakes/typical-fix.ts';
import { buildPackages } from '../vhd/packaging/build-packages.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '5')) || 5;
const compression = option('--compression', 'zstd');
/** `--only <text>`: only the paths whose name contains it (a quick look at one path; ratios need them all). */
const only = option('--only', '');
const work = mkdtempSync(join(tmpdir(), 'anc-bench-hotfix-'));

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Peak RSS (KiB) of the whole command: /usr/bin/time's %M, the largest of the agent and every child it waited for. */
const TIME = '/usr/bin/time';

function runAgent(bin, root, extra) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const rssFile = join(root, 'peak-rss');
    const child = spawn(TIME, ['-f', '%M', '-o', rssFile, bin, 'download-hotfix', ...extra], {
      env: { PATH: process.env.PATH, AKS_NODE_ROOT: root },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const finished = stderr.trim().split('\n').pop() ?? '';
      const rssKiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
      // The agent's own peak (its log line), without the package manager or decoder children.
      const ownKiB = Number(/"peakRssKiB":(\d+)/.exec(finished)?.[1] ?? NaN);
      code === 0 ? resolve({ ms, finished, rssKiB, ownKiB }) : reject(new Error(`download-hotfix exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** The health gate's own duration (version + dry-run self-test), from the agent's log line. */
function gateMs(root) {
  const lines = readFileSync(join(root, 'var/log/azure/aks-node-controller.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return lines.find((l) => l.msg === 'hotfix health check passed')?.durationMs ?? NaN;
}

/** One sample of one path: fresh root, the baked agent, the pointer; time and bytes served. */
async function sample(path, i, baked, repo, prepare, extra) {
  const root = join(work, `${path.name.replace(/\W+/g, '-')}-${i}`);
  prepare(root);
  mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
  copyFileSync(baked, join(root, 'opt/azure/containers/aks-node-controller'));
  chmodSync(join(root, 'opt/azure/containers/aks-node-controller'), 0o755);
  writeFileSync(join(root, 'opt/azure/containers/aks-node-controller-hotfix.json'), '{"hotfixes":{"202604.01":"202604.01.1"}}');
  writeFileSync(
    join(root, 'opt/azure/containers/aks-node-controller-config.json'),
    JSON.stringify(demoConfiguration('127.0.0.1', 'abcdef.0123456789abcdef')),
  );
  writeFileSync(join(root, 'opt/azure/components.json'), '{}\n');
  // The fresh root (a 113 MB executable just copied) and the previous sample's removal are flushed first:
  // on a node the baked agent is not being written back while download-hotfix runs.
  execFileSync('sync');
  const before = repo.bytesServed.count;
  const { ms, finished, rssKiB, ownKiB } = await runAgent(join(root, 'opt/azure/containers/aks-node-controller'), root, extra);
  const expected = path.expect ?? (extra.length ? path.name.split(' ')[0] : 'repository');
  if (!finished.includes(`"path":"${expected}"`)) throw new Error(`${path.name}: expected path ${expected}, got ${finished}`);
  path.samples.push(ms);
  path.rss.push(rssKiB / 1024);
  path.ownRss.push(ownKiB / 1024);
  path.bytes = repo.bytesServed.count - before;
  path.stages = finished;
  path.gate.push(gateMs(root));
  rmSync(root, { recursive: true, force: true });
}

const mb = (n) => (n / 1e6).toFixed(1).padStart(6) + ' MB';
const fetched = (n) => (n < 1e6 ? `${(n / 1e3).toFixed(1).padStart(6)} KB` : mb(n));

/**
 * The physical floor of staging a hotfix: write the executable (fsync), one sha256 over it, two
 * start-ups of it (the health gate's `version` and dry-run). Medians of `runs` tries.
 */
async function physicalFloor(bin, runs) {
  const { createHash } = await import('node:crypto');
  const { execFileSync } = await import('node:child_process');
  const { openSync, writeSync, fsyncSync, closeSync } = await import('node:fs');
  const data = readFileSync(bin);
  const write = [];
  const hash = [];
  const start = [];
  for (let i = 0; i < runs; i++) {
    const out = join(work, `floor-${i}`);
    let t = process.hrtime.bigint();
    const fd = openSync(out, 'w', 0o700);
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    write.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    createHash('sha256').update(data).digest('hex');
    hash.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    execFileSync(out, ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: work } });
    start.push(Number(process.hrtime.bigint() - t) / 1e6);
    rmSync(out);
  }
  return { write: median(write), hash: median(hash), start: median(start), total: median(write) + median(hash) + 2 * median(start) };
}

try {
  const baked = buildAgent('202604.01.0', join(work, 'baked'));
  const bin = buildTypicalFix('202604.01.1', join(work, 'hot'));
  const t0 = Date.now();
  const built = buildPackages({ bins: { amd64: bin }, outDir: join(work, 'pkg'), version: '202604.01.1', compression, deltaFrom: [baked] });
  const packMs = Date.now() - t0;
  const file = (format, name = 'aks-node-controller') => built.find((b) => b.format === format && b.package === name).file;
  const apt = await startAptRepo(join(work, 'apt'), [file('deb')]);
  const rpm = await startRpmRepo(join(work, 'rpm'), [file('rpm')]);
  const aptDelta = await startAptRepo(join(work, 'apt-delta'), [file('deb'), file('deb', 'aks-node-controller-delta')]);
  const rpmDelta = await startRpmRepo(join(work, 'rpm-delta'), [file('rpm'), file('rpm', 'aks-node-controller-delta')]);
  // The same delta repository published the old way (no hotfix index): what a node pays for the full index.
  const aptDeltaOld = await startAptRepo(join(work, 'apt-delta-old'), [file('deb'), file('deb', 'aks-node-controller-delta')]);
  // Published as docs/hotfix.md tells a release engineer: the hotfix index beside each repository.
  for (const [repo, kind] of [
    [apt, 'apt'],
    [rpm, 'rpm'],
    [aptDelta, 'apt'],
    [rpmDelta, 'rpm'],
  ]) {
    const args = kind === 'apt' ? ['apt', repo.dir, APT_SUITE] : ['rpm', repo.dir];
    execFileSync(new URL('../vhd/packaging/publish-hotfix-index.sh', import.meta.url).pathname, args, {
      env: { ...process.env, GNUPGHOME: repo.key.home, ANC_REPOSITORY_PATH: new URL(repo.url).pathname },
    });
  }
  const stub = buildBaseStubRpm(join(work, 'stub'));
  const aptRoot = (repo) => (root) => prepareAptRoot(root, repo);
  const rpmRoot = (repo) => (root) => prepareRpmRoot(root, repo, stub);
  const pm = ['--method', 'package-manager'];
  const paths = [
    { name: 'delta (apt repo)', repo: aptDelta, prepare: aptRoot(aptDelta), extra: [], expect: 'delta' },
    { name: 'delta (rpm repo)', repo: rpmDelta, prepare: rpmRoot(rpmDelta), extra: [], expect: 'delta' },
    { name: 'delta (apt, old index)', repo: aptDeltaOld, prepare: aptRoot(aptDeltaOld), extra: [], expect: 'delta' },
    { name: 'repository (apt repo)', repo: apt, prepare: aptRoot(apt), extra: [] },
    { name: 'apt-get update+install', repo: apt, prepare: aptRoot(apt), extra: pm },
    { name: 'repository (rpm repo)', repo: rpm, prepare: rpmRoot(rpm), extra: [] },
    { name: 'dnf install --refresh', repo: rpm, prepare: rpmRoot(rpm), extra: pm },
  ]
    .filter((p) => p.name.includes(only))
    .map((p) => ({ ...p, samples: [], gate: [], rss: [], ownRss: [], bytes: 0, stages: '' }));
  // Interleaved, so machine load drifts over all paths alike, in a new order every round (a seeded
  // shuffle): on this VM the first big writes after a path that freed a lot (dnf's root) are slow (a
  // delta rebuild then took 280-430 ms against 130 ms), so a fixed order charged that to one path.
  let seed = 22;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < runs; i++) {
    const order = [...paths];
    for (let k = order.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [order[k], order[j]] = [order[j], order[k]];
    }
    for (const p of order) await sample(p, i, baked, p.repo, p.prepare, p.extra);
  }
  for (const repo of [apt, rpm, aptDelta, rpmDelta, aptDeltaOld]) await repo.close();
  const m = Object.fromEntries(paths.map((p) => [p.name, median(p.samples)]));
  console.log(
    `download-hotfix on loopback, 202604.01.0 -> 202604.01.1, ${compression} release packages, indices with ${FILLER_ENTRIES} other entries, ${runs} runs each (interleaved, shuffled every round):`,
  );
  for (const p of paths) {
    console.log(
      `  ${p.name.padEnd(24)} median ${m[p.name].toFixed(0).padStart(6)} ms (min ${Math.min(...p.samples).toFixed(0)}, max ${Math.max(...p.samples).toFixed(0)})  fetched ${fetched(p.bytes)}  peak RSS ${median(p.rss).toFixed(0).padStart(4)} MiB (max ${Math.max(...p.rss).toFixed(0)}, children counted; agent alone ${median(p.ownRss).toFixed(0)})`,
    );
  }
  const ratio = (a, b) => `${((m[a] / m[b]) * 100).toFixed(0)}%`;
  console.log(`  fast path / apt path: ${ratio('repository (apt repo)', 'apt-get update+install')} (target <= 35%)`);
  console.log(`  fast path / dnf path: ${ratio('repository (rpm repo)', 'dnf install --refresh')}`);
  console.log(`  health gate (version + dry-run self-test) median: ${paths.map((p) => `${p.name} ${median(p.gate)} ms`).join(', ')}`);
  console.log(
    `  delta / full fast path: ${ratio('delta (apt repo)', 'repository (apt repo)')} (apt repo), ${ratio('delta (rpm repo)', 'repository (rpm repo)')} (rpm repo); delta / apt path: ${ratio('delta (apt repo)', 'apt-get update+install')} (target <= 25%)`,
  );
  const floor = await physicalFloor(bin, Math.max(3, runs));
  console.log(
    `  physical floor: write ${mb(statSync(bin).size)} + fsync ${floor.write.toFixed(0)} ms, one sha256 ${floor.hash.toFixed(0)} ms, two start-ups 2 x ${floor.start.toFixed(0)} ms = ${floor.total.toFixed(0)} ms; full fast path (apt repo) at ${(m['repository (apt repo)'] / floor.total).toFixed(1)}x it, delta (apt repo) at ${(m['delta (apt repo)'] / floor.total).toFixed(1)}x`,
  );
  const stages = (name) => /"sourceMs".*?"verifyMs":\d+(,"packageBytes":\d+)?/.exec(paths.find((p) => p.name === name)?.stages ?? '')?.[0];
  console.log(`  last fast-path stages (apt repo): ${stages('repository (apt repo)')}`);
  console.log(`  last delta stages (apt repo):     ${stages('delta (apt repo)')}`);
  console.log(
    `\npackages (amd64, ${compression}) vs raw executable (${mb(statSync(bin).size)}), built in ${(packMs / 1000).toFixed(1)} s:`,
  );
  for (const p of built) {
    const size = p.size < 1e6 ? `${(p.size / 1024).toFixed(1).padStart(6)} KB` : mb(p.size);
    console.log(`  ${p.package.padEnd(26)} .${p.format.padEnd(3)} ${size}  = ${((p.size / p.rawSize) * 100).toFixed(3)}% of raw`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

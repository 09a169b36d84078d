#!/usr/bin/env node
// download-hotfix end to end on loopback: the baked agent (202604.01.0) installs, health-checks and stages
// the hotfix package (202604.01.1) through the real apt-get/dpkg and dnf into throwaway roots. Prints the
// median whole-command time per path, and each package's size against the raw executable. Never asserts.
//
//   npm run bench:hotfix [-- --runs N] [-- --release]     (--release also builds the xz packages: slow)
// Runs under tsm (package.json script) because it reuses the test repo builders in test/fakes/repos.ts.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoConfiguration } from '../test/fakes/demo-config.ts';
import {
  buildAgent, buildBaseStubRpm, buildHotfixPackages, prepareAptRoot, prepareRpmRoot, startAptRepo, startRpmRepo,
} from '../test/fakes/repos.ts';
import { buildPackages } from '../vhd/packaging/build-packages.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;
const release = args.includes('--release');
const work = mkdtempSync(join(tmpdir(), 'anc-bench-hotfix-'));

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function runAgent(bin, root) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(bin, ['download-hotfix'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: root }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      code === 0 ? resolve(ms) : reject(new Error(`download-hotfix exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** The health gate's own duration (version + dry-run self-test), from the agent's log line. */
function gateMs(root) {
  const lines = readFileSync(join(root, 'var/log/azure/aks-node-controller.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  return lines.find((l) => l.msg === 'hotfix health check passed').durationMs;
}

async function timePath(name, baked, prepare) {
  const samples = [];
  const gate = [];
  for (let i = 0; i < runs; i++) {
    const root = join(work, `${name}-${i}`);
    prepare(root);
    mkdirSync(join(root, 'opt/azure/containers'), { recursive: true });
    copyFileSync(baked, join(root, 'opt/azure/containers/aks-node-controller'));
    chmodSync(join(root, 'opt/azure/containers/aks-node-controller'), 0o755);
    writeFileSync(join(root, 'opt/azure/containers/aks-node-controller-hotfix.json'), '{"hotfixes":{"202604.01":"202604.01.1"}}');
    // The node's own configuration: what the health gate's dry-run self-test provisions against.
    writeFileSync(join(root, 'opt/azure/containers/aks-node-controller-config.json'), JSON.stringify(demoConfiguration('127.0.0.1', 'abcdef.0123456789abcdef')));
    writeFileSync(join(root, 'opt/azure/components.json'), '{}\n');
    samples.push(await runAgent(join(root, 'opt/azure/containers/aks-node-controller'), root));
    gate.push(gateMs(root));
    rmSync(root, { recursive: true, force: true });
  }
  return { median: median(samples), min: Math.min(...samples), max: Math.max(...samples), gate: median(gate) };
}

const mb = (n) => (n / 1e6).toFixed(1).padStart(6) + ' MB';

try {
  const baked = buildAgent('202604.01.0', join(work, 'baked'));
  const t0 = Date.now();
  const hot = buildHotfixPackages('202604.01.1', join(work, 'pkg'));
  const packMs = Date.now() - t0;
  const apt = await startAptRepo(join(work, 'apt'), [hot.deb]);
  const rpm = await startRpmRepo(join(work, 'rpm'), [hot.rpm]);
  const stub = buildBaseStubRpm(join(work, 'stub'));
  const aptTime = await timePath('apt', baked, (root) => prepareAptRoot(root, apt));
  const dnfTime = await timePath('dnf', baked, (root) => prepareRpmRoot(root, rpm, stub));
  await apt.close();
  await rpm.close();
  const fmt = (t) => `median ${t.median.toFixed(0)} ms (min ${t.min.toFixed(0)}, max ${t.max.toFixed(0)}) over ${runs} runs`;
  console.log('download-hotfix, whole command on loopback (install + verify + stage, 202604.01.0 -> 202604.01.1):');
  console.log(`  apt-get/dpkg  ${fmt(aptTime)}`);
  console.log(`  dnf           ${fmt(dnfTime)}`);
  console.log(`  of which the health gate (pending version + provision --dry-run self-test): median ${aptTime.gate} ms (apt runs), ${dnfTime.gate} ms (dnf runs)`);
  console.log(`\npackages vs raw executable (${mb(statSync(hot.bin).size)}), amd64; build of both fast packages: ${(packMs / 1000).toFixed(1)} s incl. agent build:`);
  const rows = [...hot.built];
  if (release) {
    const r0 = Date.now();
    rows.push(...buildPackages({ bins: { amd64: hot.bin }, outDir: join(work, 'release'), version: '202604.01.1' }).map((p) => ({ ...p, release: true })));
    console.log(`  (release xz packages built in ${((Date.now() - r0) / 1000).toFixed(0)} s)`);
  }
  for (const p of rows) {
    const kind = p.release ? (p.format === 'deb' ? 'xz -9' : 'xz w9') : p.format === 'deb' ? 'zstd -3' : 'zstd w3';
    console.log(`  .${p.format.padEnd(3)} ${kind.padEnd(8)} ${mb(p.size)}  = ${((p.size / p.rawSize) * 100).toFixed(1)}% of raw`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

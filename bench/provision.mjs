#!/usr/bin/env node
// Cost of building the provisioning command: `provision --dry-run` on the largest sample configuration
// (whole process: start-up, config load, facts, env, JSON out; median over repeated runs) and
// buildCseEnv alone in-process (median per call). Prints only, never asserts.
//
//   node bench/provision.mjs [--runs N] [--calls N]      (binary: $ANC_BIN, else dist/aks-node-controller)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || fallback : fallback);
const runs = flag('--runs', 30);
const calls = flag('--calls', 2000);
const cwd = process.cwd();
const bin = process.env.ANC_BIN ?? join(cwd, 'dist', 'aks-node-controller');
if (!existsSync(bin)) execFileSync(process.execPath, ['build.mjs', '--quiet'], { stdio: 'inherit' });
const configText = readFileSync(join(cwd, 'test/golden/env/scenarios/kitchen-sink.config.json'), 'utf8');
const components = JSON.stringify({
  GPUContainerImages: [
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-cuda-lts:*', gpuVersion: { latestVersion: '580.159.04-20260629214430' } },
  ],
});

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function benchProcess() {
  const root = mkdtempSync(join(tmpdir(), 'anc-bench-provision-'));
  mkdirSync(join(root, 'opt/azure'), { recursive: true });
  writeFileSync(join(root, 'opt/azure/components.json'), components);
  const file = join(root, 'config.json');
  writeFileSync(file, configText);
  const env = { PATH: process.env.PATH, AKS_NODE_ROOT: root };
  const samples = [];
  for (let i = 0; i < runs + 3; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(bin, ['provision', `--provision-config=${file}`, '--dry-run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) {
      process.stdout.write(`dry-run failed (exit ${r.status}): ${r.stderr}\n`);
      break;
    }
    if (i >= 3) samples.push(ms);
  }
  rmSync(root, { recursive: true, force: true });
  return samples;
}

async function benchInProcess() {
  const dir = mkdtempSync(join(tmpdir(), 'anc-bench-env-'));
  const out = join(dir, 'env.mjs');
  await build({
    stdin: {
      contents:
        "export { buildCseEnv } from './src/cse/env/index.ts';\nexport { loadConfiguration } from './src/config/load.ts';\nexport { resolveNodePaths } from './src/platform/paths.ts';\n",
      resolveDir: cwd,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
  });
  const { buildCseEnv, loadConfiguration, resolveNodePaths } = await import(pathToFileURL(out).href);
  const config = loadConfiguration(configText).config;
  const facts = { containerdVersion: '1.7.22', components: JSON.parse(components) };
  const paths = resolveNodePaths('');
  for (let i = 0; i < 200; i++) buildCseEnv(config, facts, paths);
  const samples = [];
  for (let batch = 0; batch < 20; batch++) {
    const n = Math.max(1, Math.floor(calls / 20));
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) buildCseEnv(config, facts, paths);
    samples.push(Number(process.hrtime.bigint() - start) / 1e3 / n);
  }
  const loadSamples = [];
  for (let i = 0; i < 200; i++) {
    const start = process.hrtime.bigint();
    loadConfiguration(configText);
    loadSamples.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  rmSync(dir, { recursive: true, force: true });
  return { env: samples, load: loadSamples };
}

const proc = benchProcess();
const inproc = await benchInProcess();
process.stdout.write(`provision bench (kitchen-sink config, ${configText.length} bytes; binary ${bin})\n`);
if (proc.length > 0)
  process.stdout.write(`  provision --dry-run, whole process: median ${median(proc).toFixed(1)} ms over ${proc.length} runs\n`);
process.stdout.write(
  `  buildCseEnv in-process:            median ${median(inproc.env).toFixed(1)} µs per call (${calls} calls, 20 batches)\n`,
);
process.stdout.write(`  loadConfiguration (for scale):     median ${median(inproc.load).toFixed(1)} µs per call\n`);

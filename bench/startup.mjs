#!/usr/bin/env node
// Start-up of the compiled agent: `version` side by side with trivial programs compiled with the same
// runtime and flags, and against the same bundle under node; medians over interleaved runs in one process
// (hyperfine when installed, else our own loop), peak memory, and the executable size per target (raw and
// xz-compressed). Prints only. Two floors (bench/floor.mjs): the cheapest print (console.log, the target is
// at most 1.5x that) and process.stdout.write, whose Node stream costs more than the rest of a start.
//
//   node bench/startup.mjs [--runs N] [--no-sizes] [--baseline <binary>]   (--baseline: another build, side by side)
// Needs `node build.mjs --all` output in dist/ for the size table (built here if missing).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, trivialPrograms } from './floor.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 40;
const baseline = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : undefined;
const dist = join(process.cwd(), 'dist');
const bin = join(dist, 'aks-node-controller');
const bundle = join(dist, '.build', 'bundle.cjs');
if (!existsSync(bin) || !existsSync(bundle)) execFileSync(process.execPath, ['build.mjs', '--quiet'], { stdio: 'inherit' });
const root = mkdtempSync(join(tmpdir(), 'anc-bench-'));
const env = { PATH: process.env.PATH, AKS_NODE_ROOT: root };

function time(command, commandArgs) {
  const samples = [];
  for (let i = 0; i < runs + 3; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= 3) samples.push(ms); // the first runs warm the page cache
  }
  return median(samples);
}

function peakRssMiB(command, commandArgs) {
  if (!existsSync('/usr/bin/time')) return NaN;
  const samples = [];
  for (let i = 0; i < 7; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...commandArgs], { env, encoding: 'utf8' });
    samples.push(Number(r.stderr.trim().split('\n').pop()) / 1024);
  }
  return median(samples);
}

/** Medians of the commands, measured interleaved in one hyperfine run (or our loop without hyperfine). */
function side(commands) {
  const hyperfine = spawnSync('hyperfine', ['--version']).status === 0;
  if (!hyperfine) return commands.map(([cmd, cmdArgs]) => time(cmd, cmdArgs));
  const json = join(root, 'hyperfine.json');
  const shellWords = commands.map(([cmd, cmdArgs]) => [cmd, ...cmdArgs].join(' '));
  execFileSync('hyperfine', ['-N', '--warmup', '5', '--runs', String(runs), '--export-json', json, ...shellWords], {
    env,
    stdio: 'ignore',
  });
  return JSON.parse(readFileSync(json, 'utf8')).results.map((r) => r.median * 1000);
}

const trivial = await trivialPrograms(root);
const [compiled, floor, streamFloor, node, before] = side([
  [bin, ['version']],
  [trivial['console.log'], []],
  [trivial['process.stdout.write'], []],
  [process.execPath, [bundle, 'version']],
  ...(baseline ? [[baseline, ['version']]] : []),
]);
const rss = (command, commandArgs) => `peak RSS ${peakRssMiB(command, commandArgs).toFixed(1)} MiB`;
console.log(`start-up of \`version\` (median of ${runs} runs, side by side)`);
console.log(`  compiled agent (bun, bytecode)             ${compiled.toFixed(1)} ms   ${rss(bin, ['version'])}`);
console.log(`  floor: trivial program, console.log        ${floor.toFixed(1)} ms   ${rss(trivial['console.log'], [])}`);
console.log(`  trivial program, process.stdout.write      ${streamFloor.toFixed(1)} ms   ${rss(trivial['process.stdout.write'], [])}`);
console.log(`  node <bundle>                              ${node.toFixed(1)} ms   ${rss(process.execPath, [bundle, 'version'])}`);
console.log(`  ratio agent/console.log floor              ${(compiled / floor).toFixed(2)}x (target <= 1.5x)`);
console.log(`  ratio agent/process.stdout.write program   ${(compiled / streamFloor).toFixed(2)}x`);
console.log(`  ratio node/compiled                        ${(node / compiled).toFixed(2)}x`);
if (baseline) {
  console.log(`  baseline ${baseline}: ${before.toFixed(1)} ms   ${rss(baseline, ['version'])}`);
  console.log(
    `  baseline ratios: /console.log floor ${(before / floor).toFixed(2)}x, /stdout.write program ${(before / streamFloor).toFixed(2)}x`,
  );
}

if (!args.includes('--no-sizes')) {
  const targets = ['linux-amd64', 'linux-arm64', 'darwin-arm64'];
  if (!targets.every((t) => existsSync(join(dist, `aks-node-controller-${t}`)))) {
    execFileSync(process.execPath, ['build.mjs', '--all', '--quiet'], { stdio: 'inherit' });
  }
  console.log('executable size per target (xz -6)');
  for (const t of targets) {
    const file = join(dist, `aks-node-controller-${t}`);
    const xz = Number(
      execFileSync('sh', ['-c', `xz -6 -T2 -c "${file}" | wc -c`])
        .toString()
        .trim(),
    );
    console.log(`  ${t.padEnd(13)} raw ${(statSync(file).size / 1e6).toFixed(1)} MB   xz ${(xz / 1e6).toFixed(1)} MB`);
  }
  console.log(`  bundle.cjs    ${(statSync(bundle).size / 1e3).toFixed(1)} kB (esbuild, minified)`);
}
rmSync(root, { recursive: true, force: true });

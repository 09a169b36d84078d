#!/usr/bin/env node
// Script hotfixes (issue 21), two numbers:
//  1. apply time: the hotfix binary's `provision` applying a payload of 40 files / 1 MB (every file
//     changed: 40 backups, 40 staged files, 40 renames, the record twice, all fsynced), read from the
//     ScriptHotfix event's own duration; the restore (`hotfix fallback`) the same way; and the floor:
//     the same durable writes (80 files of the same sizes: temp, fsync, rename, directory fsync) done
//     by a bare loop in this process, no agent, no checks.
//  2. delta size: two builds that differ only in one script of the payload (one line changed), the
//     aks-node-controller-delta package between them vs the full package.
// Prints medians over --runs (default 5). Never asserts; noisy on a shared machine.
//
//   npm run bench:scripts [-- --runs N]
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgent } from '../test/fakes/repos.ts';
import { buildPackages } from '../vhd/packaging/build-packages.mjs';

const args = process.argv.slice(2);
const runs = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 5) || 5;
const work = mkdtempSync(join(tmpdir(), 'anc-bench-scripts-'));
const FILES = 40;
const TOTAL = 1024 * 1024;
const C = '/opt/azure/containers';

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Script-like text of `size` bytes, different per file and per version. */
function script(i, size, version) {
  const lines = [`#!/bin/bash\n# bench script ${i} ${version}\n`];
  let n = lines[0].length;
  for (let k = 0; n < size; k++) {
    const l = `retrycmd_if_failure 120 5 25 do_step_${i}_${k} --flag=${(i * 7919 + k * 104729) % 1000003} || exit $ERR_${k % 50}\n`;
    lines.push(l);
    n += l.length;
  }
  return lines.join('').slice(0, size);
}

function payloadDir(name, version, changeOne = false) {
  const dir = join(work, name);
  const entries = [];
  for (let i = 0; i < FILES; i++) {
    const rel = `payloads/s${String(i).padStart(2, '0')}.sh`;
    mkdirSync(join(dir, 'payloads'), { recursive: true });
    let text = script(i, TOTAL / FILES, version);
    if (changeOne && i === 7) text = text.replace('do_step_7_3 ', 'do_step_7_3 --fixed ');
    writeFileSync(join(dir, rel), text);
    entries.push({
      source: `s${i}.sh`,
      payload: rel,
      destination: `${C}/bench/s${String(i).padStart(2, '0')}.sh`,
      mode: '0755',
      platforms: ['ubuntu'],
    });
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schema_version: 1, entries }));
  return dir;
}

function node(bakedVersion) {
  const root = mkdtempSync(join(tmpdir(), 'anc-bench-scripts-root-'));
  const put = (p, text, mode = 0o755) => {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text, { mode });
  };
  put('/etc/os-release', 'ID=ubuntu\n', 0o644);
  put('/opt/azure/components.json', '{}\n', 0o644);
  put('/config.json', '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}', 0o600);
  put(`${C}/provision_start.sh`, '#!/bin/bash\nexit 0\n');
  for (let i = 0; i < FILES; i++) put(`${C}/bench/s${String(i).padStart(2, '0')}.sh`, script(i, TOTAL / FILES, bakedVersion));
  return root;
}

/** durationMs of the newest ScriptHotfix event. */
function eventMs(root) {
  const dir = join(root, 'var/log/azure/Microsoft.Azure.Extensions.CustomScript/events');
  const r = spawnSync('sh', ['-c', `cat "${dir}"/*.json`], { encoding: 'utf8' });
  const found = [...r.stdout.matchAll(/"TaskName":"AKS\.AKSNodeController\.ScriptHotfix"[^}]*?"Message":"([^"]*)"/g)].map((m) => m[1]);
  const last = found.at(-1) ?? '';
  return { ms: Number(/durationMs=(\d+)/.exec(last)?.[1] ?? NaN), message: last.split(' | ')[0] };
}

function run(bin, root, argv) {
  const started = process.hrtime.bigint();
  const r = spawnSync(bin, argv, { env: { PATH: process.env.PATH, AKS_NODE_ROOT: root }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-1500)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The floor: the same durable writes with no agent (backup + staged file per script, renames, fsyncs). */
function floorMs(root) {
  const dir = join(root, 'floor');
  mkdirSync(dir, { recursive: true });
  const data = Buffer.from(script(0, TOTAL / FILES, 'floor'));
  const started = process.hrtime.bigint();
  for (let i = 0; i < 2 * FILES; i++) {
    const temp = join(dir, `.t${i}`);
    const fd = openSync(temp, 'wx', 0o600);
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, join(dir, `f${i}`));
  }
  const d = openSync(dir, 'r');
  fsyncSync(d);
  closeSync(d);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

try {
  process.stdout.write(`script hotfix bench: ${FILES} files, ${TOTAL} bytes, ${runs} runs\n`);
  const baked = buildAgent('202604.01.0', join(work, 'baked'));
  const hotfix1 = buildAgent('202604.01.1', join(work, 'h1'), ['--scripts', payloadDir('p1', 'fixed')]);
  const hotfix2 = buildAgent('202604.01.1', join(work, 'h2'), ['--scripts', payloadDir('p2', 'fixed', true)]);
  const apply = [];
  const restore = [];
  const provisionWith = [];
  const provisionWithout = [];
  const floor = [];
  let lastMessage = '';
  for (let i = 0; i < runs; i++) {
    const root = node('baked');
    const config = `--provision-config=${join(root, 'config.json')}`;
    provisionWithout.push(run(baked, root, ['provision', config]));
    provisionWith.push(run(hotfix1, root, ['provision', config]));
    const a = eventMs(root);
    apply.push(a.ms);
    lastMessage = a.message;
    run(baked, root, ['hotfix', 'fallback', '--reason', 'bench']);
    restore.push(eventMs(root).ms);
    floor.push(floorMs(root));
    rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(`  ${lastMessage}\n`);
  process.stdout.write(`apply (ScriptHotfix event)         median ${median(apply)} ms   runs ${apply.join(', ')}\n`);
  process.stdout.write(`restore (hotfix fallback)          median ${median(restore)} ms   runs ${restore.join(', ')}\n`);
  process.stdout.write(
    `floor: 80 durable writes, no agent median ${median(floor).toFixed(1)} ms (apply is ${(median(apply) / median(floor)).toFixed(1)}x)\n`,
  );
  process.stdout.write(
    `provision wall time: baked ${median(provisionWithout).toFixed(0)} ms, hotfix with payload ${median(provisionWith).toFixed(0)} ms\n`,
  );
  const pkgs = buildPackages({
    bins: { amd64: hotfix2 },
    outDir: join(work, 'pkg'),
    version: '202604.01.2',
    formats: ['deb'],
    deltaFrom: [hotfix1],
  });
  const full = pkgs.find((p) => p.package === 'aks-node-controller');
  const delta = pkgs.find((p) => p.package === 'aks-node-controller-delta');
  const vcdiff = delta.manifest.deltas[0]?.size ?? NaN;
  process.stdout.write(
    `one-script fix (one line of one of 40 scripts): delta package ${delta.size} bytes (VCDIFF ${vcdiff} bytes), full package ${full.size} bytes (${((delta.size / full.size) * 100).toFixed(2)}%)\n`,
  );
  process.stdout.write(
    `executables: without payload ${statSync(baked).size} bytes, with the 1 MB payload ${statSync(hotfix1).size} bytes\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

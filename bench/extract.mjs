#!/usr/bin/env bun
// How the fast path should unpack the 113 MB executable, measured on the runtime the agent ships on (bun):
// the executable compressed as the release packages compress it (zstd -19, xz -9), then unpacked
// in-process (bun's node:zlib zstd) and by the tools every node image has (zstd, xz), interleaved, medians.
// Never asserts.
//
//   npm run bench:extract [-- --runs N] [-- --bin FILE]      (runs under the pinned bun runtime)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '5')) || 5;
const bin = resolve(option('--bin', 'dist/aks-node-controller'));
const work = mkdtempSync(join(tmpdir(), 'anc-bench-extract-'));
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};

try {
  const raw = statSync(bin).size;
  const zst = join(work, 'bin.zst');
  const xz = join(work, 'bin.xz');
  const compressMs = {
    zstd: time(() => execFileSync('zstd', ['-19', '-T0', '-q', '-f', bin, '-o', zst])),
    xz: time(() => execFileSync('sh', ['-c', 'xz -9 -T0 -c "$1" > "$2"', 'sh', bin, xz])),
  };
  const packed = readFileSync(zst);
  const out = join(work, 'out');
  const ways = {
    'zstd in-process (bun node:zlib)': () => zlib.zstdDecompressSync(packed, { maxOutputLength: 1 << 30 }),
    'zstd tool -> file -> read': () => {
      execFileSync('zstd', ['-d', '-q', '-f', zst, '-o', out]);
      readFileSync(out);
    },
    'xz tool -> file -> read': () => {
      execFileSync('sh', ['-c', 'xz -dc "$1" > "$2"', 'sh', xz, out]);
      readFileSync(out);
    },
  };
  const samples = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [name, fn] of Object.entries(ways)) samples[name].push(time(fn));
  console.log(
    `${bin}: ${(raw / 1e6).toFixed(1)} MB raw; ${typeof Bun === 'object' ? `bun ${Bun.version}` : `node ${process.version}`}, ${runs} interleaved runs`,
  );
  console.log(
    `  zstd -19: ${(statSync(zst).size / 1e6).toFixed(1)} MB (${((statSync(zst).size / raw) * 100).toFixed(1)}%), compressed in ${(compressMs.zstd / 1000).toFixed(1)} s`,
  );
  console.log(
    `  xz -9:    ${(statSync(xz).size / 1e6).toFixed(1)} MB (${((statSync(xz).size / raw) * 100).toFixed(1)}%), compressed in ${(compressMs.xz / 1000).toFixed(1)} s`,
  );
  console.log(`  zstd size / xz size: ${((statSync(zst).size / statSync(xz).size) * 100).toFixed(0)}%`);
  for (const [name, v] of Object.entries(samples))
    console.log(
      `  ${name.padEnd(32)} median ${median(v).toFixed(0).padStart(5)} ms (min ${Math.min(...v).toFixed(0)}, max ${Math.max(...v).toFixed(0)})`,
    );
  const x = median(samples['xz tool -> file -> read']);
  console.log(
    `  xz / zstd tool: ${(x / median(samples['zstd tool -> file -> read'])).toFixed(1)}x; xz / zstd in-process: ${(x / median(samples['zstd in-process (bun node:zlib)'])).toFixed(1)}x`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

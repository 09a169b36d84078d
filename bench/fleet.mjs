#!/usr/bin/env node
// The fleet views at scale, side by side with kubectl (issue 38). Starts the apiserver stand-in in its own
// process (bench/fleet-server.ts) with N realistic Nodes of about K KiB (kubelet's images, AKS labels,
// conditions, managedFields, our reports in a mix of states) and times, interleaved, R rounds of:
//   ours         hotfix rollout status -o json (paged, metadata only, gzip, one connection)
//   watch poll   one steady-state poll of hotfix rollout watch after its first list (10 Nodes change per poll)
//   kubectl json kubectl get nodes -o json
//   kubectl -L   kubectl get nodes -L kubernetes.azure.com/aks-node-controller-version
// For each: wall ms, peak RSS of the process tree (sampled from /proc every 5 ms, and /usr/bin/time's %M)
// and bytes on the wire (both directions, TLS included, counted by the stand-in's sockets). Medians.
// Never asserts: the targets are printed beside the numbers.
//
//   npm run bench:fleet -- --nodes N [--node-kib K] [--rounds R] [-o json]
// With -o json the last line is {"nodes","nodeBytes","ours":{"ms","peakRssMiB","bytes","requests"},
// "watch":{"pollMs","pollBytes"},"kubectl":{"json":{"ms","peakRssMiB","bytes"},"label":{...}}}.
// Builds the agent into a temporary directory first (a fresh clone needs nothing else; kubectl comes from
// Debian's kubernetes-client, scripts/ensure-tools.sh).
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { buildAgent } from '../test/fakes/repos.ts';
import { median } from './floor.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const nodes = Number(option('--nodes', '500'));
const kib = Number(option('--node-kib', '19'));
const rounds = Math.max(3, Number(option('--rounds', '3')));
const json = option('-o', 'text') === 'json';
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const VERSION_LABEL = 'kubernetes.azure.com/aks-node-controller-version';
const INTERVAL_S = 3;
const CHANGES_PER_POLL = 10;
if (!Number.isInteger(nodes) || nodes < 1 || !(kib > 0)) {
  process.stderr.write('usage: npm run bench:fleet -- --nodes N [--node-kib K] [--rounds R] [-o json]\n');
  process.exit(2);
}
if (!existsSync(KUBECTL)) {
  process.stderr.write(`bench:fleet: ${KUBECTL} is missing: run scripts/ensure-tools.sh (Debian kubernetes-client)\n`);
  process.exit(1);
}
const say = (text) => process.stderr.write(`${text}\n`);
const work = mkdtempSync(join(tmpdir(), 'anc-bench-fleet-'));
const loadBefore = loadavg()[0];

say(`building the agent ...`);
const bin = buildAgent('202604.01.0', join(work, 'bin'));
say(`starting the stand-in with ${nodes} Nodes of about ${kib} KiB ...`);
const server = fork(new URL('./fleet-server.ts', import.meta.url).pathname, [String(nodes), String(kib), work], {
  execArgv: ['--no-warnings', '--loader', 'tsm', '--max-old-space-size=8192'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ready = await new Promise((resolve, reject) => {
  server.once('message', resolve);
  server.once('exit', (code) => reject(new Error(`the stand-in exited (${code})`)));
});
let ids = 0;
const ask = (op, extra = {}) =>
  new Promise((resolve) => {
    const id = ++ids;
    const on = (m) => {
      if (m.id !== id) return;
      server.off('message', on);
      resolve(m);
    };
    server.on('message', on);
    server.send({ op, id, ...extra });
  });
const wireNow = async () => {
  const w = await ask('wire');
  return w.sent + w.received;
};

/** Every descendant's RSS (KiB), the root excluded (it is /usr/bin/time). */
function treeRss(root) {
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    try {
      if (pid !== root) total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (children) stack.push(...children.split(/\s+/).map(Number));
      }
    } catch {}
  }
  return total;
}

async function measure(command, argv, env = {}) {
  const before = await wireNow();
  const requests = (await ask('requests')).requests;
  const rssFile = join(work, 'rss');
  const started = process.hrtime.bigint();
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, command, ...argv], {
    env: { PATH: process.env.PATH, HOME: work, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(child.pid))), 5);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  clearInterval(sampler);
  if (code !== 0 && code !== 2) throw new Error(`${command} ${argv.join(' ')} exited ${code}: ${stderr.slice(-500)}`);
  const timePeak = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
  return {
    ms,
    peakRssMiB: Math.max(peak, timePeak) / 1024,
    bytes: (await wireNow()) - before,
    requests: (await ask('requests')).requests - requests,
  };
}

// The live pointer and a halt the watch can hold (unsigned-allowed, the default mode); the watch never
// halts (--max-failed 100%) because the mix includes failed nodes.
const kubeconfig = ready.kubeconfig;
const { execFileSync } = await import('node:child_process');
const pointer = JSON.parse(
  execFileSync(
    bin,
    [
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      '202604.01=202604.01.1',
      '--rollout',
      '202604.01=25:bench',
      '--serial',
      '5',
      '--expires',
      '2099-01-01T00:00:00Z',
      '-o',
      'json',
    ],
    { encoding: 'utf8' },
  ),
);
await ask('configmap', { data: pointer.data });
const kubectl = (extra) => measure(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(work, 'kcache'), 'get', 'nodes', ...extra]);
await kubectl(['-o', 'name']); // kubectl's discovery cache, once, outside the rounds
const halt = join(work, 'halt.yaml');
writeFileSync(
  halt,
  execFileSync(bin, ['hotfix', 'pointer', 'render', '--halt', '--withdraw', '--kubeconfig', kubeconfig], { encoding: 'utf8' }),
);

/** One steady-state poll: the watch's third poll line after two, with CHANGES_PER_POLL changes in between. */
async function watchPoll() {
  const child = spawn(
    bin,
    [
      'hotfix',
      'rollout',
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--halt-with',
      halt,
      '--max-failed',
      '100%',
      '--interval',
      String(INTERVAL_S),
    ],
    {
      env: { PATH: process.env.PATH, HOME: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const polls = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const waiters = [];
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (/-> continue$/.test(line)) {
        polls.push(Number(process.hrtime.bigint()) / 1e6);
        for (const w of waiters.splice(0)) w();
      }
    }
  });
  const pollCount = (n) =>
    new Promise((resolve, reject) => {
      const check = () => (polls.length >= n ? resolve() : waiters.push(check));
      child.once('exit', (code) => reject(new Error(`the watch exited ${code}: ${stderr.slice(-500)}`)));
      check();
    });
  try {
    await pollCount(2);
    const before = await wireNow();
    await ask('change', { count: CHANGES_PER_POLL });
    await pollCount(3);
    const bytes = (await wireNow()) - before;
    return { pollMs: polls[2] - polls[1] - INTERVAL_S * 1000, pollBytes: bytes };
  } finally {
    child.kill('SIGTERM');
  }
}

const results = { ours: [], watch: [], json: [], label: [] };
for (let round = 1; round <= rounds; round++) {
  say(`round ${round} of ${rounds}`);
  results.ours.push(await measure(bin, ['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']));
  results.watch.push(await watchPoll());
  results.json.push(await kubectl(['-o', 'json']));
  results.label.push(await kubectl(['-L', VERSION_LABEL]));
}
server.send({ op: 'stop', id: 0 });
rmSync(work, { recursive: true, force: true });

const med = (list, key, digits = 0) => Number(median(list.map((r) => r[key])).toFixed(digits));
const pick = (list, withRequests) => ({
  ms: med(list, 'ms'),
  peakRssMiB: med(list, 'peakRssMiB', 1),
  bytes: med(list, 'bytes'),
  ...(withRequests ? { requests: med(list, 'requests') } : {}),
});
const summary = {
  nodes,
  nodeBytes: ready.nodeBytes,
  ours: pick(results.ours, true),
  watch: { pollMs: med(results.watch, 'pollMs'), pollBytes: med(results.watch, 'pollBytes') },
  kubectl: { json: pick(results.json, false), label: pick(results.label, false) },
};
const pct = (a, b) => `${((100 * a) / b).toFixed(2)}%`;
const ratio = (a, b) => `${(a / b).toFixed(3)}x`;
const lines = [
  `fleet views: ${nodes} Nodes of about ${kib} KiB (full NodeList ${(ready.nodeBytes / 1048576).toFixed(1)} MiB), ${rounds} interleaved rounds, medians`,
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
  '',
  `${'what'.padEnd(38)}${'wall ms'.padStart(10)}${'peak RSS MiB'.padStart(14)}${'wire bytes'.padStart(14)}`,
  `${'ours: hotfix rollout status -o json'.padEnd(38)}${String(summary.ours.ms).padStart(10)}${String(summary.ours.peakRssMiB).padStart(14)}${String(summary.ours.bytes).padStart(14)}   (${summary.ours.requests} requests)`,
  `${`watch: one steady-state poll (${CHANGES_PER_POLL} changes)`.padEnd(38)}${String(summary.watch.pollMs).padStart(10)}${'-'.padStart(14)}${String(summary.watch.pollBytes).padStart(14)}`,
  `${'kubectl get nodes -o json'.padEnd(38)}${String(summary.kubectl.json.ms).padStart(10)}${String(summary.kubectl.json.peakRssMiB).padStart(14)}${String(summary.kubectl.json.bytes).padStart(14)}`,
  `${'kubectl get nodes -L <version label>'.padEnd(38)}${String(summary.kubectl.label.ms).padStart(10)}${String(summary.kubectl.label.peakRssMiB).padStart(14)}${String(summary.kubectl.label.bytes).padStart(14)}`,
  '',
  `ours / kubectl -L: ${ratio(summary.ours.ms, summary.kubectl.label.ms)} (target <= 0.5x); ours / kubectl -o json: ${ratio(summary.ours.ms, summary.kubectl.json.ms)} (target <= 0.25x)`,
  `our peak RSS ${summary.ours.peakRssMiB} MiB (target <= 128); bytes per read ${pct(summary.ours.bytes, ready.nodeBytes)} of the full NodeList (target <= 5%); per watch poll ${pct(summary.watch.pollBytes, ready.nodeBytes)} (target <= 1%)`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (json) process.stdout.write(`${JSON.stringify(summary)}\n`);
process.exit(0);

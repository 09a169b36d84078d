#!/usr/bin/env node
// The agent's own share of a node's boot when no hotfix is waiting (issue 22), on loopback:
// `check-hotfix` (a successful read from the apiserver stand-in, real TLS), `download-hotfix` (the pointer
// names nothing for this version: nothing to do) and `provision` up to the moment its scripts start (the
// stand-in provision_start.sh records bash's $EPOCHREALTIME as its first act). Each part, the total, the
// floor (three start-ups of a trivial program compiled with the same runtime and flags, printing with
// console.log) and the ratio; medians over interleaved runs, and each command's peak RSS. Prints only.
//
//   npm run bench:boot-path [-- --runs N] [-- --baseline <binary>]      (ANC_BIN=<binary> to measure another build)
// --baseline runs another build (e.g. main's) interleaved with this one, for a before/after in one run.
// Needs tsm (the apiserver stand-in is TypeScript): the npm script passes `--loader tsm`.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, trivialPrograms } from './floor.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 20;
const baseline = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : undefined;
if (!process.env.ANC_BIN) {
  const built = join(process.cwd(), 'dist', 'aks-node-controller');
  if (!existsSync(built)) execFileSync(process.execPath, ['build.mjs', '--quiet'], { stdio: 'inherit' });
  process.env.ANC_BIN = built;
}
const bin = process.env.ANC_BIN;
const { startFakeApiServer, DEFAULT_TOKEN } = await import('../test/fakes/apiserver.ts');
const node = await import('../test/e2e/check-hotfix/node.ts');
const { configWithSecrets, START_SCRIPT, PROVISION_JSON, PROVISION_COMPLETE } = await import('../test/e2e/provision/support.ts');
const { baseEnv } = await import('../test/e2e/harness.ts');

const SCRIPTS_STARTED = '/var/log/azure/bench-scripts-started';
const MARKER = '/opt/azure/containers/aks-node-controller-scripts-started';
// The stand-in start script: its first act records when it started, then the status files of a success.
const STAND_IN = `#!/bin/bash
printf '%s' "$EPOCHREALTIME" > "$AKS_NODE_ROOT${SCRIPTS_STARTED}"
mkdir -p "$AKS_NODE_ROOT/var/log/azure/aks"
printf '%s' '{"ExitCode":"0","Output":"done","Error":"","ExecDuration":"0"}' > "$AKS_NODE_ROOT${PROVISION_JSON}"
touch "$AKS_NODE_ROOT${PROVISION_COMPLETE}"
`;

const nowMs = () => performance.timeOrigin + performance.now();

// Durable writes the agent makes before the scripts start, each a temp file, fsync, rename and fsync of the
// directory (platform/fs.ts atomicWrite): check-hotfix the pointer file and its event, download-hotfix its
// event, provision its Starting event (the scripts-started marker is written whole but without fsync).
const DURABLE_WRITES = 4;

/** One durable write of a small file, done here the way the agent does it, in the node's own directory. */
function durableWriteMs(dir, i) {
  const started = performance.now();
  const temp = join(dir, `.bench-durable-${i}`);
  const fd = openSync(temp, 'wx', 0o644);
  writeSync(fd, 'x'.repeat(300));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, join(dir, `bench-durable-${i}`));
  const dirFd = openSync(dir, 'r');
  fsyncSync(dirFd);
  closeSync(dirFd);
  rmSync(join(dir, `bench-durable-${i}`));
  return performance.now() - started;
}

/** Runs a command; resolves with its wall time, exit code and (under /usr/bin/time) peak RSS in MiB. */
function timed(command, commandArgs, env, options = {}) {
  const argv = options.rss ? ['/usr/bin/time', ['-f', '%M', command, ...commandArgs]] : [command, commandArgs];
  return new Promise((resolve, reject) => {
    const started = nowMs();
    const child = spawn(argv[0], argv[1], { env, cwd: env.AKS_NODE_ROOT ?? '/', stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = nowMs() - started;
      if (code !== 0) return reject(new Error(`${command} ${commandArgs.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      const rssMiB = options.rss ? Number(stderr.trim().split('\n').pop()) / 1024 : NaN;
      resolve({ ms, started, rssMiB });
    });
  });
}

// The node: a pointer ConfigMap that maps other versions only (nothing for this one), a node config that
// both check-hotfix (apiserver, token) and provision read, the image's components.json and start script.
const api = await startFakeApiServer({
  configMaps: { [node.CM_KEY]: { 'hotfixes.json': '{"hotfixes":{"202401.01":"202401.01.2"}}' } },
});
const sb = node.nodeFor(api, { pointer: null });
const config = configWithSecrets({
  apiServerConfig: { apiServerName: api.address },
  bootstrappingConfig: { tlsBootstrappingToken: DEFAULT_TOKEN },
});
const configPath = sb.write(node.NODE_CONFIG, JSON.stringify(config), 0o600);
sb.write('/opt/azure/components.json', '{}');
sb.write(START_SCRIPT, STAND_IN, 0o755);
const env = baseEnv(sb.root);
const resetStatus = () => {
  for (const p of [PROVISION_JSON, PROVISION_COMPLETE, MARKER, SCRIPTS_STARTED]) rmSync(sb.path(p), { force: true });
};

const PARTS = {
  'check-hotfix': ['check-hotfix'],
  'download-hotfix': ['download-hotfix'],
  provision: ['provision', `--provision-config=${configPath}`],
};

async function bootOnce(agent, rss = false) {
  resetStatus();
  const check = await timed(agent, PARTS['check-hotfix'], env, { rss });
  const outcome = /outcome=(\w+)/.exec(sb.events().at(-1)?.Message ?? '')?.[1];
  // The map was read; it names no hotfix for this version (configMapRead when it names one).
  if (outcome !== 'noHotfixForBase') throw new Error(`check-hotfix outcome ${outcome}, not noHotfixForBase`);
  const download = await timed(agent, PARTS['download-hotfix'], env, { rss });
  const provision = await timed(agent, PARTS.provision, env, { rss });
  const scriptsAt = Number(readFileSync(sb.path(SCRIPTS_STARTED), 'utf8')) * 1000;
  return {
    'check-hotfix': check.ms,
    'download-hotfix': download.ms,
    'provision to the scripts': scriptsAt - provision.started,
    'provision, whole (reference)': provision.ms,
    rss: { 'check-hotfix': check.rssMiB, 'download-hotfix': download.rssMiB, provision: provision.rssMiB },
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'anc-bench-boot-'));
const trivial = (await trivialPrograms(scratch))['console.log'];
const agents = baseline ? [bin, baseline] : [bin];
const samples = agents.map(() => []);
const rss = agents.map(() => []);
const floors = [];
const durable = [];
const total = (s) => s['check-hotfix'] + s['download-hotfix'] + s['provision to the scripts'];
try {
  for (let i = 0; i < runs + 2; i++) {
    for (const [a, agent] of agents.entries()) {
      const boot = await bootOnce(agent);
      if (i >= 2) samples[a].push(boot);
    }
    let floor = 0;
    for (let k = 0; k < 3; k++) floor += (await timed(trivial, [], env)).ms;
    if (i >= 2) floors.push(floor);
    for (let k = 0; k < DURABLE_WRITES; k++) if (i >= 2) durable.push(durableWriteMs(sb.path('/var/log/azure'), k));
  }
  for (let i = 0; i < 5; i++) for (const [a, agent] of agents.entries()) rss[a].push((await bootOnce(agent, true)).rss);
  const floor = median(floors);
  const cells = (fn) => agents.map((_, a) => fn(a)).join(' | ');
  const part = (name) => cells((a) => median(samples[a].map((s) => s[name])).toFixed(1));
  const rssOf = (name) => cells((a) => median(rss[a].map((r) => r[name])).toFixed(1));
  const totals = agents.map((_, a) => median(samples[a].map(total)));
  const heads = agents.map((agent, a) => (a === 0 ? 'this build' : `baseline ${agent}`));
  process.stdout.write(`boot-path overhead, no hotfix waiting (${bin}; medians of ${runs} interleaved runs)\n\n`);
  process.stdout.write(
    `| part | ${heads.map((h) => `${h}, median ms`).join(' | ')} | ${heads.map((h) => `${h}, peak RSS MiB`).join(' | ')} |\n`,
  );
  process.stdout.write(`|---|${agents.map(() => '---:|---:|').join('')}\n`);
  process.stdout.write(`| check-hotfix (ConfigMap read, loopback TLS) | ${part('check-hotfix')} | ${rssOf('check-hotfix')} |\n`);
  process.stdout.write(`| download-hotfix (nothing to do) | ${part('download-hotfix')} | ${rssOf('download-hotfix')} |\n`);
  process.stdout.write(`| provision, up to the scripts' start | ${part('provision to the scripts')} | ${rssOf('provision')} |\n`);
  process.stdout.write(`| **total** (median of per-run sums; target <= 40 ms) | ${cells((a) => `**${totals[a].toFixed(1)}**`)} | |\n`);
  process.stdout.write(`| floor: 3 start-ups of a console.log program, same runtime and flags | ${floor.toFixed(1)} | |\n`);
  process.stdout.write(`| ratio total/floor | ${cells((a) => `${(totals[a] / floor).toFixed(2)}x`)} | |\n`);
  const write = median(durable);
  process.stdout.write(`| one durable write here (temp, fsync, rename, fsync dir), median | ${write.toFixed(1)} | |\n`);
  process.stdout.write(
    `| floor with the ${DURABLE_WRITES} durable writes before the scripts | ${(floor + DURABLE_WRITES * write).toFixed(1)} | |\n`,
  );
  process.stdout.write(
    `| ratio total/(floor + durable writes) | ${cells((a) => `${(totals[a] / (floor + DURABLE_WRITES * write)).toFixed(2)}x`)} | |\n`,
  );
  process.stdout.write(`| (provision whole, scripts included, for reference) | ${part('provision, whole (reference)')} | |\n`);
} finally {
  await api.close();
  sb.cleanup();
  rmSync(scratch, { recursive: true, force: true });
}

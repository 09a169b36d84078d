// `npm run demo`: a whole sandboxed first boot of a node, printed as a timeline (see test/fakes/boot.ts).
// The image's baked provision_start.sh has a bug (it exits ERR_KUBELET_START_FAIL); the hotfix package
// carries an agent whose embedded script payload (build.mjs --scripts) holds the fixed script, applied
// by the hotfix's provision before the scripts start (docs/hotfix.md "script payload"). The payload is
// checked against the image's manifest (build.mjs --image-manifest), so every entry applies: none missing.
//
// A release engineer's rehearsal (docs/hotfix.md "Rehearse a publish"): the same boot from one's own
// packages, repository directory or pointer file instead of the demo's own build:
//
//   npm run demo -- [--packages DIR | --repo DIR] [--pointer FILE] [--baked-bin FILE | --baked-version V] [--keep]
//
// Without --keep everything the demo wrote under the temporary directory is removed at the end.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { runAnc } from '../test/e2e/harness.ts';
import { BAKED_VERSION, sandboxedFirstBoot, type BootOptions, type BootStep } from '../test/fakes/boot.ts';
import { buildAgent } from '../test/fakes/repos.ts';
import { BUG, imageManifestFor, pinnedFixEntries, SCRIPT_LABEL, writePayloadDir } from '../test/fakes/script-fix.ts';

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`).padStart(6);
const line = (s: BootStep, indent = '') =>
  `${seconds(s.atMs)}  ${indent}${s.name.padEnd(48 - indent.length)} ${seconds(s.durationMs)}  ${s.outcome}`;

const USAGE = `Usage: npm run demo -- [flags]

A sandboxed first boot of a node on loopback: the real launcher and agent, an apiserver stand-in serving
the hotfix pointer, a signed apt repository serving the hotfix packages.

  --packages DIR       serve the .deb packages in DIR (your aks-node-controller{,-delta} build)
  --repo DIR           serve the aks-node-controller*.deb found under repository directory DIR
                       (re-signed with a throwaway key the sandboxed node trusts)
  --pointer FILE       the pointer the cluster serves: a pointer JSON ({"hotfixes": ...}) or a ConfigMap
                       from \`hotfix pointer render\`/\`sign\` (YAML or JSON). Default: the packages' version
                       for its base
  --baked-bin FILE     the image's agent, taken as given (default: built at --baked-version, ${BAKED_VERSION})
  --baked-version V    the version the image's agent is built at
  --keep               keep the sandbox files and the servers up (kubectl against the stand-in) until Ctrl-C
  --verbose            the agent's raw telemetry in the rows too (download-hotfix's sourceMs=..., indexMs=...)
`;

interface DemoFlags {
  packages?: string;
  repo?: string;
  pointer?: string;
  bakedBin?: string;
  bakedVersion?: string;
  keep: boolean;
  verbose?: boolean;
}

function parseFlags(argv: string[]): DemoFlags {
  const flags: DemoFlags = { keep: false };
  const valued: Record<string, keyof DemoFlags> = {
    '--packages': 'packages',
    '--repo': 'repo',
    '--pointer': 'pointer',
    '--baked-bin': 'bakedBin',
    '--baked-version': 'bakedVersion',
  };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name === '--help' || name === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (name === '--keep') flags.keep = true;
    else if (name === '--verbose') flags.verbose = true;
    else if (valued[name]) {
      const value = inline ?? argv[++i];
      if (!value) throw new Error(`${name} needs a value (see --help)`);
      (flags as unknown as Record<string, string>)[valued[name]!] = resolve(value);
    } else throw new Error(`unknown argument ${name} (see --help)`);
  }
  if (flags.packages && flags.repo) throw new Error('give --packages or --repo, not both');
  return flags;
}

/** The .deb files of a directory (`deep`: the whole tree, as a repository's pool). */
function debsIn(dir: string, deep: boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && deep) found.push(...debsIn(path, deep));
    else if (entry.isFile() && /^aks-node-controller(-delta)?_.*\.deb$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/** The ConfigMap data a pointer file stands for: a pointer JSON, or a rendered/signed ConfigMap's data. */
function configMapData(file: string): Record<string, string> {
  const text = readFileSync(file, 'utf8');
  const doc = parseYaml(text) as Record<string, unknown> | null;
  if (doc && typeof doc === 'object' && 'hotfixes' in doc) return { 'hotfixes.json': text };
  const data = doc && typeof doc === 'object' ? (doc.data as Record<string, string> | undefined) : undefined;
  if (doc?.kind !== 'ConfigMap' || !data) throw new Error(`${file}: neither a pointer ({"hotfixes": ...}) nor a ConfigMap with data`);
  return data;
}

/** The pointer for the packages' own version: {"hotfixes": {BASE: VERSION}}. */
function pointerFor(debs: string[]): Record<string, unknown> {
  const version = debs.map((d) => /^aks-node-controller_([^_]+)_/.exec(d.split('/').pop()!)?.[1]).find(Boolean);
  if (!version) throw new Error('no aks-node-controller_<version>_<arch>.deb among the packages: give --pointer');
  return { hotfixes: { [version.split('.').slice(0, 2).join('.')]: version } };
}

/**
 * The demo boots a node through the real launcher (bash, /proc) with real apt and a gpg-signed repository:
 * Linux with the Debian tools. Said at once, naming what is missing, instead of a spawn error 10 s in.
 */
function preflight(): void {
  const tools = ['apt-get', 'dpkg', 'dpkg-deb', 'apt-ftparchive', 'gpg']; // test/needs.mjs `boot/`: what a first boot uses
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  const missing = tools.filter((t) => !dirs.some((d) => existsSync(join(d, t))));
  if (process.platform === 'linux' && missing.length === 0) return;
  const what = process.platform === 'linux' ? `missing ${missing.join(', ')}` : `this is ${process.platform}, not Linux`;
  process.stderr.write(
    `demo: cannot run here: it boots a node through the Linux launcher with apt and a signed repository (${what}).\n` +
      'On Debian or Ubuntu: run it as root once (`npm run demo` installs the tools: scripts/ensure-tools.sh), or apt-get install ' +
      'apt dpkg-dev apt-utils gnupg.\nOn macOS: run it in a Linux VM or container; README "On a Mac" lists what runs where.\n',
  );
  process.exit(1);
}

/** A rehearsal's hotfix that the node refused (health gate, fallback, download): the reason, else undefined. */
function refusal(result: Awaited<ReturnType<typeof sandboxedFirstBoot>>): string | undefined {
  const message = (task: string) =>
    result.events.filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`).map((e) => e.Message?.split(' | ')[0] ?? '');
  const fallback = message('HotfixFallback')[0];
  if (fallback) return fallback;
  const download = message('DownloadHotfix').find((m) => !/outcome=staged\b/.test(m));
  if (download && !result.hotfixVersion) return download;
  if (!/Using hotfix binary/.test(result.launcher.stdout)) return 'the launcher ran the baked agent, not the hotfix';
  return undefined;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  preflight();
  const agentSteps = new Set(['CheckHotfix', 'DownloadHotfix', 'ScriptHotfix', 'Provision']);
  const source = flags.packages ?? flags.repo;
  const debs = source ? debsIn(source, flags.repo !== undefined) : undefined;
  if (debs && debs.length === 0) throw new Error(`${source}: no aks-node-controller*.deb ${flags.repo ? 'under it' : 'in it'}`);
  process.stdout.write(
    'aks-node-controller: a sandboxed first boot (offline, loopback only)\n' +
      (debs
        ? `serving your packages: ${debs.map((d) => d.split('/').pop()).join(', ')}\n\n`
        : `the image's provision_start.sh has a bug: it exits ${BUG.exitCode} ${BUG.name} ("${BUG.note}")\n` +
          `the hotfix package carries the fixed script (script payload ${SCRIPT_LABEL}, embedded in the agent)\n\n`) +
      '    at  step                                              took  outcome\n',
  );
  const scratch = mkdtempSync(join(tmpdir(), 'anc-demo-'));
  // The demo's own steps before the boot are timed here; the boot's rows follow them on the same clock.
  const demoStart = Date.now();
  const timed = <T>(name: string, body: () => T, outcome: (v: T) => string): T => {
    const at = Date.now();
    const value = body();
    process.stdout.write(`${line({ name, atMs: at - demoStart, durationMs: Date.now() - at, outcome: outcome(value) })}\n`);
    return value;
  };
  const bakedBin =
    flags.bakedBin ??
    timed(
      `build the image's agent ${flags.bakedVersion ?? BAKED_VERSION}`,
      () => buildAgent(flags.bakedVersion ?? BAKED_VERSION, join(scratch, 'baked')),
      (p) => p,
    );
  // The demo's own hotfix: the image build's last step is its manifest, published beside it; the hotfix
  // build is checked against it, and the image keeps it so `status` shows what changed since.
  const ownFix = (): BootOptions => {
    const manifest = timed(
      "the image's manifest (image manifest --root)",
      () => imageManifestFor(bakedBin, join(scratch, 'image'), { exitCode: BUG.exitCode, note: BUG.note }),
      () => 'the hotfix build checks its payload against it',
    );
    const payload = writePayloadDir(join(scratch, 'payload'), pinnedFixEntries());
    return {
      standIn: { exitCode: BUG.exitCode, note: BUG.note },
      hotfixBuildArgs: ['--scripts', payload, '--scripts-label', SCRIPT_LABEL, '--image-manifest', manifest],
      prepareRoot: (root) => copyFileSync(manifest, join(root, 'opt/azure/containers/aks-node-controller-image-manifest.json')),
    };
  };
  const offset = Date.now() - demoStart;
  const shown = (s: BootStep): BootStep => ({
    ...s,
    atMs: s.atMs + offset,
    outcome: flags.verbose ? s.outcome : s.outcome.replace(/ \w+Ms=\d+/g, ''),
  });
  const options: BootOptions = {
    hotfixIndex: true,
    keepServers: flags.keep,
    bakedBin,
    ...(debs ? { debs, pointer: pointerFor(debs) } : ownFix()),
    ...(flags.pointer ? { configMapData: configMapData(flags.pointer) } : {}),
    onStep: (s) => {
      // The image's agent was built (and timed) above, or given: the boot only takes it.
      if (s.name.startsWith("build the image's agent")) {
        if (flags.bakedBin) process.stdout.write(`${line(shown({ ...s, name: "the image's agent (--baked-bin)" }))}\n`);
        return;
      }
      if (!agentSteps.has(s.name)) process.stdout.write(line(shown(s)) + '\n');
    },
  };
  const result = await sandboxedFirstBoot(options).finally(() => rmSync(scratch, { recursive: true, force: true }));
  process.stdout.write("\ninside the launcher (from the agent's guest-agent events):\n");
  for (const s of result.steps.filter((x) => agentSteps.has(x.name)).sort((a, b) => a.atMs - b.atMs)) {
    process.stdout.write(line(shown(s), '  ') + '\n');
  }
  const chosen = /Using (hotfix|VHD-baked) binary: (\S+)/.exec(result.launcher.stdout);
  process.stdout.write(
    `\nbinary chosen by the launcher: ${chosen ? `${chosen[1]} (${chosen[2]!.replace(result.root, '<root>')})` : 'unknown'}\n`,
  );
  process.stdout.write(`staged hotfix binary reports:  ${result.hotfixVersion || '(none staged)'}\n`);
  const download = result.events.find((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')?.Message ?? '';
  const fetched = /path=(\S+) fetchedBytes=(\d+)/.exec(download);
  const pkg = /packageBytes=(\d+)/.exec(download)?.[1];
  const what = fetched
    ? `${fetched[2]} bytes (path=${fetched[1]}${pkg ? `; the package: ${pkg} bytes, the rest signed metadata` : ''})`
    : '(nothing)';
  process.stdout.write(`download-hotfix fetched:       ${what}\n`);
  const scripts = result.events.find((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix')?.Message?.split(' | ')[0];
  process.stdout.write(`script payload:                ${scripts ?? '(not applied)'}\n`);
  process.stdout.write(`staged pointer:                ${result.stagedPointer || '(none)'}\n`);
  process.stdout.write(`provision-wait printed:        ${result.provisionWait.stdout.trim().slice(0, 120)}...\n`);
  const status = await runAnc(['status'], { root: result.root, bin: join(result.root, 'opt/azure/containers/aks-node-controller') });
  const block = /\nscripts:\n(?: {2}.*\n| {13}.*\n)+/.exec(status.stdout)?.[0] ?? '';
  process.stdout.write(`\naks-node-controller status: ${status.stdout.split('\n')[0]}${block.replaceAll(result.root, '<root>')}`);
  const launcherLog = `${result.root}/var/log/azure/launcher-output.log`;
  writeFileSync(launcherLog, result.launcher.stdout + result.launcher.stderr);
  const logLines = readFileSync(result.logFile, 'utf8').trim().split('\n').length;
  process.exitCode = result.launcher.exitCode === 0 && result.provisionWait.exitCode === 0 ? 0 : 1;
  // A refused hotfix is never a success, even when the baked agent then provisioned fine.
  const refused = refusal(result);
  if (refused) {
    process.exitCode = 1;
    const pinned = /another image build|pinned|replaces/.test(refused)
      ? '\nIts script payload is pinned to the images it was built against; this demo boots its own image (stand-in ' +
        "scripts), so that payload cannot take here. Rehearse it on the real image: npm run demo:vm (the demo never runs an image's real scripts on this machine).\n"
      : '';
    process.stdout.write(
      `\nREFUSED: the node did not take the hotfix: ${(flags.verbose ? refused : refused.replace(/ \w+Ms=\d+/g, '')).replaceAll(result.root, '<root>')}\n${pinned}`,
    );
  }
  if (!flags.keep) {
    const bytes = treeBytes(result.root);
    result.cleanup();
    process.stdout.write(
      `\n${logLines} log lines, ${result.events.length} events; the sandbox (${(bytes / 1e6).toFixed(0)} MB under ${tmpdir()}) is removed: --keep keeps it and the servers\n`,
    );
    return;
  }
  process.stdout.write(
    `\nsandbox root (kept): ${result.root}\n  log:    ${result.logFile}\n  events: ${result.eventsDir}\n` +
      `  launcher output (apt's included): ${launcherLog}\n  ${logLines} log lines, ${result.events.length} events\n`,
  );
  const servers = result.servers!;
  process.stdout.write(
    [
      '',
      `apiserver stand-in: ${servers.apiserver}; package repository: ${servers.repository}`,
      `try: kubectl --kubeconfig ${servers.kubeconfig} -n kube-system get configmap anc-hotfix-version -o yaml`,
      `try: AKS_NODE_ROOT=${result.root} ${result.root}/opt/azure/containers/aks-node-controller status`,
      `Ctrl-C stops the servers; the files stay (rm -rf ${result.root} when done).`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((done) => {
    const stop = () => void servers.close().then(done);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Bytes under a directory (what a run would leave in /tmp). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

// A rehearsal of a whole hotfix rollout on one machine (`npm run fleet`, issue 30): the apiserver stand-in,
// a signed apt repository serving a hotfix, N sandboxed nodes (distinct names, client certificates and VM
// identities) booting through the real launcher, a signed pointer whose wave widens on a compressed
// schedule (25% -> 50% -> 100% a few seconds apart), and the real `hotfix rollout watch` beside them
// holding a pre-signed halt. After each boot the node's report goes onto its Node object as the report
// unit would send it (report-status, kubelet's credentials). A node picks a wave up at its next boot: at
// each step the nodes not yet on the hotfix (and not failed) boot again.
//
// With `bad`, the hotfix's script payload breaks provisioning (exit 34 ERR_KUBELET_START_FAIL) on every
// node that takes it: the watch must halt after the first wave and the other nodes stay baked.
// With `hang`, that many nodes of the first wave boot and never report (silence is failure: the watch,
// with --max-failed hang-1, counts every one of them timedOut and halts). With `gated`, every step after
// the first opens only on the evidence the watch signs with its observer key. With `watchDiesAfterWave`, the watch is killed (SIGKILL) after that
// wave: a gated rollout stalls, an ungated one widens to 100% with nobody watching.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { runAnc } from '../e2e/harness.ts';
import { issueNodeCert } from './apiserver-pki.ts';
import { DEFAULT_TOKEN, kubeconfigFor, startFakeApiServer, type FakeApiServer } from './apiserver.ts';
import { demoConfiguration } from './demo-config.ts';
import {
  installImage,
  runBoothook,
  runLauncher,
  standInProvisionScript,
  writeHostname,
  writeStandInProvisionScripts,
} from './node-image.ts';
import { buildAgent, buildHotfixPackages, prepareAptRoot, publishHotfixIndex, startAptRepo } from './repos.ts';
import { buildScriptFix, fixEntries, type PayloadEntry } from './script-fix.ts';
import { RECALL_CONDITION, rehearseRecall } from './fleet-recall.ts';

export const FLEET_BAKED = '202604.01.0';
export const FLEET_HOTFIX = '202604.01.1';
const PUBLISHER = 'publisher.0123456789abcdef';
const PERCENTS = [25, 50, 100];

export interface FleetOptions {
  nodes: number;
  bad: boolean;
  /** After a good rollout completed: publish a recall of the hotfix and run the report timer's command on every node. */
  recall?: boolean;
  /** Nodes of the first wave that boot and never report. */
  hang?: number;
  /** Steps after the first open only on signed evidence. */
  gated?: boolean;
  /** Kill the watch after this wave's boots. */
  watchDiesAfterWave?: number;
  /** Seconds between the schedule's steps (default: enough for a round of boots on this machine). */
  gapSeconds?: number;
  /** Boots at once (default 3). */
  concurrency?: number;
  /** Progress for people: tables, the watch's decisions, boots. */
  say?: (text: string) => void;
}

export interface WaveSummary {
  wave: number;
  percent: number;
  at: string;
  booted: number;
  /** After this wave's boots: on the hotfix, failed, on the baked agent. */
  onHotfix: number;
  failed: number;
  onBaked: number;
}

export interface FleetSummary {
  nodes: number;
  reported: number;
  tookHotfix: number;
  failed: number;
  halted: boolean;
  /** --recall: nodes whose Node status carries AKSNodeControllerRecalled=True after the timer ran (no reboot); null without --recall. */
  recalledFlagged: number | null;
  /** --recall: the nodes `rollout status` lists to reimage at the end. */
  toReimage: number | null;
  haltedAt: { wave: number; time: string } | null;
  /** The most nodes the watch counted timedOut at once (silent past --report-timeout, or never registered). */
  timedOut: number;
  /** `rollout status`'s state at the end: complete, halted, stalled, recalled (or in-progress). */
  rolloutState: string;
  /** The wave after which the watch was killed (null: it ran to the end). */
  watchDied: number | null;
  byWave: WaveSummary[];
}

export interface FleetResult {
  summary: FleetSummary;
  tables: string[];
  watchOutput: string;
  watchExit: number | null;
  durationMs: number;
}

interface Node {
  name: string;
  root: string;
  boots: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The wave seed as docs/hotfix.md defines it: the first 53 bits of sha256(salt + ":" + uuid) over 2^53. */
const waveSeedOf = (uuid: string, salt: string) =>
  Number(createHash('sha256').update(`${salt}:${uuid}`).digest().readBigUInt64BE(0) >> 11n) / 2 ** 53;

/** Distinct VM identities whose seeds spread evenly over [0, 1), so the 25/50/100 waves are representative. */
function spreadUuids(count: number, salt: string): string[] {
  const out: string[] = [];
  let k = 0;
  for (let i = 0; i < count; i++) {
    for (;;) {
      const uuid = `6a1f0c2e-4b7d-4e1a-9c3f-${(k++).toString(16).padStart(12, '0')}`;
      const seed = waveSeedOf(uuid, salt);
      if (seed >= i / count && seed < (i + 1) / count) {
        out.push(uuid);
        break;
      }
    }
  }
  return out;
}

async function pool<T>(items: T[], limit: number, body: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await body(item);
    }),
  );
}

export async function rehearseFleet(options: FleetOptions): Promise<FleetResult> {
  const say = options.say ?? (() => {});
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'anc-fleet-'));
  const closers: Array<() => Promise<void> | void> = [];
  try {
    // Pointer-signing keys (made now, never kept), baked into the image's agent: the fleet enforces.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyFile = join(work, 'fleet-key.pem');
    writeFileSync(keyFile, String(privateKey.export({ type: 'pkcs8', format: 'pem' })), { mode: 0o600 });
    // The observer key (role observer): the watch signs evidence with it; it can sign nothing else.
    const observer = generateKeyPairSync('ed25519');
    const observerFile = join(work, 'observer-key.pem');
    writeFileSync(observerFile, String(observer.privateKey.export({ type: 'pkcs8', format: 'pem' })), { mode: 0o600 });
    const keys = join(work, 'pointer-keys.json');
    writeFileSync(
      keys,
      JSON.stringify({
        keys: [
          { keyid: 'fleet-2026', algorithm: 'ed25519', publicKey: String(publicKey.export({ type: 'spki', format: 'pem' })) },
          {
            keyid: 'observer-2026',
            algorithm: 'ed25519',
            role: 'observer',
            publicKey: String(observer.publicKey.export({ type: 'spki', format: 'pem' })),
          },
        ],
      }),
    );
    say(
      `building the image's agent ${FLEET_BAKED} (pointer keys baked in) and hotfix ${FLEET_HOTFIX}${options.bad ? ' (BAD: its script payload breaks provisioning)' : ''}\n`,
    );
    const baked = buildAgent(FLEET_BAKED, join(work, 'baked'), ['--pointer-keys', keys]);
    const start = options.bad
      ? standInProvisionScript({ exitCode: 34, note: 'bad hotfix: kubelet flags broken by the script payload' })
      : standInProvisionScript({ exitCode: 0, note: 'provisioned by the hotfix script payload' });
    const entries: PayloadEntry[] = [{ ...fixEntries()[0]!, content: start }];
    const hotfixBin = buildScriptFix(FLEET_HOTFIX, join(work, 'fix'), entries);
    const packages = buildHotfixPackages(FLEET_HOTFIX, join(work, 'packages'), { bin: hotfixBin, deltaFrom: [baked], formats: ['deb'] });

    say(`built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    const api = await startFakeApiServer({
      tokens: {
        [DEFAULT_TOKEN]: { user: 'system:bootstrap:abcdef', canRead: true },
        [PUBLISHER]: { user: 'release-engineer', canRead: true, canWrite: true },
      },
    });
    closers.push(() => api.close());
    const publisher = join(work, 'publisher.kubeconfig');
    writeFileSync(publisher, kubeconfigFor(api, { token: PUBLISHER }), { mode: 0o600 });
    const repo = await startAptRepo(join(work, 'apt-repo'), [packages.deb, ...(packages.delta ? [packages.delta.deb] : [])]);
    closers.push(() => repo.close());
    publishHotfixIndex(repo, 'apt');

    // Custom data once (the control plane renders it), applied to every node by its boothook.
    const configFile = join(work, 'node-config.json');
    writeFileSync(configFile, JSON.stringify(demoConfiguration(api.address, DEFAULT_TOKEN), null, 2));
    const rendered = await runAnc(['custom-data', '--raw', configFile], { root: mkdtempSync(join(work, 'producer-')), bin: baked });
    if (rendered.exitCode !== 0) throw new Error(`custom-data failed: ${rendered.stderr}`);

    const uuids = spreadUuids(options.nodes, FLEET_HOTFIX);
    // One image install (vhd/install.sh), then each node a full copy of it (not hard links: the health gate
    // links the baked binary under a second name and checks that nothing touched it, per node).
    const image = join(work, 'image');
    mkdirSync(image);
    installImage(image, baked);
    const nodes: Node[] = [];
    for (let i = 0; i < options.nodes; i++) {
      const name = `aks-fleet-${String(i).padStart(2, '0')}`;
      const root = join(work, 'nodes', name);
      mkdirSync(join(work, 'nodes'), { recursive: true });
      execFileSync('cp', ['-a', image, root]);
      writeHostname(root);
      writeStandInProvisionScripts(root, { sleepSeconds: 0 });
      prepareAptRoot(root, repo);
      const boothook = runBoothook(root, rendered.stdout);
      if (boothook.exitCode !== 0) throw new Error(`boothook failed on ${name}: ${boothook.stderr}`);
      appendFileSync(join(root, 'opt/azure/containers/enabled_features.sh'), 'ANC_HOTFIX_POINTER_SIGNING=enforce\n');
      mkdirSync(join(root, 'sys/class/dmi/id'), { recursive: true });
      writeFileSync(join(root, 'sys/class/dmi/id/product_uuid'), `${uuids[i]}\n`);
      writeFileSync(join(root, 'etc/os-release'), 'ID=ubuntu\nVERSION_ID="22.04"\n');
      mkdirSync(join(root, 'etc/default'), { recursive: true });
      writeFileSync(join(root, 'etc/default/kubelet'), `KUBELET_FLAGS=--node-ip=10.224.0.${10 + i} --hostname-override=${name}\n`);
      joinKubelet(api, root, name);
      nodes.push({ name, root, boots: 0 });
    }

    say(`${options.nodes} node images installed, custom data applied (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    // The signed pointer: 25% at T0, 50% at T0+gap, 100% at T0+2*gap (the node's clock decides).
    const concurrency = options.concurrency ?? 3;
    // A killed watch must die before the next step's time: that case gets room for a round of boots.
    const round = Math.max(12, Math.ceil((options.nodes / concurrency) * 5));
    // A gated step needs the wave before it healthy at its time: that case, too, gets room for the round.
    const roomy = options.watchDiesAfterWave !== undefined || options.gated === true;
    const gap = (options.gapSeconds ?? (roomy ? Math.ceil(round * 1.6) : round)) * 1000;
    // Silence: a node may stay silent for a round of boots (every node boots once per wave, in turn). Only
    // --hang needs the watch to call silence soon; elsewhere a loaded machine's slow boot must not read as one.
    const hang = options.hang ?? 0;
    const reportTimeout = Math.ceil(round * (hang > 0 ? 1.5 : 5));
    const firstWave = Math.floor((options.nodes * PERCENTS[0]!) / 100);
    if (hang > firstWave) throw new Error(`--hang ${hang}: the first wave has only ${firstWave} node(s)`);
    const t0 = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    const steps = PERCENTS.map((percent, i) => ({ percent, at: t0 + i * gap }));
    const schedule = `202604.01=${steps.map((s, i) => `${s.percent}@${iso(s.at)}${options.gated && i > 0 ? '!' : ''}`).join(',')}`;
    const pointer = await sign(baked, work, 'pointer', keyFile, [
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      `202604.01=${FLEET_HOTFIX}`,
      '--schedule',
      schedule,
      '--serial',
      '1',
      '--expires',
      iso(Date.now() + 86_400_000),
    ]);
    await publish(baked, publisher, pointer);
    say(`pointer serial 1 (signed) published: ${schedule}\n`);
    // The halt, rendered from the live pointer and signed now: ready before it is needed.
    const halt = await sign(baked, work, 'halt', keyFile, [
      'hotfix',
      'pointer',
      'render',
      '--halt',
      '--withdraw',
      '--kubeconfig',
      publisher,
    ]);
    say('pre-signed halt ready: serial 2, every wave withdrawn to 0%\n');

    const watch = startWatch(baked, publisher, halt, keys, [
      '--report-timeout',
      `${reportTimeout}s`,
      '--expect',
      String(options.nodes),
      // The hung nodes boot in turn, so each falls silent at its own poll: the halt waits for all of them.
      ...(hang > 0 ? ['--max-failed', String(hang - 1)] : []),
      ...(options.gated ? ['--evidence-key', observerFile, '--evidence-key-id', 'observer-2026'] : []),
    ]);
    closers.push(() => {
      watch.child.kill('SIGTERM');
    });
    watch.onLine = (line) => say(`  watch | ${line}\n`);

    const tables: string[] = [];
    const byWave: WaveSummary[] = [];
    const failed = new Set<string>();
    const onHotfix = new Set<string>();
    // The first `hang` nodes are in the first wave (their seeds are the lowest): they boot and never report.
    const hung = new Set(nodes.slice(0, hang).map((n) => n.name));
    let haltedAt: FleetSummary['haltedAt'] = null;
    // The wave a halt came in: the last step whose time had come when the watch halted.
    const haltOf = (time: string | undefined): FleetSummary['haltedAt'] => {
      const at = time ?? iso(Date.now());
      return { wave: Math.max(1, steps.filter((s) => s.at <= Date.parse(at) + 999).length), time: at };
    };
    let watchDied: number | null = null;
    for (const [index, step] of steps.entries()) {
      // A gated step: nodes boot a little after its time, once the watch had a poll to sign its evidence.
      const wait = step.at + (options.gated && index > 0 ? 2500 : 0) - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const due = nodes.filter((n) => !failed.has(n.name) && !onHotfix.has(n.name) && !(hung.has(n.name) && n.boots > 0));
      say(`\nwave ${index + 1}: ${step.percent}% since ${iso(step.at)}; booting ${due.length} node(s) not yet on the hotfix\n`);
      await pool(due, concurrency, async (node) => {
        const outcome = await boot(api, node, baked, hung.has(node.name));
        if (outcome.hotfix && outcome.exitCode === 0) onHotfix.add(node.name);
        if (outcome.exitCode !== 0) failed.add(node.name);
        say(
          `  ${node.name} boot ${node.boots}: ${outcome.hotfix ? `hotfix ${FLEET_HOTFIX}` : `baked ${FLEET_BAKED}`}, exit ${outcome.exitCode}${hung.has(node.name) ? ' (hangs before report-status: never reports)' : ''}${outcome.awaiting ? ' (awaiting evidence)' : ''}\n`,
        );
      });
      if (options.watchDiesAfterWave === index + 1 && watch.exitCode === null) {
        watch.child.kill('SIGKILL');
        await watch.done;
        watchDied = index + 1;
        say(`\nthe watch is killed after wave ${index + 1} (SIGKILL: a closed laptop, a crash): nobody guards the rollout now\n`);
      }
      // Give the watch two polls over the new reports before the next step starts.
      await Promise.race([watch.done, new Promise((r) => setTimeout(r, 2500))]);
      if (watch.exitCode === 3 && haltedAt === null) haltedAt = haltOf(watch.haltTime);
      const table = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', publisher], { bin: baked, cwd: work });
      tables.push(table.stdout);
      say(`\n${table.stdout}`);
      byWave.push({
        wave: index + 1,
        percent: step.percent,
        at: iso(step.at),
        booted: due.length,
        onHotfix: onHotfix.size,
        failed: failed.size,
        onBaked: nodes.length - onHotfix.size - failed.size,
      });
    }
    const watchExit = await Promise.race([watch.done, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    if (watch.exitCode === 3 && haltedAt === null) haltedAt = haltOf(watch.haltTime);
    const first = api.nodes.nodes.get(nodes[0]!.name)?.metadata as { annotations?: Record<string, string> } | undefined;
    say(
      `\n${nodes[0]!.name}'s report (annotation kubernetes.azure.com/aks-node-controller-status):\n  ${first?.annotations?.['kubernetes.azure.com/aks-node-controller-status'] ?? '(none)'}\n`,
    );
    const envelope = (api.configMaps.get('kube-system/anc-hotfix-version') as Record<string, string> | undefined)?.['evidence.dsse.json'];
    if (envelope)
      say(
        `\nthe live evidence (data.evidence.dsse.json, signed by ${JSON.parse(envelope).signatures[0].keyid}):\n  ${Buffer.from(JSON.parse(envelope).payload, 'base64').toString('utf8')}\n`,
      );
    let recalled: { flagged: string[]; message: string | null } | undefined;
    if (options.recall && watch.exitCode !== 3) {
      recalled = await rehearseRecall({
        api,
        baked,
        work,
        publisher,
        version: FLEET_HOTFIX,
        expires: iso(Date.now() + 86_400_000),
        nodes,
        sign: (name, args) => sign(baked, work, name, keyFile, args),
        publish: (file) => publish(baked, publisher, file),
        say,
      });
      say(`${recalled.flagged.length} node(s) flagged ${RECALL_CONDITION}${recalled.message ? `: ${recalled.message}` : ''}\n`);
      const table = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', publisher], { bin: baked, cwd: work });
      tables.push(table.stdout);
      say(`\n${table.stdout}`);
    }
    const final = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', publisher, '-o', 'json'], { bin: baked, cwd: work });
    const finalView = JSON.parse(final.stdout) as {
      state: string;
      totals: { nodes: number; reported: number; tookHotfix: number; failedAmongTook: number };
      toReimage?: string[];
    };
    const totals = finalView.totals;
    const timedOut = Math.max(0, ...[...watch.output.matchAll(/ timedOut=(\d+) /g)].map((m) => Number(m[1])));
    return {
      summary: {
        nodes: totals.nodes,
        reported: totals.reported,
        tookHotfix: totals.tookHotfix,
        failed: totals.failedAmongTook,
        halted: watch.exitCode === 3,
        recalledFlagged: recalled ? recalled.flagged.length : null,
        toReimage: recalled ? (finalView.toReimage ?? []).length : null,
        haltedAt,
        timedOut,
        rolloutState: finalView.state,
        watchDied,
        byWave,
      },
      tables,
      watchOutput: watch.output,
      watchExit,
      durationMs: Date.now() - started,
    };
  } finally {
    for (const close of closers.reverse()) await close();
    if (process.env.ANC_FLEET_KEEP === '1') say(`kept: ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

/** What kubelet has once it joined: the cluster CA, a client certificate of its own, its kubeconfig. */
function joinKubelet(api: FakeApiServer, root: string, name: string): void {
  const cert = issueNodeCert(api.pki, name);
  mkdirSync(join(root, 'etc/kubernetes/certs'), { recursive: true });
  writeFileSync(join(root, 'etc/kubernetes/certs/ca.crt'), api.pki.ca.cert);
  mkdirSync(join(root, 'var/lib/kubelet/pki'), { recursive: true });
  writeFileSync(join(root, 'var/lib/kubelet/pki/kubelet-client-current.pem'), `${cert.cert}${cert.key}`, { mode: 0o600 });
  writeFileSync(
    join(root, 'var/lib/kubelet/kubeconfig'),
    `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /etc/kubernetes/certs/ca.crt
    server: ${api.url}
  name: localcluster
contexts:
- context:
    cluster: localcluster
    user: client
  name: localclustercontext
current-context: localclustercontext
users:
- name: client
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
`,
    { mode: 0o600 },
  );
}

/** One boot: a new boot id, the launcher, kubelet (re)registering the Node, then the report unit. */
async function boot(
  api: FakeApiServer,
  node: Node,
  baked: string,
  hangs = false,
): Promise<{ exitCode: number | null; hotfix: boolean; awaiting: boolean }> {
  node.boots++;
  const bootId = `${node.name}-boot-${node.boots}`;
  mkdirSync(join(node.root, 'proc/sys/kernel/random'), { recursive: true });
  writeFileSync(join(node.root, 'proc/sys/kernel/random/boot_id'), `${bootId}\n`);
  const launcher = await runLauncher(node.root, {}, 180_000);
  api.nodes.register(node.name, { bootId });
  const hotfix = /Using hotfix binary/.test(launcher.stdout);
  const awaiting = /awaitingEvidence/.test(launcher.stdout + launcher.stderr);
  if (hangs) return { exitCode: launcher.exitCode, hotfix, awaiting };
  const report = await runAnc(['report-status'], {
    root: node.root,
    bin: baked,
    env: { ANC_REPORT_WAIT_SECONDS: '20', ANC_REPORT_POLL_MS: '500' },
  });
  if (report.exitCode !== 0) throw new Error(`report-status on ${node.name} exited ${report.exitCode}: ${report.stderr}`);
  return { exitCode: launcher.exitCode, hotfix, awaiting };
}

/** Renders with the baked agent, then signs with the fleet key; returns the signed ConfigMap file. */
async function sign(bin: string, work: string, name: string, key: string, renderArgs: string[]): Promise<string> {
  const rendered = await runAnc(renderArgs, { bin, cwd: work });
  if (rendered.exitCode !== 0) throw new Error(`${renderArgs.join(' ')}: ${rendered.stderr}`);
  const unsigned = join(work, `${name}.yaml`);
  writeFileSync(unsigned, rendered.stdout);
  const signed = await runAnc(['hotfix', 'pointer', 'sign', '--key', key, '--key-id', 'fleet-2026', unsigned], { bin, cwd: work });
  if (signed.exitCode !== 0) throw new Error(`sign ${name}: ${signed.stderr}`);
  const file = join(work, `${name}.signed.yaml`);
  writeFileSync(file, signed.stdout);
  return file;
}

/** Publishes a ConfigMap file as a release engineer does: kubectl apply. */
async function publish(bin: string, kubeconfig: string, file: string): Promise<void> {
  void bin;
  await new Promise<void>((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(file, '..', 'kcache'), 'apply', '-f', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(file, '..') },
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`kubectl apply ${file}: ${err}`))));
  });
}

interface Watch {
  child: ChildProcess;
  output: string;
  exitCode: number | null;
  haltTime?: string;
  done: Promise<number | null>;
  onLine?: (line: string) => void;
}

/** `hotfix rollout watch` in enforce mode: the halt it would write, the fleet's keys, a poll every `interval` seconds. */
export function enforceWatchArgs(kubeconfig: string, halt: string, keys: string, interval: string, extra: string[] = []): string[] {
  return [
    'hotfix',
    'rollout',
    'watch',
    '--kubeconfig',
    kubeconfig,
    '--halt-with',
    halt,
    '--mode',
    'enforce',
    '--keys',
    keys,
    '--interval',
    interval,
    ...extra,
  ];
}

function startWatch(bin: string, kubeconfig: string, halt: string, keys: string, extra: string[]): Watch {
  const args = [...enforceWatchArgs(kubeconfig, halt, keys, '1'), '--until-complete', ...extra];
  const child = spawn(bin, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' },
  });
  const watch: Watch = { child, output: '', exitCode: null, done: Promise.resolve(null) };
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    watch.output += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      // Only decisions that change something, and the table it prints when it halts.
      if (/-> HALT|halt applied|NOT APPLIED|watch started|-> complete|evidence written|timedOut=[1-9]/.test(line)) watch.onLine?.(line);
      const halted = /^(\S+) .*-> HALT/.exec(line);
      if (halted) watch.haltTime = halted[1]!.replace(/\.\d{3}Z$/, 'Z');
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (watch.output += chunk));
  watch.done = new Promise((resolve) =>
    child.on('close', (code) => {
      watch.exitCode = code;
      resolve(code);
    }),
  );
  return watch;
}

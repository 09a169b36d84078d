// The sandboxed first boot (README "main job", issue: on the node): an image root with the agent baked
// in at 202604.01.0, a loopback apiserver stand-in serving the hotfix pointer ConfigMap, a loopback apt
// repository holding the agent at 202604.01.1 (a typical fix: one log message changed) and its delta
// package against the baked agent (so the node downloads kilobytes), custom data applied by its
// boothook, then the launcher end to end (check-hotfix -> download-hotfix -> hotfix binary -> provision
// with stand-in scripts) with provision-wait beside it. Returns what happened; the demo prints it, the boot test asserts it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnc, type RunOutcome } from '../e2e/harness.ts';
import { DEFAULT_TOKEN, kubeconfigFor, startFakeApiServer } from './apiserver.ts';

/** The token of `demo --keep`'s kubeconfig: it may write ConfigMaps (a publish rehearsed with kubectl). */
const PUBLISHER_TOKEN = 'publisher.0123456789abcdef';
import { demoConfiguration } from './demo-config.ts';
import {
  imagePaths,
  installImage,
  runBoothook,
  runLauncher,
  writeHostname,
  writeStandInProvisionScripts,
  type LauncherOutcome,
  type StandInOptions,
} from './node-image.ts';
import { buildAgent, buildHotfixPackages, prepareAptRoot, publishHotfixIndex, startAptRepo, type HotfixPackages } from './repos.ts';
import { buildTypicalFix } from './typical-fix.ts';

export const BAKED_VERSION = '202604.01.0';
export const HOTFIX_VERSION = '202604.01.1';
const EVENTS_DIR = 'var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';

export interface BootStep {
  name: string;
  atMs: number;
  durationMs: number;
  outcome: string;
}

export interface BootResult {
  root: string;
  steps: BootStep[];
  launcher: LauncherOutcome;
  provisionWait: RunOutcome;
  events: Array<Record<string, string>>;
  stagedPointer: string;
  hotfixVersion: string;
  logFile: string;
  eventsDir: string;
  cleanup(): void;
  /** With `keepServers`: the running servers, a kubeconfig that may write ConfigMaps, and how to stop them. */
  servers?: { apiserver: string; kubeconfig: string; repository: string; close(): Promise<void> };
}

function eventsOf(root: string): Array<Record<string, string>> {
  const dir = join(root, EVENTS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1))
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')));
}

/** Duration and outcome of an agent step, read back from its guest-agent event (spec 3). */
function fromEvent(events: Array<Record<string, string>>, task: string, t0: number): BootStep | undefined {
  const matching = events.filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`);
  const last = matching[matching.length - 1];
  if (!last) return undefined;
  const first = matching[0]!;
  const start = Date.parse(first.Timestamp!.replace(' ', 'T') + 'Z');
  const end = Date.parse(last.OperationId!.replace(' ', 'T') + 'Z');
  const message = last.Message!.split(' | ')[0]!;
  return { name: task, atMs: start - t0, durationMs: end - start, outcome: `${last.EventLevel}: ${message}` };
}

const kb = (bytes: number) => (bytes < 1e6 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1e6).toFixed(1)} MB`);

export interface BootOptions {
  workDir?: string;
  onStep?: (step: BootStep) => void;
  /** A baked agent built earlier (skips that build). */
  bakedBin?: string;
  /** The hotfix packages the repository serves (default: the agent built at HOTFIX_VERSION). */
  hotfixPackages?: HotfixPackages;
  /** The pointer document the ConfigMap serves (default: the map {"202604.01": HOTFIX_VERSION}). */
  pointer?: Record<string, unknown>;
  /** The VM's SMBIOS product UUID, written to <root>/sys/class/dmi/id/product_uuid. */
  productUuid?: string;
  /** More build.mjs arguments for the default hotfix build (--scripts DIR: a script fix). */
  hotfixBuildArgs?: string[];
  /** The image's stand-in provisioning script (a buggy one for the script-hotfix demo). */
  standIn?: StandInOptions;
  /** Changes the image root after its set-up, before the boot (a symlinked script, an immutable file). */
  prepareRoot?: (root: string) => void;
  /** Publish the hotfix index beside the repository (docs/hotfix.md), as a release engineer does. */
  hotfixIndex?: boolean;
  /** Serve these .deb packages (a release engineer's own) instead of building a hotfix. */
  debs?: string[];
  /** The ConfigMap's data as given (a pointer file, or a rendered/signed ConfigMap's data), over `pointer`. */
  configMapData?: Record<string, string>;
  /** Leave the apiserver stand-in and the repository running (the caller closes them): `demo --keep`. */
  keepServers?: boolean;
}

export async function sandboxedFirstBoot(options: BootOptions = {}): Promise<BootResult> {
  const work = options.workDir ?? mkdtempSync(join(tmpdir(), 'anc-boot-work-'));
  const root = mkdtempSync(join(tmpdir(), 'anc-boot-root-'));
  const steps: BootStep[] = [];
  const t0 = Date.now();
  const step = async <T>(name: string, body: () => Promise<T> | T, outcome: (value: T) => string): Promise<T> => {
    const started = Date.now();
    const value = await body();
    const s = { name, atMs: started - t0, durationMs: Date.now() - started, outcome: outcome(value) };
    steps.push(s);
    options.onStep?.(s);
    return value;
  };
  const closers: Array<() => Promise<void>> = [];
  let repoUrl = '';
  try {
    const baked = await step(
      `build the image's agent ${BAKED_VERSION}`,
      () => options.bakedBin ?? buildAgent(BAKED_VERSION, join(work, 'baked')),
      (p) => p,
    );
    // By default the hotfix is a typical fix of the baked agent, served with its delta package.
    const given = options.debs;
    const packages = await step(
      given ? `take the given packages (${given.length})` : `build hotfix ${HOTFIX_VERSION} + its delta packages`,
      () =>
        (given
          ? ({
              version: '',
              bin: '',
              deb: given[0]!,
              rpm: '',
              built: given.map((file) => ({ file, format: 'deb', size: statSync(file).size })),
            } as unknown as HotfixPackages)
          : undefined) ??
        options.hotfixPackages ??
        buildHotfixPackages(HOTFIX_VERSION, join(work, 'hotfix'), {
          bin: buildTypicalFix(HOTFIX_VERSION, join(work, 'fix'), options.hotfixBuildArgs),
          deltaFrom: [baked],
        }),
      (p) =>
        p.built
          .filter((b) => b.format === 'deb')
          .map((b) => `${b.file.split('/').pop()} ${kb(b.size)}`)
          .join(', '),
    );
    const pointer = options.pointer ?? { hotfixes: { '202604.01': HOTFIX_VERSION } };
    await step(
      'install the image (vhd/install.sh)',
      () => {
        installImage(root, baked);
        writeHostname(root);
        writeStandInProvisionScripts(root, { sleepSeconds: 1, ...options.standIn });
        if (options.productUuid !== undefined) {
          mkdirSync(join(root, 'sys/class/dmi/id'), { recursive: true });
          writeFileSync(join(root, 'sys/class/dmi/id/product_uuid'), `${options.productUuid}\n`, { mode: 0o400 });
        }
      },
      () => imagePaths(root).launcher,
    );
    const api = await step(
      'start the apiserver stand-in (HTTPS, test CA)',
      async () => {
        const server = await startFakeApiServer({
          configMaps: { 'kube-system/anc-hotfix-version': options.configMapData ?? { 'hotfixes.json': JSON.stringify(pointer) } },
          tokens: {
            [DEFAULT_TOKEN]: { user: 'system:bootstrap:abcdef', canRead: true },
            [PUBLISHER_TOKEN]: { user: 'publisher', canRead: true, canWrite: true },
          },
        });
        closers.push(() => server.close());
        mkdirSync(join(root, 'etc/kubernetes/certs'), { recursive: true });
        writeFileSync(join(root, 'etc/kubernetes/certs/ca.crt'), server.pki.ca.cert);
        return server;
      },
      (s) =>
        `${s.url} serves kube-system/anc-hotfix-version ${options.configMapData ? `(given: ${Object.keys(options.configMapData).join(', ')})` : JSON.stringify(pointer)}`,
    );
    await step(
      'serve the package repository on loopback',
      async () => {
        const debs = given ?? [packages.deb, ...(packages.delta ? [packages.delta.deb] : [])];
        const repo = await startAptRepo(join(work, 'apt-repo'), debs);
        closers.push(() => repo.close());
        if (options.hotfixIndex) publishHotfixIndex(repo, 'apt');
        prepareAptRoot(root, repo);
        repoUrl = repo.url;
        return repo;
      },
      (r) =>
        `${r.url} (signed apt repo${options.hotfixIndex ? ' + hotfix index' : ''}) holds ${given ? given.map((d) => d.split('/').pop()).join(', ') : `aks-node-controller{,-delta} ${HOTFIX_VERSION}`}`,
    );
    options.prepareRoot?.(root);
    await step(
      'custom data: boothook writes the configuration',
      async () => {
        const configFile = join(work, 'node-config.json');
        writeFileSync(configFile, JSON.stringify(demoConfiguration(api.address, DEFAULT_TOKEN), null, 2));
        // The control plane renders custom data on its own machine: a separate sandbox root for that run.
        const producerRoot = mkdtempSync(join(work, 'producer-root-'));
        const rendered = await runAnc(['custom-data', '--raw', configFile], { root: producerRoot, bin: baked });
        if (rendered.exitCode !== 0) throw new Error(`custom-data failed: ${rendered.stderr}`);
        const boothook = runBoothook(root, rendered.stdout);
        if (boothook.exitCode !== 0) throw new Error(`boothook failed: ${boothook.stderr}`);
        return boothook;
      },
      (b) => `config + enabled_features.sh written; systemctl ${b.systemctl.join('; ')}`,
    );
    // provision-wait starts first and runs beside the launcher, as the CustomScript extension does.
    const waitStarted = Date.now();
    const waiting = runAnc(['provision-wait', '--timeout', '120'], { root, bin: baked, timeoutMs: 150_000 });
    const launcher = await step(
      'launcher (aks-node-controller.service)',
      () => runLauncher(root, {}, 150_000),
      (l) => `exit ${l.exitCode}`,
    );
    const provisionWait = await waiting;
    const waitStep = {
      name: 'provision-wait (beside it, as the extension)',
      atMs: waitStarted - t0,
      durationMs: provisionWait.durationMs,
      outcome: `exit ${provisionWait.exitCode}`,
    };
    steps.push(waitStep);
    options.onStep?.(waitStep);
    const events = eventsOf(root);
    for (const task of ['CheckHotfix', 'DownloadHotfix', 'HotfixFallback', 'ScriptHotfix', 'Provision']) {
      const s = fromEvent(events, task, t0);
      if (s) {
        steps.push(s);
        options.onStep?.(s);
      }
    }
    const paths = imagePaths(root);
    const hotfixRun = existsSync(paths.hotfixBinary)
      ? spawnSync(paths.hotfixBinary, ['version'], {
          env: { PATH: process.env.PATH ?? '', AKS_NODE_ROOT: root },
          encoding: 'utf8',
        }).stdout.trim()
      : '';
    let servers: BootResult['servers'];
    if (options.keepServers) {
      const kubeconfig = join(root, 'demo-publisher.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(api, { token: PUBLISHER_TOKEN }), { mode: 0o600 });
      const running = closers.splice(0);
      servers = {
        apiserver: api.url,
        kubeconfig,
        repository: repoUrl,
        close: async () => {
          for (const close of running) await close();
          if (!options.workDir) rmSync(work, { recursive: true, force: true });
        },
      };
    }
    return {
      root,
      steps,
      ...(servers ? { servers } : {}),
      launcher,
      provisionWait,
      events,
      stagedPointer: existsSync(paths.hotfixPointer) ? readFileSync(paths.hotfixPointer, 'utf8') : '',
      hotfixVersion: hotfixRun,
      logFile: join(root, 'var/log/azure/aks-node-controller.log'),
      eventsDir: join(root, EVENTS_DIR),
      cleanup: () => rmSync(root, { recursive: true, force: true }),
    };
  } finally {
    for (const close of closers) await close();
    // The builds and the repository are only inputs; the sandbox root is what people look at.
    // (The servers kept up for `demo --keep` still serve from it: their close removes it.)
    if (!options.workDir && (!options.keepServers || closers.length > 0)) rmSync(work, { recursive: true, force: true });
  }
}

// Shared setup for the check-hotfix e2e tests: a sandboxed node (node config, cluster CA, kubeconfigs,
// an existing pointer file) in front of the apiserver stand-in, and one run of the compiled binary with
// everything it printed or wrote collected (for the D14 secret grep).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN, type FakeApiServer } from '../../fakes/apiserver.ts';
import { makeTestPki } from '../../fakes/apiserver-pki.ts';
import { BIN, baseEnv, makeSandbox, type RunOutcome, type Sandbox } from '../harness.ts';

export const POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
export const NODE_CONFIG = '/opt/azure/containers/aks-node-controller-config.json';
export const CLUSTER_CA = '/etc/kubernetes/certs/ca.crt';
export const BOOTSTRAP_KUBECONFIG = '/var/lib/kubelet/bootstrap-kubeconfig';
export const KUBECONFIG = '/var/lib/kubelet/kubeconfig';
export const LOG = '/var/log/azure/aks-node-controller.log';
/** The pointer a node already has (cloud-init wrote it); success replaces only `hotfixes`. */
export const EXISTING_POINTER = '{"version":"202401.01.1","scripts_version":"s-1","hotfixes":{"202401.01":"202401.01.1"}}';

/** The binary's own version and base: served maps are built around them, whatever the build date. */
export const ANC_VERSION = (() => {
  const sb = makeSandbox('anc-ver-');
  const out = spawnSync(BIN, ['--version'], { encoding: 'utf8', env: baseEnv(sb.root) });
  sb.cleanup();
  const match = /(\d{6}\.\d{2})\.(\d+)/.exec(out.stdout ?? '');
  if (!match) throw new Error(`cannot read the version of ${BIN}: ${out.stdout}${out.stderr}`);
  return { full: `${match[1]}.${match[2]}`, base: match[1]!, target: `${match[1]}.${Number(match[2]) + 1}` };
})();

/** Everything every run printed or wrote, for the final secret grep (D14). */
export const TRANSCRIPT: string[] = [];

/** Secrets that must never appear in any output. */
export function secretMarkers(): string[] {
  const pki = makeTestPki();
  const keyBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----'));
  return [
    DEFAULT_TOKEN,
    DEFAULT_TOKEN.split('.')[1]!,
    'wrongtoken.0000000000000000',
    'noaccess.1111111111111111',
    ...keyBody(pki.client.key),
    Buffer.from(pki.client.key).toString('base64').slice(0, 40),
  ];
}

export interface NodeSetup {
  /** apiServerName in the node config (omit for no node config at all). */
  server?: string;
  token?: string;
  /** Extra top-level keys of the node config (the cold-start `hotfixes`). */
  extra?: Record<string, unknown>;
  /** The cluster CA file: PEM text, or null for none. Default: the test CA. */
  ca?: string | null;
  /** Existing pointer file content (null = none). Default EXISTING_POINTER. */
  pointer?: string | null;
  pointerMode?: number;
  bootstrapKubeconfig?: string;
  kubeconfig?: string;
}

const SANDBOXES: Sandbox[] = [];
process.on('exit', () => {
  for (const sb of SANDBOXES) sb.cleanup();
});

export function prepareNode(setup: NodeSetup): Sandbox {
  const sb = makeSandbox('anc-check-');
  SANDBOXES.push(sb);
  const pki = makeTestPki();
  if (setup.server !== undefined) {
    const config = {
      version: 'v1',
      apiServerConfig: { apiServerName: setup.server },
      bootstrappingConfig: { tlsBootstrappingToken: setup.token ?? DEFAULT_TOKEN },
      ...(setup.extra ?? {}),
    };
    sb.write(NODE_CONFIG, JSON.stringify(config), 0o600);
  }
  const ca = setup.ca === undefined ? pki.ca.cert : setup.ca;
  if (ca !== null) sb.write(CLUSTER_CA, ca);
  const pointer = setup.pointer === undefined ? EXISTING_POINTER : setup.pointer;
  if (pointer !== null) {
    sb.write(POINTER, pointer, setup.pointerMode ?? 0o644);
    chmodSync(sb.path(POINTER), setup.pointerMode ?? 0o644);
  }
  if (setup.bootstrapKubeconfig) sb.write(BOOTSTRAP_KUBECONFIG, setup.bootstrapKubeconfig, 0o600);
  if (setup.kubeconfig) sb.write(KUBECONFIG, setup.kubeconfig, 0o600);
  return sb;
}

export function nodeFor(api: FakeApiServer, setup: NodeSetup = {}): Sandbox {
  return prepareNode({ server: api.address, ...setup });
}

export interface CheckRun extends RunOutcome {
  sb: Sandbox;
  events: Array<Record<string, string>>;
  outcome: string;
  error: string;
  /** The pointer file afterwards (null when absent). */
  pointer: string | null;
}

export interface RunCheckOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Run as this uid/gid (root would ignore permission bits). */
  uid?: number;
  /** Another build of the agent (default: ANC_BIN). */
  bin?: string;
}

function copyForUser(bin: string, dir: string, uid: number): string {
  const copy = join(dir, '.unprivileged-aks-node-controller');
  copyFileSync(bin, copy);
  chmodSync(copy, 0o755);
  chownSync(copy, uid, uid);
  return copy;
}

function spawnAnc(args: string[], env: Record<string, string>, cwd: string, uid?: number, agent = BIN): Promise<RunOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const ids = uid === undefined ? {} : { uid, gid: uid };
    // An unprivileged run cannot reach a binary below a private (0700) checkout: give it its own copy.
    const bin = uid === undefined ? agent : copyForUser(agent, cwd, uid);
    const child = spawn(bin, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], ...ids });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ exitCode, signal, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

export async function runCheck(sb: Sandbox, options: RunCheckOptions = {}): Promise<CheckRun> {
  const env = { ...baseEnv(sb.root), ...(options.env ?? {}) };
  const run = await spawnAnc(['check-hotfix', ...(options.args ?? [])], env, sb.root, options.uid, options.bin);
  const events = sb.events();
  const message = events[0]?.Message ?? '';
  const outcome = /outcome=(\w+)/.exec(message)?.[1] ?? '';
  const error = / error=(.*) \| startTime=/.exec(message)?.[1] ?? '';
  const pointerPath = sb.path(POINTER);
  const pointer = existsSync(pointerPath) && statSync(pointerPath).isFile() ? readFileSync(pointerPath, 'utf8') : null;
  TRANSCRIPT.push(run.stdout, run.stderr, ...events.map((e) => JSON.stringify(e)));
  if (existsSync(sb.path(LOG))) TRANSCRIPT.push(readFileSync(sb.path(LOG), 'utf8'));
  return { ...run, sb, events, outcome, error, pointer };
}

/** The invariants of every run: exit 0, within the 12 s bound, one CheckHotfix event at the right level. */
export function assertRun(run: CheckRun, outcome: string): void {
  assert.is(run.exitCode, 0, `exit code (stderr: ${run.stderr})`);
  assert.ok(run.durationMs < 12_000, `took ${run.durationMs} ms`);
  assert.is(run.events.length, 1, 'exactly one event');
  assert.is(run.events[0]!.TaskName, 'AKS.AKSNodeController.CheckHotfix');
  assert.is(run.outcome, outcome, `outcome (event: ${run.events[0]!.Message})`);
  // Failures and pointer-signing rejections are errors; a read, a miss or a cold start are not.
  assert.is(
    run.events[0]!.EventLevel,
    ['configMapRead', 'noHotfixForBase', 'customDataFallback'].includes(outcome) ? 'Informational' : 'Error',
  );
  const dir = run.sb.path('/opt/azure/containers');
  const temps = (existsSync(dir) ? readdirSync(dir) : []).filter((n) => n.startsWith('.aks-node-controller-hotfix-'));
  assert.equal(temps, [], 'no temp file left behind');
}

/** Expected pointer after a successful stage over EXISTING_POINTER. */
export function mergedPointer(hotfixes: Record<string, string>, version = '202401.01.1'): string {
  const entries = Object.keys(hotfixes)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(hotfixes[k])}`);
  return `{"version":${JSON.stringify(version)},"scripts_version":"s-1","hotfixes":{${entries.join(',')}}}`;
}

/** Gives the whole sandbox to `uid` so an unprivileged run can log and write where a node could. */
export function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

export const SERVED = () => ({
  'hotfixes.json': JSON.stringify({ hotfixes: { [ANC_VERSION.base]: ANC_VERSION.target, '202401.01': '202401.01.2' } }),
});
export const CM_KEY = 'kube-system/anc-hotfix-version';

/** D14: registers a final test that greps everything this file's runs printed or wrote for the secrets. */
export function registerSecretGrep(t: (name: string, fn: () => void) => void): void {
  t('D14: no token, key or kubeconfig secret in any stdout, stderr, log line or event', () => {
    assert.ok(TRANSCRIPT.length > 0, 'runs were recorded');
    const all = TRANSCRIPT.join('\n');
    for (const marker of secretMarkers()) assert.not.ok(all.includes(marker), `a secret leaked: ${marker.slice(0, 6)}...`);
  });
}

// A node image in a temp directory, for tests and the boot demo: install the agent the way an image build
// does (vhd/install.sh), put stand-ins for the provisioning scripts next to it, run the launcher with the
// sandbox root, and a fake agent binary that records how the launcher called it.
//
//   const root = mkdtempSync(...);
//   installImage(root, 'dist/aks-node-controller');          // binary + launcher + unit (enabled)
//   writeStandInProvisionScripts(root);                       // provision_start.sh like cse_start.sh
//   writeHostname(root);                                      // so the launcher's hostname wait passes
//   runBoothook(root, mimeDocument);                          // what cloud-init does with custom data
//   const out = await runLauncher(root);                      // = what the unit's ExecStart does
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO = resolve(dirname(new URL(import.meta.url).pathname), '../..');
export const VHD_DIR = join(REPO, 'vhd');
export const LAUNCHER = join(VHD_DIR, 'aks-node-controller-launcher.sh');
export const UNIT = join(VHD_DIR, 'aks-node-controller.service');
export const INSTALL = join(VHD_DIR, 'install.sh');

/** On-node locations inside an image root. */
export function imagePaths(root: string) {
  const c = join(root, 'opt/azure/containers');
  return {
    binary: join(c, 'aks-node-controller'),
    hotfixBinary: join(c, 'aks-node-controller-hotfix'),
    hotfixPointer: join(c, 'aks-node-controller-hotfix.json'),
    hotfixRecord: join(c, 'aks-node-controller-hotfix.version.json'),
    launcher: join(c, 'aks-node-controller-launcher.sh'),
    config: join(c, 'aks-node-controller-config.json'),
    nbcCmd: join(c, 'aks-node-controller-nbc-cmd.sh'),
    features: join(c, 'enabled_features.sh'),
    provisionStart: join(c, 'provision_start.sh'),
    components: join(root, 'opt/azure/components.json'),
    provisionComplete: join(c, 'provision.complete'),
    provisionJson: join(root, 'var/log/azure/aks/provision.json'),
    standInEnvNames: join(root, 'var/log/azure/stand-in-env-names.txt'),
    unit: join(root, 'etc/systemd/system/aks-node-controller.service'),
    unitWants: join(root, 'etc/systemd/system/basic.target.wants/aks-node-controller.service'),
    hostnameFile: join(root, 'etc/hostname'),
  };
}

function writeExecutable(path: string, text: string, mode = 0o755): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/**
 * Stages `bin` as the hotfix the way download-hotfix's promotion leaves it (issue 41 R4-7): the binary and
 * the record of its version beside it, naming the file's identity (what switch/staged-record.ts checks).
 */
export function stageHotfix(root: string, bin: string, version: string): void {
  const p = imagePaths(root);
  copyFileSync(bin, p.hotfixBinary);
  chmodSync(p.hotfixBinary, 0o755);
  const s = lstatSync(p.hotfixBinary, { bigint: true });
  const record = { version, file: `${s.dev}:${s.ino}`, content: `${s.size}:${s.mode}:${s.mtimeNs}`, promotedAt: new Date().toISOString() };
  writeFileSync(p.hotfixRecord, `${JSON.stringify(record)}\n`);
}

/** Runs vhd/install.sh <root> <binary>; throws with its output when it fails. */
export function installImage(root: string, binPath: string): void {
  const r = spawnSync('bash', [INSTALL, root, binPath], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`install.sh failed (${r.status}): ${r.stdout}${r.stderr}`);
}

/** /etc/hostname with the machine's hostname, so the launcher does not wait for cloud-init. */
export function writeHostname(root: string, name = hostname()): void {
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/hostname'), `${name}\n`);
}

export interface StandInOptions {
  /** Exit code the stand-in provisioning reports and exits with (default 0). */
  exitCode?: number;
  /** Seconds to sleep before finishing (lets provision-wait be seen waiting). */
  sleepSeconds?: number;
  /** A line the script logs before finishing (a bug's message, a fix's note). */
  note?: string;
}

/** The stand-in provision_start.sh text (a script hotfix payload carries a fixed one). */
export function standInProvisionScript(options: StandInOptions = {}): string {
  const note = options.note ? `echo ${JSON.stringify(options.note)} | tee -a "$ROOT/var/log/azure/cluster-provision.log"\n` : '';
  return `#!/bin/bash
# Stand-in for cse_start.sh (reference 4.5): status files only, no real provisioning.
ROOT="\${AKS_NODE_ROOT:-}"
EXIT_CODE=${options.exitCode ?? 0}
START=$(date +%s%N)
mkdir -p "$ROOT/var/log/azure/aks"
env | cut -d= -f1 | sort > "$ROOT/var/log/azure/stand-in-env-names.txt"
echo "stand-in provisioning on $(hostname) at $(date -u +%FT%TZ)" >> "$ROOT/var/log/azure/cluster-provision.log"
${note}sleep ${options.sleepSeconds ?? 0}
OUTPUT=$(tail -c 3000 "$ROOT/var/log/azure/cluster-provision.log" | tr -d '"\\\\' | tr '\\n' ' ')
DURATION=$(( ($(date +%s%N) - START) / 1000000000 ))
printf '{"ExitCode":"%s","Output":"%s","Error":"","ExecDuration":"%s","KernelStartTime":"","CloudInitLocalStartTime":"","CloudInitStartTime":"","CloudFinalStartTime":"","NetworkdStartTime":"","CSEStartTime":"%s","GuestAgentStartTime":"","SystemdSummary":"","BootDatapoints":{"KernelStartTime":"","CSEStartTime":"","GuestAgentStartTime":"","KubeletStartTime":""}}\\n' \\
  "$EXIT_CODE" "$OUTPUT" "$DURATION" "$(date -u +%FT%TZ)" | tee "$ROOT/var/log/azure/aks/provision.json"
touch "$ROOT/opt/azure/containers/provision.complete"
exit "$EXIT_CODE"
`;
}

/**
 * provision_start.sh (and empty sourced helpers) standing in for cse_start.sh: logs to
 * cluster-provision.log, writes provision.json (all values strings, like the real jq output), touches
 * provision.complete and exits with the code. Paths follow AKS_NODE_ROOT, which the agent passes on.
 * The names (never the values: they include secrets) of the variables it got go to stand-in-env-names.txt.
 */
export function writeStandInProvisionScripts(root: string, options: StandInOptions = {}): void {
  const p = imagePaths(root);
  for (const name of [
    'provision_source.sh',
    'provision_source_distro.sh',
    'provision_installs.sh',
    'provision_installs_distro.sh',
    'provision_configs.sh',
  ]) {
    writeExecutable(join(dirname(p.provisionStart), name), '#!/bin/bash\n# stand-in: nothing to source\n', 0o644);
  }
  const script = standInProvisionScript(options);
  writeExecutable(p.provisionStart, script);
  // provision reads the image's GPU driver metadata first (config-contract 3.3.8); an empty one is valid.
  if (!existsSync(p.components)) writeFileSync(p.components, '{}\n');
}

export interface FakeAgentOptions {
  /** Exit code per subcommand (default 0). */
  exitCodes?: Partial<Record<'check-hotfix' | 'download-hotfix' | 'provision' | 'hotfix', number>>;
  /** download-hotfix copies the fake itself to this path (0755), like staging a hotfix binary. */
  stageHotfixTo?: string;
  /** Text in every recorded call, to tell a hotfix copy from the baked binary. */
  label?: string;
  /** Shell run for `provision` instead of `exit <code>` (write the scripts-started marker, kill itself). */
  provisionScript?: string;
}

/** A shell script standing in for the agent: each call records argv, $0 and env in recordDir/<n>.json. */
export function writeFakeAgent(path: string, recordDir: string, options: FakeAgentOptions = {}): string {
  mkdirSync(recordDir, { recursive: true });
  const code = (c: string) => options.exitCodes?.[c as 'provision'] ?? 0;
  const script = `#!/bin/bash
REC=${JSON.stringify(recordDir)}
# The launcher's hotfix floor check asks for the version; it is not a call the tests count.
[[ "\${1:-}" == version ]] && { echo 202604.01.1; exit 0; }
N=$(find "$REC" -name '*.argv' | wc -l)
N=$(printf '%03d' "$N")
{ printf '%s\\n' "${options.label ?? 'agent'}" "$0"; printf '%s\\n' "$@"; } > "$REC/$N.argv"
env -0 > "$REC/$N.env"
case "\${1:-}" in
  check-hotfix) exit ${code('check-hotfix')} ;;
  download-hotfix)
    ${options.stageHotfixTo ? `cp "$0" ${JSON.stringify(options.stageHotfixTo)} && chmod 0755 ${JSON.stringify(options.stageHotfixTo)}` : ':'}
    exit ${code('download-hotfix')} ;;
  provision) ${options.provisionScript ?? `exit ${code('provision')}`} ;;
  hotfix) exit ${code('hotfix')} ;;
esac
exit 99
`;
  return writeExecutable(path, script);
}

export interface RecordedCall {
  label: string;
  program: string;
  args: string[];
  env: Record<string, string>;
}

/** The fake agent's calls, in order. */
export function recordedCalls(recordDir: string): RecordedCall[] {
  if (!existsSync(recordDir)) return [];
  const names = readdirSync(recordDir)
    .filter((n) => n.endsWith('.argv'))
    .sort();
  return names.map((n) => {
    const [label = '', program = '', ...args] = readFileSync(join(recordDir, n), 'utf8').replace(/\n$/, '').split('\n');
    const env: Record<string, string> = {};
    for (const entry of readFileSync(join(recordDir, n.replace('.argv', '.env')), 'utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return { label, program, args, env };
  });
}

export interface LauncherOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs the launcher (the installed one when present, else vhd/) with AKS_NODE_ROOT=root and a small env. */
export function runLauncher(root: string, env: Record<string, string | undefined> = {}, timeoutMs = 60_000): Promise<LauncherOutcome> {
  const installed = imagePaths(root).launcher;
  const script = existsSync(installed) ? installed : LAUNCHER;
  const full: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    AKS_NODE_ROOT: root,
    LOGGER_CMD: 'true',
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete full[k];
    else full[k] = v;
  }
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn('bash', [script], { env: full, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      done({ exitCode, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

/** The part bodies of a decoded MIME custom-data document, by content type. */
export function mimeParts(doc: string): Map<string, string> {
  const boundary = /boundary="([^"]+)"/.exec(doc)?.[1];
  if (!boundary) throw new Error('not a MIME multipart document');
  const parts = new Map<string, string>();
  for (const chunk of doc.split(`--${boundary}`).slice(1, -1)) {
    const body = chunk.replace(/^\r\n/, '').replace(/\r\n$/, '');
    const split = body.indexOf('\r\n\r\n');
    const type = /Content-Type: ([^\r]+)/.exec(body.slice(0, split))?.[1] ?? '';
    parts.set(type, body.slice(split + 4));
  }
  return parts;
}

export interface BoothookOutcome {
  exitCode: number | null;
  stderr: string;
  /** Arguments of each `systemctl` call the boothook made (a recording stand-in). */
  systemctl: string[];
}

/**
 * Runs the boothook of decoded MIME custom data (`custom-data --raw`) the way cloud-init would, with
 * /opt/azure and /var/log/azure moved under `root`, and recording stand-ins for systemctl and logger.
 */
export function runBoothook(root: string, mimeDocument: string): BoothookOutcome {
  const script = mimeParts(mimeDocument).get('text/cloud-boothook');
  if (script === undefined) throw new Error('no text/cloud-boothook part');
  const bin = join(root, '.boothook-bin');
  const calls = join(bin, 'systemctl-calls.txt');
  writeExecutable(join(bin, 'systemctl'), `#!/bin/bash\necho "$*" >> ${JSON.stringify(calls)}\n`);
  writeExecutable(join(bin, 'logger'), '#!/bin/bash\nexit 0\n');
  const moved = script.replace(/(^|[\s>])\/(opt\/azure|var\/log\/azure)/g, `$1${root}/$2`);
  const r = spawnSync('bash', ['-c', moved], { encoding: 'utf8', env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  const recorded = existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean) : [];
  return { exitCode: r.status, stderr: r.stderr, systemctl: recorded };
}

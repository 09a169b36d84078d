// A node in a real VM (issue "a first boot in a real VM"): the image of vhd/vm/build-image.sh with the
// baked agent at 202604.01.0 and the image's buggy provisioning scripts, the stand-ins on the host's
// loopback (apiserver with the hotfix pointer, signed apt repository with the hotfix and its delta), our
// own custom data in a NoCloud seed, and a boot under qemu (vhd/vm/qemu.ts). Inside the guest, test-only
// units stand in for Azure: anc-vm-extension.service runs `provision-wait` as the CustomScript extension
// does; anc-vm-report.service copies the boot's results to the 9p share, prints a marker line on the
// serial console and powers off; anc-vm-pause.service (kernel switch anc_vm.pause=NAME) stops the agent
// at a chosen moment for the power-cut tests (test/fakes/vm-pause.c; host-architecture images only: it is
// compiled by the host's cc). An arm64 image is built on any host: its agents come from `build.mjs --all`.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import {
  accelerator,
  createOverlay,
  type GuestForward,
  HOST_ARCH,
  startVm,
  type Vm,
  type VmArch,
  type VmImage,
  writeSeed,
} from '../../vhd/vm/qemu.ts';
import { DEFAULT_TOKEN, startFakeApiServer, type FakeApiServer } from './apiserver.ts';
import { BAKED_VERSION } from './boot.ts';
import { demoConfiguration } from './demo-config.ts';
import { standInProvisionScript } from './node-image.ts';
import { buildAgent, publishHotfixIndex, startAptRepo, type HotfixPackages, type ServedRepo } from './repos.ts';
import type { SigningKey } from './repo-index.ts';
import { BUG } from './script-fix.ts';
import { buildTypicalFix } from './typical-fix.ts';

export const REPO_ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
/** Git-ignored: the Debian base, the image, the repository key, the nodes' disks. */
export const VM_DIR = join(REPO_ROOT, '.vm');
/** Where the guest finds the stand-ins (qemu forwards each to a loopback port on the host). */
export const GUEST_API = { address: '10.0.2.100', port: 443 };
export const GUEST_REPO = { address: '10.0.2.101', port: 80 };
const CONTAINERS = '/opt/azure/containers';

// ---- the image ----

/** The repository signing key the image trusts (its public half is baked in, as a VHD bakes Microsoft's). */
export function imageRepoKey(dir = join(VM_DIR, 'repo-key')): SigningKey {
  const home = join(dir, 'gnupg');
  const env = { ...process.env, GNUPGHOME: home };
  const gpg = (args: string[]) => execFileSync('gpg', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keyring = join(dir, 'repo.gpg');
  const armored = join(dir, 'repo.asc');
  if (!existsSync(keyring)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(home, { recursive: true, mode: 0o700 });
    gpg(['--batch', '--passphrase', '', '--quick-gen-key', 'anc-vm repository <repo@example.invalid>', 'rsa2048', 'sign', '3y']);
    writeFileSync(armored, gpg(['--armor', '--export']));
    writeFileSync(keyring, gpg(['--export']));
  }
  return {
    home,
    keyring,
    armored,
    clearsign: (input, output) => void gpg(['--batch', '--yes', '--digest-algo', 'SHA256', '--clearsign', '-o', output, input]),
    detachSign: (input, output) => void gpg(['--batch', '--yes', '--armor', '--detach-sign', '-o', output, input]),
    // Kept for the next run: the image trusts this key.
    close: () => {},
  };
}

function put(root: string, path: string, text: string | Buffer, mode = 0o644): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  chmodSync(full, mode);
}

function enable(root: string, unit: string, target: string): void {
  const link = join(root, 'etc/systemd/system', `${target}.wants`, unit);
  mkdirSync(dirname(link), { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(`/etc/systemd/system/${unit}`, link);
}

/** The guest's side of the tests: what it reports after each boot, read by readReport(). */
const REPORT_SCRIPT = `#!/bin/bash
# anc-vm-report (test VM only): copies this boot's results to the host's 9p share, says so on the serial
# console, powers off. anc_vm.boot=N on the kernel command line names the boot.
set -u
arg() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
N="$(arg anc_vm.boot)"; N="\${N:-0}"
mkdir -p /mnt/anc-vm
mountpoint -q /mnt/anc-vm || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 anc-vm /mnt/anc-vm
# The serial console the host reads: ttyS0 on amd64, ttyAMA0 on arm64 (the kernel's console=).
TTY="/dev/$(arg console)"
OUT="/mnt/anc-vm/boot-$N"
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || { echo "ANC-VM report-failed boot=$N" >"$TTY"; systemctl poweroff --no-block; exit 1; }
C=${CONTAINERS}
systemctl show aks-node-controller.service -p ExecMainStatus -p ActiveState -p Result -p ConditionResult -p ExecMainStartTimestampMonotonic -p ExecMainExitTimestampMonotonic >launcher-unit.txt
systemctl show cloud-final.service -p ActiveEnterTimestampMonotonic -p Result >cloud-final.txt
systemctl show anc-vm-extension.service -p ExecMainStatus -p Result >extension-unit.txt
journalctl -b -o cat -u aks-node-controller.service --no-pager >launcher.txt 2>&1
journalctl -o short-monotonic -t aks-boothook --no-pager >boothook.txt 2>&1
journalctl --list-boots --no-pager >boots.txt 2>&1
cp /var/log/anc-vm/provision-wait.out provision-wait.txt 2>/dev/null
aks-node-controller status >status.txt 2>&1; echo $? >status.exit
aks-node-controller status -o json >status.json 2>/dev/null
cloud-init status --long >cloud-init-status.txt 2>&1
cp -a /var/log/azure azure-logs 2>/dev/null
ls -la "$C" >containers.txt
(cd "$C" && sha256sum provision_start.sh provision_source.sh) >scripts.sha256
for f in aks-node-controller-hotfix.json aks-node-controller-hotfix-quarantine.json; do cp "$C/$f" . 2>/dev/null; done
cp -a "$C/aks-node-controller-script-hotfix" script-hotfix 2>/dev/null
[ -x "$C/aks-node-controller-hotfix" ] && "$C/aks-node-controller-hotfix" version >hotfix-version.txt 2>&1
aks-node-controller version >baked-version.txt 2>&1
hostname >hostname.txt
{ uname -m; getconf PAGESIZE; } >machine.txt
# The network rule: only the guestfwd addresses answer; the gateway (the host itself) and anything else do not.
if [ -n "$(arg anc_vm.probe)" ]; then
  probe() { if timeout 4 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then echo "$1:$2 open"; else echo "$1:$2 closed"; fi; }
  { probe ${GUEST_API.address} ${GUEST_API.port}; probe ${GUEST_REPO.address} ${GUEST_REPO.port}
    for p in $(arg anc_vm.probe | tr , ' '); do probe 10.0.2.2 "$p"; done
    probe 10.0.2.3 53; probe 192.0.2.1 80; } >network.txt
fi
cat /proc/uptime >uptime.txt
sync
printf '\\nANC-VM report-done boot=%s\\n' "$N" >"$TTY"
systemctl poweroff --no-block
`;

const REPORT_UNIT = `[Unit]
Description=anc-vm: this boot's results for the host (test VM only)
After=aks-node-controller.service anc-vm-extension.service cloud-final.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/anc-vm-report

[Install]
WantedBy=cloud-init.target
`;

// What the CustomScript extension runs on Azure; here at every boot, its output kept per boot.
const EXTENSION_UNIT = `[Unit]
Description=anc-vm: stands in for the CustomScript extension (provision-wait)
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
# Its stdout is the extension's status (systemd opens StandardOutput= files before it creates directories).
ExecStart=/bin/sh -c 'mkdir -p /var/log/anc-vm && exec /opt/azure/containers/aks-node-controller provision-wait --timeout 1500 >/var/log/anc-vm/provision-wait.out'

[Install]
WantedBy=cloud-init.target
`;

const PAUSE_UNIT = `[Unit]
Description=anc-vm: the power-cut tests' pause point (test VM only; kernel switch anc_vm.pause=NAME)
ConditionKernelCommandLine=anc_vm.pause
DefaultDependencies=no
After=local-fs.target
Before=aks-node-controller.service

[Service]
Type=forking
ExecStart=/usr/local/lib/anc-vm/pause-start

[Install]
WantedBy=basic.target
`;

const PAUSE_START = `#!/bin/bash
n="$(sed -n 's/.*anc_vm\\.pause=\\([a-z-]*\\).*/\\1/p' /proc/cmdline)"
read -r mode exe </usr/local/lib/anc-vm/pause-$n.mode
exec /usr/local/sbin/anc-vm-pause "$mode" ${CONTAINERS} "$exe" "sh /usr/local/lib/anc-vm/pause-when-$n.sh"
`;

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A pause point: which events (`open` of the directory, or `exec` of a file in it), by which agent, in which state. */
export interface PausePoint {
  mode: 'open' | 'exec';
  /** The end of the executable path of the process whose event may be held. */
  exe: string;
  /** sh script: exit 0 = hold this event (ANC_VM_PAUSE_PATH names the file). */
  condition: string;
}

/** The pause points (anc_vm.pause=NAME). */
export function pauseConditions(fixedStart: string, fixedHelper: string): Record<string, PausePoint> {
  const is = (file: string, text: string) => `[ "$(sha256sum <${CONTAINERS}/${file} | cut -c1-64)" = ${sha(text)} ]`;
  return {
    // The hotfix's provision opens the directory to sync it after replacing one script of two: one
    // replaced and the other not is the middle of applying the script payload.
    'scripts-mixed': {
      mode: 'open',
      exe: '/aks-node-controller-hotfix',
      condition: `#!/bin/sh\nif ${is('provision_start.sh', fixedStart)}; then a=1; else a=0; fi\nif ${is('provision_source.sh', fixedHelper)}; then b=1; else b=0; fi\n[ "$a" != "$b" ]\n`,
    },
    // download-hotfix (the baked agent) starts the candidate under its pending name for the health
    // gate: the middle of staging the hotfix, before it is promoted.
    'hotfix-staging': {
      mode: 'exec',
      exe: '/aks-node-controller',
      condition: `#!/bin/sh\ncase "$ANC_VM_PAUSE_PATH" in */aks-node-controller-hotfix.pending) [ ! -e ${CONTAINERS}/aks-node-controller-hotfix ] ;; *) exit 1 ;; esac\n`,
    },
  };
}

/** The image's own files beyond install.sh: provisioning scripts, the repository source and key, the test units. */
export function writeImageOverlay(
  dir: string,
  o: { arch: VmArch; keyring: string; pauseBinary?: string; conditions: Record<string, PausePoint> },
): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The image's provisioning scripts (cse_start.sh stand-in) with the bug the script hotfix fixes.
  for (const name of [
    'provision_source.sh',
    'provision_source_distro.sh',
    'provision_installs.sh',
    'provision_installs_distro.sh',
    'provision_configs.sh',
  ]) {
    put(dir, `${CONTAINERS}/${name}`, '#!/bin/bash\n# stand-in: nothing to source\n');
  }
  put(dir, `${CONTAINERS}/provision_start.sh`, standInProvisionScript({ exitCode: BUG.exitCode, sleepSeconds: 1, note: BUG.note }), 0o755);
  put(dir, '/opt/azure/components.json', '{}\n');
  // The package repository, as a VHD carries packages.microsoft.com's source and key.
  put(dir, '/etc/apt/keyrings/anc-vm-repo.gpg', readFileSync(o.keyring));
  put(
    dir,
    '/etc/apt/sources.list.d/microsoft-prod.list',
    `deb [arch=${o.arch} signed-by=/etc/apt/keyrings/anc-vm-repo.gpg] http://${GUEST_REPO.address}/ stable main\n`,
  );
  // The test units.
  put(dir, '/usr/local/sbin/anc-vm-report', REPORT_SCRIPT, 0o755);
  put(dir, '/etc/systemd/system/anc-vm-report.service', REPORT_UNIT);
  enable(dir, 'anc-vm-report.service', 'cloud-init.target');
  put(dir, '/etc/systemd/system/anc-vm-extension.service', EXTENSION_UNIT);
  enable(dir, 'anc-vm-extension.service', 'cloud-init.target');
  // The pause points only where the helper was built for the image's architecture (the power-cut tests).
  if (!o.pauseBinary) return;
  put(dir, '/usr/local/sbin/anc-vm-pause', readFileSync(o.pauseBinary), 0o755);
  put(dir, '/usr/local/lib/anc-vm/pause-start', PAUSE_START, 0o755);
  put(dir, '/etc/systemd/system/anc-vm-pause.service', PAUSE_UNIT);
  enable(dir, 'anc-vm-pause.service', 'basic.target');
  for (const [name, p] of Object.entries(o.conditions)) {
    put(dir, `/usr/local/lib/anc-vm/pause-when-${name}.sh`, p.condition, 0o755);
    put(dir, `/usr/local/lib/anc-vm/pause-${name}.mode`, `${p.mode} ${p.exe}\n`);
  }
}

export interface BuiltImage extends VmImage {
  arch: VmArch;
  dir: string;
  baked: string;
  /** The same build for this machine (runs here: custom-data, the image manifest); `baked` on a host-arch image. */
  hostAgent: string;
  reused: boolean;
  /** The base root's recipe hash, and whether the machine's cache had it (vhd/vm/build-base.sh). */
  base: string;
  baseCache: 'hit' | 'built';
  baseSeconds: number;
  imageSeconds: number;
  /** Wall time of the whole preparation (agent build, overlay, image). */
  seconds: number;
}

/**
 * The agent built at `version` for `arch` into `outDir`. Another architecture than the host's comes from
 * `build.mjs --all`, whose host build beside it (`host`) can run here (the image manifest).
 */
export function buildAgentFor(version: string, outDir: string, arch: VmArch, extraArgs: string[] = []): { bin: string; host: string } {
  if (arch === HOST_ARCH) {
    const bin = buildAgent(version, outDir, extraArgs);
    return { bin, host: bin };
  }
  buildAgent(version, outDir, ['--all', '--no-pointer-keys', ...extraArgs]);
  return { bin: join(outDir, `aks-node-controller-linux-${arch}`), host: join(outDir, `aks-node-controller-linux-${HOST_ARCH}`) };
}

/** The typical fix (test/fakes/typical-fix.ts) at `version` for `arch`, as buildAgentFor builds it. */
export function buildTypicalFixFor(version: string, outDir: string, arch: VmArch, extraArgs: string[] = []): string {
  if (arch === HOST_ARCH) return buildTypicalFix(version, outDir, extraArgs);
  buildTypicalFix(version, outDir, ['--all', '--no-pointer-keys', ...extraArgs]);
  return join(outDir, `aks-node-controller-linux-${arch}`);
}

/** Builds (or reuses) the VM image for `arch`: the baked agent, the overlay, vhd/vm/build-image.sh. */
export async function prepareVmImage(
  conditions: Record<string, PausePoint>,
  log: (line: string) => void = () => {},
  arch: VmArch = HOST_ARCH,
): Promise<BuiltImage> {
  const started = Date.now();
  const agents = buildAgentFor(BAKED_VERSION, join(VM_DIR, 'agents', arch === HOST_ARCH ? 'baked' : `baked-${arch}`), arch);
  const baked = agents.bin;
  const key = imageRepoKey();
  let pauseBinary: string | undefined;
  if (arch === HOST_ARCH) {
    pauseBinary = join(VM_DIR, 'agents', 'anc-vm-pause');
    execFileSync('cc', ['-O2', '-Wall', '-Werror', '-o', pauseBinary, join(REPO_ROOT, 'test/fakes/vm-pause.c')], { stdio: 'pipe' });
  }
  const overlay = join(VM_DIR, `overlay-${arch}`);
  writeImageOverlay(overlay, { arch, keyring: key.keyring, pauseBinary, conditions });
  const args = ['--out', VM_DIR, '--arch', arch, ...(agents.host === baked ? [] : ['--manifest-with', agents.host]), baked, overlay];
  const line = await new Promise<string>((ok, fail) => {
    const child = spawn('bash', [join(REPO_ROOT, 'vhd/vm/build-image.sh'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      for (const l of d.toString().split('\n')) if (l.startsWith('build-image:')) log(l);
    });
    child.on('exit', (code) =>
      code === 0 ? ok(out.trim().split('\n').at(-1)!) : fail(new Error(`build-image.sh failed (${code}): ${err.slice(-3000)}`)),
    );
  });
  const built = JSON.parse(line) as {
    base: string;
    baseCache: 'hit' | 'built';
    image: string;
    disk: string;
    kernel: string;
    initrd: string;
    reused: boolean;
    baseSeconds: number;
    imageSeconds: number;
  };
  return {
    arch,
    base: built.base,
    baseCache: built.baseCache,
    dir: built.image,
    hostAgent: agents.host,
    disk: built.disk,
    kernel: built.kernel,
    initrd: built.initrd,
    baked,
    reused: built.reused,
    baseSeconds: built.baseSeconds,
    imageSeconds: built.imageSeconds,
    seconds: (Date.now() - started) / 1000,
  };
}

// ---- the stand-ins ----

export interface StandIns {
  api: FakeApiServer;
  repo: ServedRepo;
  forwards: GuestForward[];
  close(): Promise<void>;
}

/** The apiserver (serving `pointer` in kube-system/anc-hotfix-version) and the signed apt repository with `packages`. */
export async function startStandIns(
  work: string,
  packages: HotfixPackages,
  pointer: Record<string, unknown>,
  arch: VmArch = HOST_ARCH,
): Promise<StandIns> {
  const api = await startFakeApiServer({ configMaps: { 'kube-system/anc-hotfix-version': { 'hotfixes.json': JSON.stringify(pointer) } } });
  const key = imageRepoKey();
  const repo = await startAptRepo(join(work, 'apt-repo'), [packages.deb, ...(packages.delta ? [packages.delta.deb] : [])], { key, arch });
  publishHotfixIndex(repo, 'apt');
  const forwards = [
    { guestAddress: GUEST_API.address, guestPort: GUEST_API.port, hostPort: api.port },
    { guestAddress: GUEST_REPO.address, guestPort: GUEST_REPO.port, hostPort: Number(new URL(repo.url).port) },
  ];
  return {
    api,
    repo,
    forwards,
    close: async () => {
      await api.close();
      await repo.close();
    },
  };
}

/** Our own custom data for the node: `custom-data --raw` of the demo configuration with the guest's apiserver. */
export function nodeCustomData(agent: string, api: FakeApiServer, work: string): string {
  const config = {
    ...demoConfiguration(GUEST_API.address, DEFAULT_TOKEN),
    kubernetesCaCert: Buffer.from(api.pki.ca.cert).toString('base64'),
  };
  const file = join(work, 'node-config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  const producer = join(work, 'producer-root');
  mkdirSync(producer, { recursive: true });
  return execFileSync(agent, ['custom-data', '--raw', file], {
    env: { PATH: process.env.PATH ?? '', AKS_NODE_ROOT: producer },
    encoding: 'utf8',
  });
}

// ---- a node and its boots ----

export interface VmNode {
  dir: string;
  disk: string;
  seed: string;
  share: string;
}

/** A fresh node: a qcow2 overlay on `backing` (the image, or another node's disk) and its seed. */
export function createNode(dir: string, backing: string, customData: string, instanceId: string): VmNode {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'share'), { recursive: true });
  return {
    dir,
    disk: createOverlay(backing, join(dir, 'disk.qcow2')),
    seed: writeSeed(join(dir, 'seed'), customData, { instanceId, hostname: 'aks-demo-vmss000000' }),
    share: join(dir, 'share'),
  };
}

export interface BootRun {
  arch: VmArch;
  vm: Vm;
  boot: number;
  seconds: number;
  /** The report of this boot (undefined when the power was cut). */
  report?: BootReport;
}

export interface BootOptions {
  image: VmImage;
  stand: StandIns;
  boot: number;
  /** anc_vm.pause=NAME: cut the power when the agent reaches that moment. */
  pause?: string;
  /** Probe the network from inside (anc_vm.probe). */
  probe?: boolean;
  timeoutMs?: number;
}

/** Boots the node once: until the report (then the guest powers off) or, with `pause`, until the power cut. */
export async function bootNode(node: VmNode, o: BootOptions): Promise<BootRun> {
  const { accel } = await accelerator(o.image, VM_DIR);
  const cmdline = [`anc_vm.boot=${o.boot}`];
  if (o.pause) cmdline.push(`anc_vm.pause=${o.pause}`);
  if (o.probe) cmdline.push(`anc_vm.probe=${[o.stand.api.port, 22].join(',')}`);
  const vm = startVm({
    image: o.image,
    disk: node.disk,
    seed: node.seed,
    forwards: o.stand.forwards,
    consoleFile: join(node.dir, `console-${o.boot}.log`),
    share: node.share,
    cmdline,
    accel,
  });
  const timeout = o.timeoutMs ?? 900_000;
  try {
    if (o.pause) {
      await vm.waitForLine(/ANC-VM paused /, timeout);
      await vm.powerCut();
      return { arch: o.image.arch ?? HOST_ARCH, vm, boot: o.boot, seconds: (Date.now() - vm.startedAt) / 1000 };
    }
    await vm.waitForLine(new RegExp(`ANC-VM report-done boot=${o.boot}\\b`), timeout);
    // The guest powers itself off after the report; a guest that does not is cut after 2 minutes.
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([vm.exited, new Promise<undefined>((ok) => (timer = setTimeout(() => ok(undefined), 120_000)))]);
    clearTimeout(timer);
    if (!exited) await vm.powerCut();
    return {
      arch: o.image.arch ?? HOST_ARCH,
      vm,
      boot: o.boot,
      seconds: (Date.now() - vm.startedAt) / 1000,
      report: readReport(join(node.share, `boot-${o.boot}`)),
    };
  } catch (error) {
    await vm.powerCut();
    throw error;
  }
}

// ---- what a boot reported ----

export interface BootReport {
  dir: string;
  launcherExit: number;
  launcherResult: string;
  /** `no` when the unit was skipped by its condition (already provisioned). */
  launcherCondition: string;
  cloudInitSeconds: number;
  /** Seconds from the kernel's start to the launcher's end. */
  launcherDoneSeconds: number;
  launcher: string;
  boothookRuns: number;
  status: string;
  statusJson: Record<string, unknown> | undefined;
  provisionWait: string;
  provisionJson: Record<string, string> | undefined;
  hotfixVersion: string;
  bakedVersion: string;
  scriptsSha: Record<string, string>;
  events: Array<Record<string, string>>;
  log: Array<Record<string, unknown>>;
  network: string;
  file(name: string): string;
}

function props(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

export function readReport(dir: string): BootReport {
  const file = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  const unit = props(file('launcher-unit.txt'));
  const cloudFinal = props(file('cloud-final.txt'));
  const eventsDir = join(dir, 'azure-logs/Microsoft.Azure.Extensions.CustomScript/events');
  const events = existsSync(eventsDir)
    ? execFileSync('ls', [eventsDir], { encoding: 'utf8' })
        .split('\n')
        .filter((n) => n.endsWith('.json'))
        .sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1))
        .map((n) => JSON.parse(readFileSync(join(eventsDir, n), 'utf8')) as Record<string, string>)
    : [];
  const parse = <T>(text: string): T | undefined => {
    try {
      return JSON.parse(text) as T;
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    launcherExit: Number(unit.ExecMainStatus ?? NaN),
    launcherResult: `${unit.ActiveState ?? '?'}/${unit.Result ?? '?'}`,
    launcherCondition: unit.ConditionResult ?? '',
    cloudInitSeconds: Number(cloudFinal.ActiveEnterTimestampMonotonic ?? NaN) / 1e6,
    launcherDoneSeconds: Number(unit.ExecMainExitTimestampMonotonic ?? NaN) / 1e6,
    launcher: file('launcher.txt'),
    boothookRuns: file('boothook.txt')
      .split('\n')
      .filter((l) => l.includes('boothook start')).length,
    status: file('status.txt'),
    statusJson: parse(file('status.json')),
    provisionWait: file('provision-wait.txt'),
    provisionJson: parse(file('azure-logs/aks/provision.json')),
    hotfixVersion: file('hotfix-version.txt').trim(),
    bakedVersion: file('baked-version.txt').trim(),
    scriptsSha: Object.fromEntries(
      file('scripts.sha256')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.split(/\s+/)[1]!, l.split(/\s+/)[0]!]),
    ),
    events,
    log: file('azure-logs/aks-node-controller.log')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => parse<Record<string, unknown>>(l) ?? { raw: l }),
    network: file('network.txt'),
    file,
  };
}

export const shaOf = sha;

export interface BootSummary {
  booted: boolean;
  arch: VmArch;
  cloudInitSeconds: number;
  launcherExit: number;
  provisionExitCode: string;
  binary: 'hotfix' | 'baked' | 'none';
  agentVersion: string;
  scripts: string;
  seconds: number;
}

/** The demo's summary line: what one boot did, from its report. */
export function summarize(run: BootRun, _totalSeconds?: number): BootSummary {
  const r = run.report;
  if (!r) {
    return {
      booted: false,
      arch: run.arch,
      cloudInitSeconds: NaN,
      launcherExit: NaN,
      provisionExitCode: '',
      binary: 'none',
      agentVersion: '',
      scripts: '',
      seconds: run.seconds,
    };
  }
  const chosen = [...r.launcher.matchAll(/Using (hotfix|VHD-baked) binary: /g)].at(-1)?.[1];
  const provisioned = r.log.filter((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision' && l.dryRun === false).at(-1);
  const scripts = r.statusJson?.scripts as { ran?: string; label?: string | null } | undefined;
  const fellBack = /falling back to the VHD-baked binary/.test(r.launcher);
  return {
    booted: true,
    arch: run.arch,
    cloudInitSeconds: Math.round(r.cloudInitSeconds * 10) / 10,
    launcherExit: r.launcherExit,
    provisionExitCode: r.provisionJson?.ExitCode ?? '',
    binary: fellBack ? 'baked' : chosen === 'hotfix' ? 'hotfix' : chosen ? 'baked' : 'none',
    agentVersion: String(provisioned?.version ?? ''),
    scripts: scripts?.ran === 'hotfix' ? `hotfix ${scripts.label}` : (scripts?.ran ?? ''),
    seconds: Math.round(run.seconds * 10) / 10,
  };
}

// Boots the VM image of vhd/vm/build-image.sh under qemu for the real-boot tests and `npm run demo:vm`:
// a fresh qcow2 overlay per node (on the shared image, or on another node's disk), a NoCloud seed, the
// serial console read line by line (the guest's marker lines), a 9p share for the results, and an
// isolated network (see startVm). KVM is used only where it was seen to boot this kernel; TCG otherwise.
// arm64 boots on any host under TCG: qemu-system-aarch64's `virt` board, console ttyAMA0.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type VmArch = 'amd64' | 'arm64';

/** This machine's architecture in Debian's words (the default of every --arch). */
export const HOST_ARCH: VmArch = process.arch === 'arm64' ? 'arm64' : 'amd64';

export interface VmImage {
  /** The guest's architecture (default: the host's). */
  arch?: VmArch;
  disk: string;
  kernel: string;
  initrd: string;
}

/** A guest address and port that qemu forwards to a port on the host's loopback. */
export interface GuestForward {
  guestAddress: string;
  guestPort: number;
  hostPort: number;
}

export interface VmOptions {
  image: VmImage;
  /** The node's disk: a qcow2 overlay (createOverlay). */
  disk: string;
  /** The NoCloud seed (writeSeed). */
  seed: string;
  forwards: GuestForward[];
  /** Everything the serial console printed goes here. */
  consoleFile: string;
  /** A host directory the guest mounts over 9p (mount tag `anc-vm`). */
  share?: string;
  /** More kernel command-line words (the guest's test switches read them). */
  cmdline?: string[];
  memoryMiB?: number;
  /** 'kvm' or 'tcg' (default: accelerator()). */
  accel?: 'kvm' | 'tcg';
}

export interface Vm {
  pid: number;
  accel: 'kvm' | 'tcg';
  startedAt: number;
  /** Resolves with the first console line matching `re` (rejects when qemu exits first or on timeout). */
  waitForLine(re: RegExp, timeoutMs: number): Promise<string>;
  /** Console lines so far. */
  lines(): string[];
  /** Resolves when qemu has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }>;
  /** Pulls the plug: SIGKILL to qemu (a power cut: nothing the guest had not written reaches the disk). */
  powerCut(): Promise<void>;
}

const run = (program: string, args: string[]) => {
  const r = spawnSync(program, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.error?.message}`);
  return r.stdout;
};

/** A new qcow2 disk whose unchanged blocks come from `backing` (the image, or a booted node's disk). */
export function createOverlay(backing: string, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  const format = backing.endsWith('.qcow2') ? 'qcow2' : 'raw';
  run('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', format, '-b', backing, path]);
  return path;
}

/** A NoCloud seed (volume label cidata) with `userData` as the instance's user data. */
export function writeSeed(dir: string, userData: string, meta: { instanceId: string; hostname: string }): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'user-data'), userData);
  writeFileSync(join(dir, 'meta-data'), `instance-id: ${meta.instanceId}\nlocal-hostname: ${meta.hostname}\n`);
  const seed = join(dir, 'seed.img');
  run('cloud-localds', [seed, join(dir, 'user-data'), join(dir, 'meta-data')]);
  return seed;
}

/**
 * KVM only where it works: ANC_VM_ACCEL=kvm|tcg decides; otherwise KVM when /dev/kvm opens and a short
 * probe boot of this kernel under it reaches user space (nested set-ups can expose a /dev/kvm that the
 * kernel cannot boot under). The probe's answer is kept beside the image.
 */
export async function accelerator(image: VmImage, cacheDir: string): Promise<{ accel: 'kvm' | 'tcg'; why: string }> {
  const forced = process.env.ANC_VM_ACCEL;
  if ((image.arch ?? HOST_ARCH) !== HOST_ARCH) return { accel: 'tcg', why: `an ${image.arch} guest on an ${HOST_ARCH} host` };
  if (forced === 'kvm' || forced === 'tcg') return { accel: forced, why: `ANC_VM_ACCEL=${forced}` };
  if (!existsSync('/dev/kvm')) return { accel: 'tcg', why: 'no /dev/kvm' };
  const cache = join(cacheDir, 'kvm-probe.json');
  const key = `${run('uname', ['-r']).trim()} ${image.kernel}`;
  if (existsSync(cache)) {
    const seen = JSON.parse(readFileSync(cache, 'utf8')) as { key: string; works: boolean; why: string };
    if (seen.key === key) return { accel: seen.works ? 'kvm' : 'tcg', why: `${seen.why} (probed earlier)` };
  }
  const probe = await probeKvm(image);
  writeFileSync(cache, JSON.stringify({ key, ...probe }));
  return { accel: probe.works ? 'kvm' : 'tcg', why: probe.why };
}

async function probeKvm(image: VmImage): Promise<{ works: boolean; why: string }> {
  // The initramfs's first words mean the kernel booted; `panic=-1` with no root makes it stop soon after.
  const child = spawn(
    'qemu-system-x86_64',
    [
      ...['-accel', 'kvm', '-cpu', 'host', '-smp', '1', '-m', '512', '-nodefaults', '-no-reboot', '-display', 'none'],
      ...['-kernel', image.kernel, '-initrd', image.initrd, '-append', 'console=ttyS0 panic=-1 root=/dev/nowhere rootdelay=1'],
      ...['-serial', 'stdio', '-monitor', 'none', '-nic', 'none'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('latin1');
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString('latin1');
  });
  const works = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000);
    const poll = setInterval(() => {
      if (/Run \/init as init process|Loading, please wait/.test(out)) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(true);
      }
    }, 200);
    child.on('exit', () => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve(/Run \/init as init process|Loading, please wait/.test(out));
    });
  });
  child.kill('SIGKILL');
  const why = works
    ? 'KVM probe booted the kernel'
    : `KVM probe did not boot the kernel (${out.trim().split('\n').at(-1)?.slice(0, 120) ?? 'no output'})`;
  return { works, why };
}

export function startVm(o: VmOptions): Vm {
  const accel = o.accel ?? 'tcg';
  const netdev = [
    'user',
    'id=n0',
    // restrict=on: the guest is isolated. It reaches nothing on the host or beyond (no NAT to the outside,
    // not even qemu's 10.0.2.2 gateway), only the guestfwd addresses below, each of which qemu connects to
    // one port on the host's loopback where a stand-in listens. Never remove it (BRIEF: network rule).
    'restrict=on',
    ...o.forwards.map((f) => `guestfwd=tcp:${f.guestAddress}:${f.guestPort}-cmd:socat STDIO TCP:127.0.0.1:${f.hostPort}`),
  ].join(',');
  const arm64 = (o.image.arch ?? HOST_ARCH) === 'arm64';
  const console = arm64 ? 'ttyAMA0' : 'ttyS0';
  const append = ['root=/dev/vda', 'rw', `console=${console}`, 'panic=-1', 'systemd.show_status=auto', ...(o.cmdline ?? [])].join(' ');
  // arm64 under TCG: pauth-impdef=on swaps qemu's emulated QARMA pointer authentication (which the kernel
  // uses on every function return) for a cheap one: the same boot takes half the time.
  const cpu =
    accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,thread=multi', '-cpu', arm64 ? 'max,pauth-impdef=on' : 'max'];
  const args = [
    ...(arm64 ? ['-M', 'virt'] : []),
    ...cpu,
    ...['-smp', '2', '-m', String(o.memoryMiB ?? 1024), '-nodefaults', '-no-reboot', '-display', 'none'],
    ...(arm64 ? [] : ['-vga', 'none']),
    ...['-kernel', o.image.kernel, '-initrd', o.image.initrd, '-append', append],
    // cache=writeback (the default): a guest flush reaches the host file, qcow2 metadata included, so a
    // power cut (SIGKILL) loses only what the guest had not flushed, as on a real disk (never unsafe).
    ...['-drive', `file=${o.disk},if=virtio,format=qcow2,cache=writeback`],
    ...['-drive', `file=${o.seed},if=virtio,format=raw,readonly=on`],
    ...['-netdev', netdev, '-device', 'virtio-net-pci,netdev=n0'],
    ...(o.share ? ['-virtfs', `local,path=${o.share},mount_tag=anc-vm,security_model=none,id=anc-vm`] : []),
    ...['-serial', 'stdio', '-monitor', 'none'],
  ];
  mkdirSync(dirname(o.consoleFile), { recursive: true });
  writeFileSync(o.consoleFile, '');
  const startedAt = Date.now();
  const child: ChildProcess = spawn(arm64 ? 'qemu-system-aarch64' : 'qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; ok: (l: string) => void }> = [];
  let partial = '';
  let stderr = '';
  const onLine = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(line);
      }
    }
  };
  child.stdout!.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    appendFileSync(o.consoleFile, text);
    const parts = (partial + text).split(/\r?\n/);
    partial = parts.pop() ?? '';
    for (const p of parts) onLine(p.replace(/\r/g, ''));
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }>((resolve) => {
    child.on('exit', (code, signal) => {
      if (partial) onLine(partial);
      if (stderr) appendFileSync(o.consoleFile, `\n[qemu stderr] ${stderr}`);
      resolve({ code, signal, seconds: (Date.now() - startedAt) / 1000 });
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    pid: child.pid ?? -1,
    accel,
    startedAt,
    lines: () => [...lines],
    exited,
    waitForLine(re, timeoutMs) {
      const seen = lines.find((l) => re.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const waiter = {
          re,
          ok: (l: string) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no console line matching ${re} within ${timeoutMs / 1000} s (console: ${o.consoleFile})`));
        }, timeoutMs);
        waiters.push(waiter);
        void exited.then(({ code, signal }) => {
          if (!waiters.includes(waiter)) return;
          waiters.splice(waiters.indexOf(waiter), 1);
          clearTimeout(timer);
          reject(
            new Error(`qemu exited (${code ?? signal}) before a console line matching ${re} (console: ${o.consoleFile}) ${stderr.trim()}`),
          );
        });
      });
    },
    async powerCut() {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}

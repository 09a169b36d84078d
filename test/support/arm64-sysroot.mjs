// An arm64 glibc sysroot for running the linux-arm64 binary under qemu-user (`qemu-aarch64-static -L`).
// Debian's libc6:arm64 is downloaded (apt-get download, needs `dpkg --add-architecture arm64`, which
// .ci/run does) and unpacked with dpkg-deb -x into .tmp/sysroot-arm64. Nothing is installed on the host.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SYSROOT = join(repo, '.tmp', 'sysroot-arm64');

export function ensureArm64Sysroot() {
  if (existsSync(join(SYSROOT, 'lib', 'ld-linux-aarch64.so.1'))) return SYSROOT;
  const download = mkdtempSync(join(tmpdir(), 'libc6-arm64-'));
  try {
    execFileSync('apt-get', ['download', 'libc6:arm64'], { cwd: download, stdio: ['ignore', 'ignore', 'pipe'] });
    const deb = readdirSync(download).find((n) => n.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download libc6:arm64 produced no .deb');
    mkdirSync(SYSROOT, { recursive: true });
    execFileSync('dpkg-deb', ['-x', join(download, deb), SYSROOT]);
  } catch (error) {
    throw new Error(
      `cannot prepare the arm64 sysroot (${error.message.split('\n')[0]}); run: dpkg --add-architecture arm64 && apt-get update`,
    );
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  return SYSROOT;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(ensureArm64Sysroot() + '\n');

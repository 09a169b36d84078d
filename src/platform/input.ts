// The one input guard every file read of the agent goes through (FileSystem.readFile/readText): only a
// regular file is read, opening never blocks (O_NONBLOCK: a FIFO without a writer opens at once and is
// then refused by fstat, like a device such as /dev/zero), and each kind of input has a size cap checked
// before and while reading (a file that grows past it is refused too). Refusals are errors with a code
// (EISDIR, ENOTREG, EFBIG) so callers report them like any other read error, naming the file.
import type { Stats } from 'node:fs';
import { fs } from './builtins.ts';

/** Size caps per kind of input; what a healthy node holds is far below each. */
export const INPUT_LIMITS = {
  /** Node configuration, nbc command, node custom data, the tooling commands' configuration inputs. */
  config: 16 * 1024 * 1024,
  /**
   * bootstrap-kubeconfig / kubeconfig: one cluster and one user, inline certificates included, is a few
   * KiB. Parsing is linear, and this cap keeps the worst shape well inside check-hotfix's 12 s bound.
   */
  kubeconfig: 256 * 1024,
  /** Cluster CA, client certificate and key files. */
  certificate: 1024 * 1024,
  /** The hotfix pointer (the ConfigMap it comes from is itself capped at 1 MiB). */
  pointer: 1024 * 1024,
  osRelease: 64 * 1024,
  /** provision.json: up to 1 MiB of each child stream, escaped. */
  status: 16 * 1024 * 1024,
  /** components.json of the image. */
  manifest: 16 * 1024 * 1024,
  /** An executable copied beside the baked one. */
  binary: 512 * 1024 * 1024,
  /** apt sources and apt.conf, yum.repos.d and dnf.conf: what the repository fast path reads. */
  packageConfig: 1024 * 1024,
  /** A provisioning script a script hotfix replaces or backs up (the largest real one is ~200 KiB). */
  script: 16 * 1024 * 1024,
  /** The agent's small state files (pointer serial, quarantine record) and the machine identity. */
  state: 64 * 1024,
  /** A script hotfix's record.json (hotfix/scripts/format.ts SCRIPT_CAPS: 256 entries fit with room). */
  scriptRecord: 512 * 1024,
  /** A self-describing backup of one script: a header line, then up to `script` bytes. */
  scriptBackup: 16 * 1024 * 1024 + 64 * 1024,
} as const;

export type InputKind = keyof typeof INPUT_LIMITS;

const KIND_NAME: Record<InputKind, string> = {
  config: 'configuration',
  kubeconfig: 'kubeconfig',
  certificate: 'certificate',
  pointer: 'hotfix pointer',
  osRelease: 'os-release file',
  status: 'status file',
  manifest: 'manifest',
  binary: 'executable',
  packageConfig: 'package-manager configuration file',
  script: 'provisioning script',
  state: 'state file',
  scriptRecord: 'script hotfix record',
  scriptBackup: 'script backup',
};

/** An input refusal: `code` like an errno so existing error texts (`ENOTREG: ...`) stay uniform. */
function refusal(code: string, message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${message}`);
  error.code = code;
  error.syscall = 'read';
  return error;
}

function fileType(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'this file type';
}

/** Opens without blocking and refuses anything but a regular file (the fd is closed on refusal). */
function openRegularFile(path: string, noFollow = false): number {
  const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY | (noFollow ? fs.constants.O_NOFOLLOW : 0);
  const fd = fs.openSync(path, flags);
  const stat = fs.fstatSync(fd);
  if (stat.isFile()) return fd;
  fs.closeSync(fd);
  if (stat.isDirectory()) throw refusal('EISDIR', 'illegal operation on a directory, read');
  throw refusal('ENOTREG', `${fileType(stat)} is not a regular file (refused without reading)`);
}

/**
 * The last `bytes` bytes of a regular file of any size (a log that grew large), through the same guard;
 * `truncated` when the file holds more.
 */
export function readFileTail(path: string, bytes: number): { data: Buffer; truncated: boolean } {
  const fd = openRegularFile(path);
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const data = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(fd, data, done, length - done, size - length + done);
      if (n === 0) break;
      done += n;
    }
    return { data: data.subarray(0, done), truncated: size > length };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads a whole regular file of the given kind. Throws the open error (ENOENT, EACCES, ...) as is,
 * EISDIR for a directory, ENOTREG for a FIFO/device/socket, EFBIG past the kind's cap.
 */
export function readBoundedFile(path: string, kind: InputKind, options: { noFollow?: boolean } = {}): Buffer {
  const limit = INPUT_LIMITS[kind];
  // noFollow: a symlink as the last component is refused (ELOOP) instead of read through.
  const fd = openRegularFile(path, options.noFollow);
  try {
    const stat = fs.fstatSync(fd);
    const tooLarge = (size: string) => refusal('EFBIG', `${size} bytes is over the ${limit}-byte limit for a ${KIND_NAME[kind]}`);
    if (stat.size > limit) throw tooLarge(String(stat.size));
    // Read at most limit + 1 bytes: a file that grows while we read is caught without reading it all.
    const buffer = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(stat.size + 1, 64 * 1024)));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit) throw tooLarge(`more than ${limit}`);
        return readRest(fd, buffer, length, limit, tooLarge);
      }
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) return buffer.subarray(0, length);
      length += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The file was larger than fstat said (it grew): keep reading in chunks up to the cap. */
function readRest(fd: number, first: Buffer, length: number, limit: number, tooLarge: (size: string) => Error): Buffer {
  const chunks = [first.subarray(0, length)];
  let total = length;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > limit) throw tooLarge(`more than ${limit}`);
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
}

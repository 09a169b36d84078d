// File-system access for the commands (through Deps), including the atomic write every status and
// pointer file goes through: temp file in the same directory, fsync, rename, fsync of the directory.
import type { Stats } from 'node:fs';
import { fs, path as nodePath } from './builtins.ts';
import { readBoundedFile, readFileTail, type InputKind } from './input.ts';
import {
  createHashingWriter,
  openPositionalReader,
  sha256OfFile,
  type HashingWriter,
  type BackgroundDigest,
  backgroundSha256,
  type WriterOptions,
  type PositionalReader,
  type WrittenFile,
} from './file-stream.ts';

export interface FileStat {
  isFile: boolean;
  isDirectory: boolean;
  mode: number;
  size: number;
}

/** lstat(2): the link itself, never its target. */
export interface LinkStat extends FileStat {
  isSymlink: boolean;
  uid: number;
  gid: number;
}

export interface FileIdentity {
  /** `dev:ino`: the same file, whatever its name. */
  file: string;
  /** Size, mode and modification time: equal while the content was not rewritten. */
  content: string;
  /** The inode change time too: any change at all (a link, a chmod, a write). */
  exact: string;
}

export interface AtomicWriteOptions {
  /** Permission bits of the final file (applied with chmod, so the umask does not change them). */
  mode: number;
  /** Temp-file name prefix; the default is `.<basename>.tmp-`. */
  tempPrefix?: string;
  /**
   * false: still written whole or not at all (temp file, rename), but without the two fsyncs (~1 ms on
   * the boot path) for a file nobody needs after a crash. Default true.
   */
  durable?: boolean;
}

export interface FileSystem {
  /** Every read goes through the input guard (input.ts): regular files only, never blocking, capped per kind. */
  readFile(path: string, kind: InputKind): Buffer;
  readText(path: string, kind: InputKind): string;
  /** The last `bytes` bytes of a regular file of any size, same guard; `truncated` when it holds more. */
  readTail(path: string, bytes: number): { data: Buffer; truncated: boolean };
  /** readFile that refuses a symlink as the last component (ELOOP) instead of following it. */
  readFileNoFollow(path: string, kind: InputKind): Buffer;
  /** undefined when the path does not exist; never follows a symlink at the last component. */
  lstat(path: string): LinkStat | undefined;
  /**
   * Writes a new file (exclusive create, never through a symlink), sets mode (and owner when given) and
   * fsyncs it: the first half of an atomic replace whose rename the caller does.
   */
  stageFile(path: string, data: Uint8Array, options: { mode: number; owner?: { uid: number; gid: number } }): void;
  /** fsync of a directory (after renames into it), best effort. */
  syncDirectory(dir: string): void;
  /**
   * fsync of a written file on the runtime's worker threads, so other work (a health gate) runs meanwhile.
   * The file is opened before this returns: renaming it afterwards is fine.
   */
  syncFile(path: string): Promise<void>;
  /** undefined when the path does not exist; other errors are thrown. Follows symlinks. */
  stat(path: string): FileStat | undefined;
  exists(path: string): boolean;
  mkdirp(path: string, mode?: number): void;
  writeFile(path: string, data: string | Uint8Array, options: { mode: number; exclusive?: boolean }): void;
  atomicWrite(path: string, data: string | Uint8Array, options: AtomicWriteOptions): void;
  /** atomicWrite of a copy of `src`, never holding it in memory (the kernel copies: copy_file_range). */
  atomicCopy(src: string, path: string, options: AtomicWriteOptions): void;
  unlink(path: string): void;
  /** Which file is at path (device, inode) and which version of it (size, mode, times); undefined when absent. Never follows a symlink. */
  identity(path: string): FileIdentity | undefined;
  /** link(2): a second name for the same file. */
  link(existing: string, newPath: string): void;
  /** rename(2): atomic within one file system (promoting a staged file). */
  rename(from: string, to: string): void;
  /** Removes a directory tree (no error when it does not exist). */
  removeTree(path: string): void;
  readdir(path: string): string[];
  chmod(path: string, mode: number): void;
  /** Removes regular files and directories in dir named `<prefix>*` last modified before `olderThan`; returns their names. */
  removeStaleFiles(dir: string, prefix: string, olderThan: Date): string[];
  /** Watches a directory; the callback gets the file name of every create/rename/change. */
  watchDir(path: string, onEvent: (fileName: string) => void, onError: (error: Error) => void): () => void;
  /** Large files in pieces (file-stream.ts): positional reads, a hashing exclusive writer, streaming sha256. */
  openReader(path: string): PositionalReader;
  createHashingWriter(path: string, mode: number, options?: WriterOptions): HashingWriter;
  sha256OfFile(path: string): WrittenFile;
  /** The sha256 of a file, advancing in slices while the caller awaits other work (file-stream.ts). */
  backgroundSha256(path: string): BackgroundDigest;
}

function toStat(s: Stats): FileStat {
  return { isFile: s.isFile(), isDirectory: s.isDirectory(), mode: s.mode & 0o7777, size: s.size };
}

export function statOrUndefined(path: string): FileStat | undefined {
  try {
    return toStat(fs.statSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function identityOf(path: string): FileIdentity | undefined {
  const s = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!s) return undefined;
  const content = `${s.size}:${s.mode}:${s.mtimeNs}`;
  return { file: `${s.dev}:${s.ino}`, content, exact: `${content}:${s.ctimeNs}` };
}

/**
 * The random part of a temp file's name: 10 digits (1000000000-9999999999) from the Web Crypto generator
 * every runtime has built in. Not node:crypto: loading that module costs ~2-5 ms in the compiled binary,
 * and every boot-path command writes a temp file (an event) before the scripts start. The name only has to
 * be hard to guess; the exclusive create (O_EXCL) is what keeps a planted file or symlink out.
 */
export function randomTempSuffix(): number {
  const [high, low] = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return 1_000_000_000 + (((high! % 9) * 2 ** 32 + low!) % 9_000_000_000);
}

export function atomicWrite(path: string, data: string | Uint8Array, options: AtomicWriteOptions): void {
  const dir = nodePath.dirname(path);
  const prefix = options.tempPrefix ?? `.${nodePath.basename(path)}.tmp-`;
  let temp = '';
  let fd: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      temp = nodePath.join(dir, `${prefix}${randomTempSuffix()}`);
      try {
        fd = fs.openSync(temp, 'wx', 0o600);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 10) throw error;
      }
    }
    fs.writeFileSync(fd, data);
    fs.fchmodSync(fd, options.mode);
    const durable = options.durable ?? true;
    if (durable) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, path);
    temp = '';
    if (durable) syncDirectory(dir);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    if (temp) fs.rmSync(temp, { force: true });
  }
}

export function atomicCopy(src: string, path: string, options: AtomicWriteOptions): void {
  const dir = nodePath.dirname(path);
  const prefix = options.tempPrefix ?? `.${nodePath.basename(path)}.tmp-`;
  let temp = nodePath.join(dir, `${prefix}${randomTempSuffix()}`);
  try {
    fs.copyFileSync(src, temp, fs.constants.COPYFILE_EXCL);
    const fd = fs.openSync(temp, 'r+');
    try {
      fs.fchmodSync(fd, options.mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, path);
    temp = '';
    syncDirectory(dir);
  } finally {
    if (temp) fs.rmSync(temp, { force: true });
  }
}

export function lstatOrUndefined(path: string): LinkStat | undefined {
  try {
    const s = fs.lstatSync(path);
    return { ...toStat(s), isSymlink: s.isSymbolicLink(), uid: s.uid, gid: s.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function stageFile(path: string, data: Uint8Array, options: { mode: number; owner?: { uid: number; gid: number } }): void {
  const c = fs.constants;
  const fd = fs.openSync(path, c.O_WRONLY | c.O_CREAT | c.O_EXCL | c.O_NOFOLLOW, 0o600);
  try {
    fs.writeFileSync(fd, data);
    if (options.owner) fs.fchownSync(fd, options.owner.uid, options.owner.gid);
    fs.fchmodSync(fd, options.mode);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(path, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/** Opens `path` now (it may be renamed right after) and fsyncs it on a worker thread. */
export function syncFile(path: string): Promise<void> {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => fs.close(fd, () => (error ? reject(error) : resolve()))));
}

export function syncDirectory(dir: string): void {
  let dirFd: number | undefined;
  try {
    dirFd = fs.openSync(dir, 'r');
    fs.fsyncSync(dirFd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (dirFd !== undefined) fs.closeSync(dirFd);
  }
}

export function removeStaleFiles(dir: string, prefix: string, olderThan: Date): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = nodePath.join(dir, name);
    // Regular files and (a killed fast path's scratch) directories; never a symlink or anything else.
    const stat = fs.lstatSync(path, { throwIfNoEntry: false });
    if (!(stat?.isFile() || stat?.isDirectory()) || stat.mtimeMs >= olderThan.getTime()) continue;
    fs.rmSync(path, { force: true, recursive: stat.isDirectory() });
    removed.push(name);
  }
  return removed;
}

export function createRealFileSystem(): FileSystem {
  return {
    readFile: readBoundedFile,
    readText: (path, kind) => readBoundedFile(path, kind).toString('utf8'),
    readTail: readFileTail,
    readFileNoFollow: (path, kind) => readBoundedFile(path, kind, { noFollow: true }),
    lstat: lstatOrUndefined,
    stageFile,
    syncDirectory,
    stat: statOrUndefined,
    exists: (path) => fs.existsSync(path),
    mkdirp: (path, mode = 0o755) => void fs.mkdirSync(path, { recursive: true, mode }),
    writeFile(path, data, options) {
      fs.writeFileSync(path, data, { mode: options.mode, flag: options.exclusive ? 'wx' : 'w' });
    },
    atomicWrite,
    atomicCopy,
    unlink: (path) => fs.rmSync(path, { force: true }),
    identity: identityOf,
    link: (existing, newPath) => fs.linkSync(existing, newPath),
    rename: (from, to) => fs.renameSync(from, to),
    removeTree: (path) => fs.rmSync(path, { recursive: true, force: true }),
    readdir: (path) => fs.readdirSync(path),
    chmod: (path, mode) => fs.chmodSync(path, mode),
    removeStaleFiles,
    watchDir(path, onEvent, onError) {
      const watcher = fs.watch(path, { persistent: true }, (_type, fileName) => {
        if (fileName) onEvent(fileName.toString());
      });
      watcher.on('error', onError);
      return () => watcher.close();
    },
    openReader: openPositionalReader,
    createHashingWriter,
    sha256OfFile,
    backgroundSha256,
    syncFile,
  };
}

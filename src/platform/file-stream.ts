// Large files without holding them in memory (the delta hotfix reads a 113 MB base executable and
// writes a 113 MB reconstruction): positional reads, an exclusive-create writer that hashes what it
// writes and fsyncs on close, and a streaming sha256 of a file.
import type { Readable } from 'node:stream';
import { fs } from './builtins.ts';
import { AgentError } from './errors.ts';
import { createSha256 } from './hash.ts';

const HASH_CHUNK = 1024 * 1024;

export interface PositionalReader {
  readonly size: number;
  /** Exactly `length` bytes from `position` (throws when the file is shorter). */
  read(position: number, length: number): Buffer;
  /** The same, into `target` at `offset` (no allocation). */
  readInto(target: Uint8Array, offset: number, position: number, length: number): void;
  close(): void;
}

export interface WrittenFile {
  size: number;
  /** Lowercase hex. */
  sha256: string;
}

export interface HashingWriter {
  /** The open file (a runtime that writes a download into it itself); undefined once closed. */
  readonly fd: number | undefined;
  write(chunk: Uint8Array): void;
  /** Bytes written so far. */
  size(): number;
  /** fsync (unless `durable: false`) + close; returns the size and sha256 of everything written. */
  close(): WrittenFile;
  /** Closes (if open) and removes the file: nothing partial stays behind. */
  discard(): void;
}

export function openPositionalReader(path: string): PositionalReader {
  const fd = fs.openSync(path, 'r');
  const size = fs.fstatSync(fd).size;
  return {
    size,
    read(position, length) {
      const buffer = Buffer.allocUnsafe(length);
      this.readInto(buffer, 0, position, length);
      return buffer;
    },
    readInto(target, offset, position, length) {
      for (let done = 0; done < length; ) {
        const n = fs.readSync(fd, target, offset + done, length - done, position + done);
        if (n === 0) throw Object.assign(new RangeError(`${path}: short read at ${position + done}`), { code: 'ESHORT' });
        done += n;
      }
    },
    close: () => fs.closeSync(fd),
  };
}

export interface WriterOptions {
  /** false: no sha256 (another digest proves the bytes, or the caller hashes the file); close() reports ''. */
  hash?: boolean;
  /** false: no fsync on close (a scratch file that is read back and removed, never kept). */
  durable?: boolean;
}

/** Creates `path` exclusively (O_EXCL) with `mode`. */
export function createHashingWriter(path: string, mode: number, options: WriterOptions = {}): HashingWriter {
  let fd: number | undefined = fs.openSync(path, 'wx', mode);
  const hash = options.hash === false ? undefined : createSha256();
  let size = 0;
  return {
    get fd() {
      return fd;
    },
    write(chunk) {
      for (let done = 0; done < chunk.length; ) done += fs.writeSync(fd!, chunk, done, chunk.length - done);
      hash?.update(chunk);
      size += chunk.length;
    },
    size: () => size,
    close() {
      if (options.durable !== false) fs.fsyncSync(fd!);
      fs.closeSync(fd!);
      fd = undefined;
      return { size, sha256: hash?.digest('hex') ?? '' };
    },
    discard() {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
      fs.rmSync(path, { force: true });
    },
  };
}

export function sha256OfFile(path: string): WrittenFile {
  const fd = fs.openSync(path, 'r');
  try {
    const hash = createSha256();
    const buffer = Buffer.allocUnsafe(HASH_CHUNK);
    let size = 0;
    for (let n = fs.readSync(fd, buffer, 0, HASH_CHUNK, null); n > 0; n = fs.readSync(fd, buffer, 0, HASH_CHUNK, null)) {
      hash.update(buffer.subarray(0, n));
      size += n;
    }
    return { size, sha256: hash.digest('hex') };
  } finally {
    fs.closeSync(fd);
  }
}

export interface BackgroundDigest {
  /** The digest: what is left is hashed at once. Throws what reading the file threw. */
  result(): WrittenFile;
  /** Stops and closes the file (the digest is not needed after all). */
  cancel(): void;
}

/**
 * The sha256 of `path`, hashed one 1 MiB slice per turn of the event loop, so that it advances while the
 * caller waits on the network and on child processes; result() hashes what is left synchronously.
 */
export function backgroundSha256(path: string): BackgroundDigest {
  const fd = fs.openSync(path, 'r');
  const hash = createSha256();
  const buffer = Buffer.allocUnsafe(HASH_CHUNK);
  let open = true;
  let ended = false;
  let size = 0;
  let failure: unknown;
  let digest: WrittenFile | undefined;
  let timer: ReturnType<typeof setImmediate> | undefined;
  const stop = () => {
    if (timer) clearImmediate(timer);
    timer = undefined;
    if (open) fs.closeSync(fd);
    open = false;
  };
  const step = () => {
    const n = fs.readSync(fd, buffer, 0, HASH_CHUNK, null);
    if (n === 0) ended = true;
    hash.update(buffer.subarray(0, n));
    size += n;
  };
  const tick = () => {
    timer = undefined;
    try {
      step();
    } catch (error) {
      failure = error;
    }
    if (ended || failure !== undefined) stop();
    else timer = setImmediate(tick);
  };
  timer = setImmediate(tick);
  return {
    result() {
      if (digest) return digest;
      try {
        while (open && !ended && failure === undefined) step();
      } catch (error) {
        failure = error;
      }
      stop();
      if (failure !== undefined) throw failure;
      if (!ended) throw new AgentError('ANC_INTERNAL', `the digest of ${path} was cancelled before it was asked for`);
      digest = { size, sha256: hash.digest('hex') };
      return digest;
    },
    cancel: stop,
  };
}

/** `length` (> 0) bytes of `path` from `start`, as a stream (an archive member read in place). */
export function readRange(path: string, start: number, length: number): Readable {
  if (length <= 0) throw Object.assign(new RangeError(`${path}: empty range at ${start}`), { code: 'EEMPTY' });
  return fs.createReadStream(path, { start, end: start + length - 1, highWaterMark: 256 * 1024 });
}

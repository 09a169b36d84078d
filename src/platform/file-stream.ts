// Large files without holding them in memory (the delta hotfix reads a 113 MB base executable and
// writes a 113 MB reconstruction): positional reads, an exclusive-create writer that hashes what it
// writes and fsyncs on close, and a streaming sha256 of a file.
import { fs } from './builtins.ts';

// node:crypto loads on the first hash, not at every start-up (fs.ts, on every command's path, imports this).
const createHash = (algorithm: string) => process.getBuiltinModule('node:crypto').createHash(algorithm);

const HASH_CHUNK = 4 * 1024 * 1024;

export interface PositionalReader {
  readonly size: number;
  /** Exactly `length` bytes from `position` (throws when the file is shorter). */
  read(position: number, length: number): Buffer;
  close(): void;
}

export interface WrittenFile {
  size: number;
  /** Lowercase hex. */
  sha256: string;
}

export interface HashingWriter {
  write(chunk: Uint8Array): void;
  /** fsync + close; returns the size and sha256 of everything written. */
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
      for (let done = 0; done < length; ) {
        const n = fs.readSync(fd, buffer, done, length - done, position + done);
        if (n === 0) throw Object.assign(new RangeError(`${path}: short read at ${position + done}`), { code: 'ESHORT' });
        done += n;
      }
      return buffer;
    },
    close: () => fs.closeSync(fd),
  };
}

/** Creates `path` exclusively (O_EXCL) with `mode`. */
export function createHashingWriter(path: string, mode: number): HashingWriter {
  let fd: number | undefined = fs.openSync(path, 'wx', mode);
  const hash = createHash('sha256');
  let size = 0;
  return {
    write(chunk) {
      for (let done = 0; done < chunk.length; ) done += fs.writeSync(fd!, chunk, done, chunk.length - done);
      hash.update(chunk);
      size += chunk.length;
    },
    close() {
      fs.fsyncSync(fd!);
      fs.closeSync(fd!);
      fd = undefined;
      return { size, sha256: hash.digest('hex') };
    },
    discard() {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
      fs.rmSync(path, { force: true });
    },
  };
}

export function sha256OfFile(path: string): WrittenFile {
  const reader = openPositionalReader(path);
  try {
    const hash = createHash('sha256');
    for (let at = 0; at < reader.size; at += HASH_CHUNK) hash.update(reader.read(at, Math.min(HASH_CHUNK, reader.size - at)));
    return { size: reader.size, sha256: hash.digest('hex') };
  } finally {
    reader.close();
  }
}

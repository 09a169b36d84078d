// Archive readers as streams (the decoded payload of a verified package passes through once): a tar
// (ustar/pax/GNU long names) or cpio newc stream in, the one wanted regular file's bytes out to the
// caller's writer as they arrive, with a size bound. Only a partial header is ever buffered. The first
// member with the wanted name counts; the rest of the stream is read and dropped.
import type { ByteSink } from '../platform/proc.ts';
import { paxRecords, tarNumber } from './archive.ts';

export interface FileOut {
  write(chunk: Uint8Array): void;
}

/** The stream sink and, once it has finished, why the file was not written (undefined: it was, whole). */
export interface Extractor {
  sink: ByteSink;
  problem(): string | undefined;
}

const META_CAP = 1024 * 1024;
const normalise = (name: string) => name.replace(/^\.\//, '').replace(/^\/+/, '');
const cString = (b: Buffer) => b.toString('latin1').replace(/\0.*$/s, '');

/** Feeds fixed-size headers to `take` and streams bodies; subclasses set what comes next. */
abstract class Parser {
  private pending: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private bodyTo: ((bytes: Buffer) => void) | undefined;
  private bodyEnd: (() => void) | undefined;
  offset = 0;
  finished = false;
  result: string | undefined = 'not found';

  /** The member to extract, its size limit, and where its bytes go. */
  constructor(
    protected readonly wanted: string,
    protected readonly maxBytes: number,
    protected readonly out: FileOut,
  ) {}

  protected abstract needed(): number;
  protected abstract take(header: Buffer): void;

  protected body(size: number, to?: (bytes: Buffer) => void, end?: () => void): void {
    this.bodyLeft = size;
    this.bodyTo = to;
    this.bodyEnd = end;
    if (size === 0) end?.();
  }

  /** `chunk` may be a reused buffer: only copies of it are kept. */
  feed(chunk: Uint8Array): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let pos = 0;
    while (pos < buf.length && !this.finished) {
      if (this.bodyLeft > 0) {
        const n = Math.min(this.bodyLeft, buf.length - pos);
        this.bodyTo?.(buf.subarray(pos, pos + n));
        pos += n;
        this.offset += n;
        this.bodyLeft -= n;
        if (this.bodyLeft === 0) this.bodyEnd?.();
        continue;
      }
      const need = this.needed();
      if (buf.length - pos < need) break;
      const header = buf.subarray(pos, pos + need);
      pos += need;
      this.offset += need;
      this.take(header);
    }
    buf = this.finished ? Buffer.alloc(0) : buf.subarray(pos);
    this.pending = Buffer.from(buf);
  }

  /** The wanted member: its `size` bytes (of `padded`) go to `out`, then the parser stops, done. */
  protected emit(size: number, padded: number): void {
    const { wanted, maxBytes, out } = this;
    if (size > maxBytes) return this.stop(`${wanted} is ${size} bytes, above the ${maxBytes}-byte limit`);
    let left = size;
    this.body(
      padded,
      (b) => {
        const part = b.subarray(0, Math.max(0, Math.min(b.length, left)));
        left -= part.length;
        if (part.length) out.write(part);
      },
      () => this.stop(undefined),
    );
  }

  stop(result: string | undefined): void {
    this.result = result;
    this.finished = true;
  }

  truncated(): boolean {
    return this.bodyLeft > 0 || this.pending.length > 0;
  }
}

function sinkFor(parser: Parser, wanted: string): Extractor {
  const sink: ByteSink = { write: (chunk) => void (parser.finished || parser.feed(chunk)) };
  return {
    sink,
    problem: () => {
      if (parser.finished) return parser.result;
      return parser.truncated() ? `truncated archive while reading ${wanted}` : `${wanted} is not in the package`;
    },
  };
}

class TarParser extends Parser {
  private longName: string | undefined;
  private pax = new Map<string, string>();
  protected needed(): number {
    return 512;
  }
  protected take(header: Buffer): void {
    if (header.every((b) => b === 0)) return this.stop(`${this.wanted} is not in the package`);
    const type = String.fromCharCode(header[156]!);
    const size = this.pax.has('size') ? Number(this.pax.get('size')) : tarNumber(header.subarray(124, 136));
    const prefix = cString(header.subarray(345, 500));
    const base = cString(header.subarray(0, 100));
    const name = this.pax.get('path') ?? this.longName ?? (prefix ? `${prefix}/${base}` : base);
    if (!Number.isSafeInteger(size) || size < 0) return this.stop(`corrupt tar header for ${name}`);
    const padded = Math.ceil(size / 512) * 512;
    if (type === 'x' || type === 'L') {
      if (size > META_CAP) return this.stop(`tar ${type === 'x' ? 'pax' : 'long-name'} header of ${size} bytes`);
      const parts: Buffer[] = [];
      return this.body(
        padded,
        (b) => parts.push(Buffer.from(b)),
        () => {
          const data = Buffer.concat(parts).subarray(0, size);
          if (type === 'x') this.pax = paxRecords(data);
          else this.longName = cString(data);
        },
      );
    }
    if (type !== 'g') {
      this.longName = undefined;
      this.pax = new Map();
    }
    if (type === 'g' || normalise(name) !== normalise(this.wanted)) return this.body(padded);
    if (type !== '0' && type !== '\0')
      return this.stop(`${this.wanted} is not a regular file in the package (tar type ${JSON.stringify(type)})`);
    this.emit(size, padded);
  }
}

/** The regular file `wanted` of a tar stream, written to `out` as it streams by. */
export function tarExtractor(wanted: string, maxBytes: number, out: FileOut): Extractor {
  return sinkFor(new TarParser(wanted, maxBytes, out), wanted);
}

class CpioParser extends Parser {
  private nameSize = 0;
  private size = 0;
  private mode = 0;
  private start = 0;
  private phase: 'fixed' | 'name' = 'fixed';
  protected needed(): number {
    if (this.phase === 'fixed') return 110;
    return Math.ceil((this.start + 110 + this.nameSize) / 4) * 4 - (this.start + 110);
  }
  protected take(header: Buffer): void {
    if (this.phase === 'fixed') {
      const magic = header.subarray(0, 6).toString('latin1');
      if (magic !== '070701' && magic !== '070702') return this.stop(`corrupt cpio header at byte ${this.offset - 110}`);
      const hex = (i: number) => parseInt(header.subarray(6 + i * 8, 14 + i * 8).toString('latin1'), 16);
      [this.mode, this.size, this.nameSize, this.start] = [hex(1), hex(6), hex(11), this.offset - 110];
      if (!(this.nameSize > 0 && this.nameSize <= 4096) || !Number.isSafeInteger(this.size)) return this.stop('corrupt cpio header');
      this.phase = 'name';
      return;
    }
    this.phase = 'fixed';
    const name = header.subarray(0, this.nameSize - 1).toString('utf8');
    if (name === 'TRAILER!!!') return this.stop(`${this.wanted} is not in the package`);
    const padded = Math.ceil((this.offset + this.size) / 4) * 4 - this.offset;
    if (normalise(name) !== normalise(this.wanted)) return this.body(padded);
    if ((this.mode & 0o170000) !== 0o100000) return this.stop(`${this.wanted} is not a regular file in the package`);
    this.emit(this.size, padded);
  }
}

/** The regular file `wanted` of a cpio newc/crc stream (rpm payload), written to `out` as it streams by. */
export function cpioExtractor(wanted: string, maxBytes: number, out: FileOut): Extractor {
  return sinkFor(new CpioParser(wanted, maxBytes, out), wanted);
}

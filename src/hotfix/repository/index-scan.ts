// Reading a package index as it streams by (Packages stanzas, primary.xml <package> blocks): the bytes
// are cut into records at `separator` and only the records naming one of our packages are kept (and
// decoded to text), so an index of thousands of entries never sits in memory whole. A record longer than
// MAX_RECORD is refused.
import type { Compression } from '../../formats/release.ts';
import type { ByteSink } from '../../platform/proc.ts';
import { type FastPathContext, timeLeft } from './context.ts';
import { decode } from './decompress.ts';
import { integrityError } from './errors.ts';
import { type Expected, type Fetcher, SIZE_CAPS } from './fetcher.ts';

const MAX_RECORD = 1024 * 1024;

export interface IndexScan {
  sink: ByteSink;
  /** The kept records, each ending with the separator. */
  kept(): string;
}

export function scanIndex(what: string, separator: string, marker: string): IndexScan {
  const sep = Buffer.from(separator);
  const wanted = Buffer.from(marker);
  const kept: string[] = [];
  let carry: Buffer = Buffer.alloc(0);
  const keep = (record: Buffer) => {
    if (record.includes(wanted)) kept.push(record.toString('utf8'));
  };
  const grow = (more: Uint8Array) => {
    carry = Buffer.concat([carry, more]);
    if (carry.length > MAX_RECORD) throw integrityError(`${what}: a record longer than ${MAX_RECORD} bytes`);
  };
  // `chunk` may be a reused buffer: records are cut from it in place and only the partial record at its
  // end is copied (never the whole chunk: a 4.7 MB index would leave its size again in garbage).
  const consume = (bytes: Uint8Array, last: boolean) => {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    let start = 0;
    if (carry.length) {
      // The record carried over ends at the first separator, which may start in the carried bytes.
      const tail = carry.subarray(Math.max(0, carry.length - (sep.length - 1)));
      const straddle = Buffer.concat([tail, chunk.subarray(0, sep.length - 1)]).indexOf(sep);
      const found = chunk.indexOf(sep);
      const end = straddle >= 0 && straddle < tail.length ? straddle + sep.length - tail.length : found >= 0 ? found + sep.length : -1;
      if (end < 0) {
        grow(chunk);
        if (last) keep(carry);
        return;
      }
      keep(Buffer.concat([carry, chunk.subarray(0, end)]));
      carry = Buffer.alloc(0);
      start = end;
    }
    for (let end = chunk.indexOf(sep, start); end >= 0; end = chunk.indexOf(sep, start)) {
      keep(chunk.subarray(start, end + sep.length));
      start = end + sep.length;
    }
    grow(chunk.subarray(start));
    if (last) keep(carry);
  };
  const sink: ByteSink = { write: (chunk) => consume(chunk, false), end: () => consume(new Uint8Array(0), true) };
  return { sink, kept: () => kept.join('') };
}

export interface IndexFetch {
  url: URL;
  /** Names the index in errors and its scratch file (`main/binary-amd64/Packages.xz`, `repodata/...`). */
  what: string;
  compression: Compression;
  /** The signed size and SHA-256 (Release, repomd.xml). */
  expected: Expected;
  separator: string;
  marker: string;
}

/**
 * The records of our packages in a package index: fetched into the scratch directory and checked against
 * the signed size and SHA-256 before a byte of it is decompressed, then scanned as a stream.
 */
export async function fetchAndScanIndex(ctx: FastPathContext, fetcher: Fetcher, index: IndexFetch): Promise<string> {
  const file = ctx.scratch.file(`index-${index.what.replace(/[^\w.-]+/g, '_')}`);
  const size = await fetcher.download(index.url, SIZE_CAPS.index, index.expected, file);
  const scan = scanIndex(index.what, index.separator, index.marker);
  await decode(ctx.deps, {
    compression: index.compression,
    input: { file, offset: 0, length: size },
    sink: scan.sink,
    scratchDir: ctx.scratch.dir,
    maxBytes: SIZE_CAPS.index,
    what: index.what,
    timeoutMs: timeLeft(ctx),
  });
  ctx.deps.fs.unlink(file);
  return scan.kept();
}

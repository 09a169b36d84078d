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
  const consume = (chunk: Uint8Array, last: boolean) => {
    // `chunk` may be a reused buffer: only copies of it (carry, the kept records' text) outlive the call.
    const buf = carry.length ? Buffer.concat([carry, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let at = 0;
    for (let end = buf.indexOf(sep, at); end >= 0; end = buf.indexOf(sep, at)) {
      const record = buf.subarray(at, end + sep.length);
      if (record.includes(wanted)) kept.push(record.toString('utf8'));
      at = end + sep.length;
    }
    carry = Buffer.from(buf.subarray(at));
    if (last && carry.includes(wanted)) kept.push(carry.toString('utf8'));
    if (carry.length > MAX_RECORD) throw integrityError(`${what}: a record longer than ${MAX_RECORD} bytes`);
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

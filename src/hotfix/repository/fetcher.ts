// Every download of the fast path goes through here: the URL rules (url-rules.ts), a byte cap per kind
// of file, the fast path's own deadline, the node's proxy, and size + SHA-256 checks against what signed
// metadata promised. Refused URLs, refused redirects, oversized answers and digest mismatches are
// integrity failures; an unreachable, failing or hanging server only makes the path unavailable.
import { sha256Hex } from '../../platform/hash.ts';
import type { Deps } from '../../platform/deps.ts';
import type { HashingWriter } from '../../platform/file-stream.ts';
import { integrityError, unavailableError } from './errors.ts';
import { urlRuleViolation } from './url-rules.ts';

/** Byte caps: signed metadata states exact sizes, these bound what it may state (and unsigned files). */
export const SIZE_CAPS = {
  signedMetadata: 4 * 1024 * 1024, // InRelease, repomd.xml (+ .asc): a few KiB in the Microsoft repos
  index: 256 * 1024 * 1024, // Packages / primary, any compression
  package: 512 * 1024 * 1024,
  binary: 512 * 1024 * 1024,
} as const;

export interface Expected {
  /** Undefined when the signed metadata states only a digest (repomd without <size>). */
  size?: number;
  /** Lowercase hex. */
  sha256: string;
}

export interface Trace {
  path: 'none' | 'delta' | 'repository' | 'apt-get' | 'dnf' | 'tdnf';
  fetchedBytes: number;
  /** Size of the package the node took (the delta package or the full one); fetchedBytes adds the metadata. */
  packageBytes?: number;
  /** Stage name -> milliseconds. */
  stages: Record<string, number>;
  /** The file being fetched now (`InRelease`, a package), for the heartbeat; cleared when it arrived. */
  fetching?: string;
}

export interface Fetcher {
  get(url: URL, cap: number, expected?: Expected): Promise<Buffer>;
  /**
   * Streams the answer into a new file at `path` (created exclusively, 0600), then checks its size and
   * SHA-256 against `expected`; on any failure the file is removed. Returns its size.
   */
  download(url: URL, cap: number, expected: Expected, path: string): Promise<number>;
}

export function createFetcher(deps: Deps, base: URL, proxy: string | undefined, deadlineAt: number, trace: Trace): Fetcher {
  const allowed = (url: URL) => urlRuleViolation(base, url) === undefined;
  async function fetch(url: URL, cap: number, expected: Expected | undefined, toFile?: HashingWriter) {
    const violation = urlRuleViolation(base, url);
    if (violation) throw integrityError(`refusing ${violation}`);
    const timeoutMs = deadlineAt - deps.clock.now().getTime();
    if (timeoutMs <= 0) throw unavailableError(`no time left to fetch ${url}`);
    const maxBytes = expected?.size !== undefined ? Math.min(expected.size, cap) : cap;
    if (expected?.size !== undefined && expected.size > cap)
      throw integrityError(`${url}: signed metadata states ${expected.size} bytes, above the ${cap}-byte limit`);
    trace.fetching = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? url.host);
    const result = await deps.http.get(url, {
      maxBytes,
      timeoutMs,
      proxy,
      allowRedirect: allowed,
      onBytes: (n) => void (trace.fetchedBytes += n),
      toFile: toFile && { fd: toFile.fd!, write: (chunk) => toFile.write(chunk) },
    });
    trace.fetching = undefined;
    if (!result.ok) {
      if (result.kind === 'too-large' && expected?.size !== undefined && expected.size <= cap) {
        throw integrityError(`${url}: larger than the signed size ${expected.size}`);
      }
      if (result.kind === 'redirect' || result.kind === 'too-large') throw integrityError(result.message);
      throw unavailableError(result.message);
    }
    return result.body;
  }
  const check = (url: URL, expected: Expected, size: number, digest: string) => {
    if (expected.size !== undefined && size !== expected.size) {
      throw integrityError(`${url}: size ${size} does not match the signed size ${expected.size}`);
    }
    if (digest !== expected.sha256) throw integrityError(`${url}: SHA-256 ${digest} does not match the signed ${expected.sha256}`);
  };
  return {
    async get(url, cap, expected) {
      const body = await fetch(url, cap, expected);
      if (expected) check(url, expected, body.length, sha256Hex(body));
      return body;
    },
    async download(url, cap, expected, path) {
      // A scratch file: no fsync. Hashed once it is whole (read back from the page cache with one buffer).
      const file = deps.fs.createHashingWriter(path, 0o600, { hash: false, durable: false });
      try {
        await fetch(url, cap, expected, file);
        file.close();
        const written = deps.fs.sha256OfFile(path);
        check(url, expected, written.size, written.sha256);
        return written.size;
      } catch (error) {
        file.discard();
        throw error;
      }
    },
  };
}

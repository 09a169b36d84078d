// Bounded HTTP GET for the hotfix repository fast path: a byte cap (checked against Content-Length and
// while streaming), one deadline for headers and body (a server that stops sending is cut off), redirects
// handed to the caller one hop at a time so it can refuse any that leave the repository, and an explicit
// proxy (bun's fetch `proxy` option; the node's own apt/dnf proxy setting is resolved by the caller).
// Failures are returned, not thrown: the caller decides what is final and what falls back.
import { redactText } from './secret.ts';

export interface HttpGetOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Proxy URL to send the request through (undefined: direct, or what the runtime's env says). */
  proxy?: string;
  /** Asked for every redirect target; returning false stops with a `redirect` failure. */
  allowRedirect(target: URL): boolean;
  /** Called with every body chunk's size (fetched-bytes telemetry). */
  onBytes?(count: number): void;
  /**
   * Streams the body into this open file (within the cap) and the result's body stays empty. Under bun, an
   * answer with a Content-Length and no Content-Encoding is written by the runtime itself (no chunk
   * reaches JavaScript: nothing to collect, measured 22 ms and +3 MiB for 43 MB on loopback); any other
   * answer goes chunk by chunk through the cap.
   */
  toFile?: { fd: number; write(chunk: Uint8Array): void };
}

export type HttpFailureKind = 'network' | 'timeout' | 'status' | 'too-large' | 'redirect';

export type HttpResult = { ok: true; body: Buffer; url: URL } | { ok: false; kind: HttpFailureKind; message: string; url: URL };

export interface HttpClient {
  get(url: URL, options: HttpGetOptions): Promise<HttpResult>;
}

const MAX_REDIRECTS = 5;

interface BunFileWriter {
  file(fd: number): unknown;
  write(destination: unknown, response: Response): Promise<number>;
}
const bun = (globalThis as { Bun?: BunFileWriter }).Bun;

export async function httpGet(start: URL, options: HttpGetOptions): Promise<HttpResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let url = start;
  try {
    for (let hop = 0; ; hop++) {
      const init: RequestInit & { proxy?: string } = { redirect: 'manual', signal: controller.signal };
      if (options.proxy) init.proxy = options.proxy;
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (error) {
        return failure(controller, 'network', url, `GET ${url}: ${describeFetchError(error, options.proxy)}`);
      }
      if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
        await response.body?.cancel().catch(() => undefined);
        const target = new URL(response.headers.get('location')!, url);
        if (hop >= MAX_REDIRECTS)
          return { ok: false, kind: 'redirect', url, message: `GET ${start}: more than ${MAX_REDIRECTS} redirects` };
        if (!options.allowRedirect(target))
          return { ok: false, kind: 'redirect', url, message: `GET ${url}: redirect to ${target} refused` };
        url = target;
        continue;
      }
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        return { ok: false, kind: 'status', url, message: `GET ${url}: HTTP ${response.status}` };
      }
      return await readCapped(response, url, options, controller);
    }
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(response: Response, url: URL, options: HttpGetOptions, controller: AbortController): Promise<HttpResult> {
  const tooLarge = (size: number): HttpResult => ({
    ok: false,
    kind: 'too-large',
    url,
    message: `GET ${url}: response of ${size} bytes exceeds the ${options.maxBytes}-byte limit`,
  });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return tooLarge(declared);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const encoding = response.headers.get('content-encoding');
  if (options.toFile && bun && Number.isFinite(declared) && (!encoding || encoding === 'identity')) {
    // The runtime reads exactly Content-Length bytes (checked above against the cap) into the file.
    try {
      size = await bun.write(bun.file(options.toFile.fd), response);
    } catch (error) {
      return failure(controller, 'network', url, `GET ${url}: reading the body: ${describeFetchError(error, options.proxy)}`);
    }
    options.onBytes?.(size);
    // A connection that ends early is the network's fault, not a body that fails its digest.
    if (size !== declared) return failure(controller, 'network', url, `GET ${url}: the body ended after ${size} of ${declared} bytes`);
    return { ok: true, body: Buffer.alloc(0), url };
  }
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      options.onBytes?.(value.length);
      if (size > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        return tooLarge(size);
      }
      if (options.toFile) options.toFile.write(value);
      else chunks.push(value);
    }
  } catch (error) {
    return failure(
      controller,
      'network',
      url,
      `GET ${url}: reading the body after ${size} bytes: ${describeFetchError(error, options.proxy)}`,
    );
  }
  return { ok: true, body: options.toFile ? Buffer.alloc(0) : Buffer.concat(chunks, size), url };
}

function failure(controller: AbortController, kind: HttpFailureKind, url: URL, message: string): HttpResult {
  if (controller.signal.aborted) return { ok: false, kind: 'timeout', url, message: `${message} (deadline reached)` };
  return { ok: false, kind, url, message };
}

/** The runtime's error text, with the proxy password (raw, %-decoded, encoded forms) blanked: it is logged. */
export function describeFetchError(error: unknown, proxy: string | undefined): string {
  const cause = (error as { cause?: unknown }).cause;
  const text = error instanceof Error ? error.message : String(error);
  const full = cause instanceof Error && cause.message !== text ? `${text} (${cause.message})` : text;
  return redactText(full, proxyPasswords(proxy));
}

function proxyPasswords(proxy: string | undefined): string[] {
  if (proxy === undefined) return [];
  try {
    const { password } = new URL(proxy);
    if (password === '') return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // not %-encoded text: the raw form is all there is
    }
    return [password, decoded];
  } catch {
    return [];
  }
}

export function createHttpClient(): HttpClient {
  return { get: httpGet };
}

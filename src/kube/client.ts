// The apiserver HTTPS client check-hotfix needs (spec 6.6, D1): one GET with Node's own TLS (BoringSSL in
// the compiled binary, OpenSSL under node), trusting only the cluster CA when one is given, verifying the
// host name, presenting a client certificate when both halves exist. Never a proxy: a bare
// https.request with `agent: false` ignores HTTP(S)_PROXY (checked against a live proxy in the e2e
// tests). ONE deadline bounds everything: DNS, connect, TLS, headers and the body (a server that accepts
// and never answers, or drips the body, is cut off at the deadline). node:https loads lazily: it is the
// most expensive import of the whole binary and only this command needs it.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { ensurePort, isIpLiteral, splitHostPort, type HostPort } from './address.ts';
import { resolveCredentials, type ApiCredentials } from './credentials.ts';
import { goText } from '../platform/go/utf8.ts';

export const HOTFIX_CONFIGMAP_PATH = '/api/v1/namespaces/kube-system/configmaps/anc-hotfix-version';
export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_BODY_BYTES = 1024 * 1024;

export interface GetOptions {
  timeoutMs?: number;
  maxBodyBytes?: number;
  userAgent?: string;
  /** The whole bound the message names when part of it was spent before the request (default timeoutMs). */
  boundMs?: number;
  /** A keep-alive agent shared by several requests (paged lists): one connection, one TLS handshake. */
  agent?: import('node:https').Agent;
  /** Accept header (default application/json), e.g. a PartialObjectMetadataList. */
  accept?: string;
  /** Send Accept-Encoding: gzip and decode a gzip answer (the bound applies to the decoded body). */
  gzip?: boolean;
  /** What to say when the body passes maxBodyBytes (default: the reference's wording, the code's hint). */
  tooLarge?: { message: string; hint: string };
}

export interface WriteOptions extends GetOptions {
  method: 'PATCH' | 'PUT' | 'POST';
  body: string;
  /** e.g. application/merge-patch+json (RFC 7386) for a PATCH. */
  contentType: string;
}

function kubeError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_KUBE', message, cause === undefined ? {} : { cause });
}

/** A transport error as text: the message plus the code when the message does not already carry it. */
function describe(error: unknown): string {
  const message = errorMessage(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' && !message.includes(code) ? `${message} (${code})` : message;
}

/** Credentials (node config, then kubeconfigs) and one GET of the anc-hotfix-version ConfigMap. */
export async function fetchHotfixConfigMap(
  deps: Pick<Deps, 'fs' | 'paths' | 'log' | 'version'>,
  options: GetOptions = {},
): Promise<string> {
  // The request bound starts before the first read: reading and parsing the credentials count against it.
  const bound = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = Date.now();
  const creds = await resolveCredentials(deps);
  targetOf(creds.server); // validate before the address is logged
  deps.log.info('reading anc-hotfix-version ConfigMap', { server: creds.server, credentials: creds.source });
  const remaining = Math.max(0, bound - (Date.now() - started));
  return apiGet(creds, HOTFIX_CONFIGMAP_PATH, {
    userAgent: `aks-node-controller/${deps.version}`,
    ...options,
    timeoutMs: remaining,
    boundMs: bound,
  });
}

/** GET https://<server><path>; resolves with the body of a 2xx answer, rejects with an AgentError. */
export function apiGet(creds: ApiCredentials, path: string, options: GetOptions = {}): Promise<string> {
  return apiRequest(creds, path, options);
}

/** PATCH/PUT/POST with a body, under the same single deadline; resolves with the 2xx answer's body. */
export function apiWrite(creds: ApiCredentials, path: string, options: WriteOptions): Promise<string> {
  return apiRequest(creds, path, options);
}

async function apiRequest(creds: ApiCredentials, path: string, options: GetOptions & Partial<WriteOptions>): Promise<string> {
  const method = options.method ?? 'GET';
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const url = `https://${creds.server}${path}`;
  const target = targetOf(creds.server);
  if (creds.ca && !hasPemCertificate(creds.ca)) throw kubeError('failed to parse cluster CA PEM');
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.gzip) headers['Accept-Encoding'] = 'gzip';
  if (options.userAgent) headers['User-Agent'] = options.userAgent;
  if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(options.body));
  }
  if (creds.token) headers.Authorization = `Bearer ${creds.token.reveal()}`;
  const mtls = creds.clientCert !== undefined && creds.clientKey !== undefined;
  const https = await import('node:https');
  const gunzip = options.gzip ? (await import('node:zlib')).createGunzip : undefined;
  return new Promise<string>((resolve, reject) => {
    let request: import('node:http').ClientRequest | undefined;
    let settled = false;
    const finish = (error: AgentError | undefined, body?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A kept-alive connection goes back to its agent after a complete answer.
      if (error || !options.agent) request?.destroy();
      if (error) reject(error);
      else resolve(body ?? '');
    };
    const seconds = Math.round((options.boundMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 100) / 10;
    const timer = setTimeout(
      () => finish(kubeError(`${method} ${url}: no complete answer within ${seconds} s`)),
      Math.max(0, deadline - Date.now()),
    );
    try {
      request = https.request(
        {
          host: target.host,
          port: target.port,
          path,
          method,
          headers,
          agent: options.agent ?? false,
          minVersion: 'TLSv1.2',
          rejectUnauthorized: true,
          ...(isIpLiteral(target.host) ? {} : { servername: target.host }),
          ...(creds.ca ? { ca: creds.ca } : {}),
          ...(mtls ? { cert: creds.clientCert, key: creds.clientKey!.reveal() } : {}),
        },
        (response) => readResponse(response, url, maxBytes, finish, method !== 'GET', options.tooLarge, gunzip),
      );
    } catch (error) {
      finish(kubeError(mtls ? `loading client key pair: ${describe(error)}` : `building apiserver client: ${describe(error)}`, error));
      return;
    }
    request.on('error', (error) => finish(kubeError(`${method} ${url}: ${describe(error)}`, error)));
    request.end(options.body);
  });
}

/**
 * At least one well-formed `CERTIFICATE` PEM block (base64 of a DER SEQUENCE), like Go's
 * AppendCertsFromPEM succeeding. Without one, TLS would silently trust nothing.
 */
export function hasPemCertificate(pem: Buffer): boolean {
  const blocks = pem.toString('latin1').matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g);
  for (const [, body] of blocks) {
    const der = Buffer.from(body!.replace(/\s+/g, ''), 'base64');
    if (der.length > 64 && der[0] === 0x30) return true;
  }
  return false;
}

/** Host and port to dial; a kubeconfig `server` without a port means 443, as for any https URL. */
export function targetOf(server: string): HostPort {
  // `user:password@host` would put a password into logs and messages (D14): refuse it without echoing.
  if (server.includes('@')) throw kubeError('invalid apiserver address (user info in the server address is not supported)');
  const target = splitHostPort(ensurePort(server, '443'));
  if (!target) throw kubeError(`invalid apiserver address ${JSON.stringify(server)} (expected host[:port])`);
  return target;
}

function readResponse(
  response: import('node:http').IncomingMessage,
  url: string,
  maxBytes: number,
  finish: (error: AgentError | undefined, body?: string) => void,
  /** Writes add the Status message (the reference's GET message is a contract and stays as it is). */
  withReason = false,
  tooLargeError?: { message: string; hint: string },
  gunzip?: () => import('node:stream').Transform,
): void {
  const status = response.statusCode ?? 0;
  if (status < 200 || (status > 299 && !withReason)) {
    response.resume();
    finish(kubeError(`apiserver returned status ${status} for ${url}`));
    return;
  }
  if (status < 200 || status > 299) {
    // The Status body's message says why (403: which rule refused); read a little of it, bounded.
    const parts: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < 4096) parts.push(chunk);
      size += chunk.length;
    });
    const done = () => {
      let why = '';
      try {
        const message = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { message?: unknown }).message;
        if (typeof message === 'string' && message !== '') why = `: ${message.slice(0, 300)}`;
      } catch {}
      finish(kubeError(`apiserver returned status ${status} for ${url}${why}`));
    };
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
    return;
  }
  const tooLarge = () =>
    tooLargeError
      ? new AgentError('ANC_KUBE', tooLargeError.message, { hint: tooLargeError.hint })
      : kubeError(`apiserver response for ${url} exceeds ${maxBytes} bytes`);
  const gzipped = gunzip !== undefined && /^\s*gzip\s*$/i.test(String(response.headers['content-encoding'] ?? ''));
  const declared = Number(response.headers['content-length'] ?? NaN);
  if (declared > maxBytes && !gzipped) {
    finish(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // A gzip answer is decoded as it arrives; the bound counts the decoded bytes (what is held).
  const body: import('node:stream').Readable = gzipped ? response.pipe(gunzip()) : response;
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) finish(tooLarge());
    else chunks.push(chunk);
  });
  const truncated = () => finish(kubeError(`apiserver response for ${url} was cut off after ${size} bytes`));
  response.on('aborted', truncated);
  response.on('error', truncated);
  if (gzipped) body.on('error', (error) => finish(kubeError(`apiserver response for ${url}: bad gzip body: ${describe(error)}`, error)));
  body.on('end', () => {
    if (!response.complete) truncated();
    // N7: client-go decodes the body with encoding/json's rules: one U+FFFD per invalid byte.
    else finish(undefined, goText(Buffer.concat(chunks)));
  });
  response.on('close', () => {
    if (!response.complete) truncated();
  });
}

// A long-lived GET whose answer is a stream of JSON lines: the apiserver's watch (one event per line,
// bookmarks included). Its own connection (HTTP/1.1 cannot share one with the paged reads while it
// lasts), the same TLS rules as client.ts, gzip when the server compresses. No overall deadline: the
// stream lives as long as the server keeps it (the request's timeoutSeconds); an idle bound cuts a
// stream on which nothing, not even a bookmark, arrived for too long. Each line is bounded.
import { AgentError, errorMessage } from '../platform/errors.ts';
import { isIpLiteral } from './address.ts';
import { hasPemCertificate, targetOf } from './client.ts';
import type { ApiCredentials } from './credentials.ts';

export interface StreamOptions {
  userAgent?: string;
  accept?: string;
  /** Cut the stream when nothing arrived for this long. */
  idleMs: number;
  maxLineBytes: number;
  /** Called for each complete line, in order; a throw ends the stream with that error. */
  onLine(line: string): void;
  /** Aborts the stream (resolves). */
  signal?: AbortSignal;
}

const kubeError = (message: string, cause?: unknown) => new AgentError('ANC_KUBE', message, cause === undefined ? {} : { cause });

/** Resolves when the server ends the stream cleanly (or on abort); rejects when it breaks. */
export async function apiStream(creds: ApiCredentials, path: string, options: StreamOptions): Promise<void> {
  const url = `https://${creds.server}${path}`;
  const target = targetOf(creds.server);
  if (creds.ca && !hasPemCertificate(creds.ca)) throw kubeError('failed to parse cluster CA PEM');
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json', 'Accept-Encoding': 'gzip' };
  if (options.userAgent) headers['User-Agent'] = options.userAgent;
  if (creds.token) headers.Authorization = `Bearer ${creds.token.reveal()}`;
  const mtls = creds.clientCert !== undefined && creds.clientKey !== undefined;
  const https = await import('node:https');
  const { createGunzip } = await import('node:zlib');
  return new Promise<void>((resolve, reject) => {
    let request: import('node:http').ClientRequest | undefined;
    let settled = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const finish = (error?: AgentError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', onAbort);
      request?.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => finish();
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(kubeError(`GET ${url}: nothing arrived on the watch for ${options.idleMs / 1000} s`)), options.idleMs);
    };
    if (options.signal?.aborted) return finish();
    options.signal?.addEventListener('abort', onAbort);
    arm();
    try {
      request = https.request(
        {
          host: target.host,
          port: target.port,
          path,
          method: 'GET',
          headers,
          agent: false,
          minVersion: 'TLSv1.2',
          rejectUnauthorized: true,
          ...(isIpLiteral(target.host) ? {} : { servername: target.host }),
          ...(creds.ca ? { ca: creds.ca } : {}),
          ...(mtls ? { cert: creds.clientCert, key: creds.clientKey!.reveal() } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) {
            response.resume();
            return finish(kubeError(`apiserver returned status ${status} for ${url}`));
          }
          const gz = /^\s*gzip\s*$/i.test(String(response.headers['content-encoding'] ?? ''));
          const body: import('node:stream').Readable = gz ? response.pipe(createGunzip()) : response;
          let pending: Buffer[] = [];
          let size = 0;
          body.on('data', (chunk: Buffer) => {
            arm();
            let start = 0;
            for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
              pending.push(chunk.subarray(start, nl));
              const line = Buffer.concat(pending).toString('utf8');
              pending = [];
              size = 0;
              start = nl + 1;
              try {
                if (line.trim() !== '') options.onLine(line);
              } catch (error) {
                return finish(error instanceof AgentError ? error : kubeError(errorMessage(error), error));
              }
              if (settled) return;
            }
            size += chunk.length - start;
            if (size > options.maxLineBytes) return finish(kubeError(`one watch event from ${url} is over ${options.maxLineBytes} bytes`));
            if (start < chunk.length) pending.push(chunk.subarray(start));
          });
          body.on('error', (error) => finish(kubeError(`GET ${url}: the watch stream broke: ${errorMessage(error)}`, error)));
          response.on('aborted', () => finish(kubeError(`GET ${url}: the watch stream was cut off`)));
          body.on('end', () => (response.complete ? finish() : finish(kubeError(`GET ${url}: the watch stream was cut off`))));
        },
      );
    } catch (error) {
      return finish(kubeError(`building apiserver client: ${errorMessage(error)}`, error));
    }
    request.on('error', (error) => finish(kubeError(`GET ${url}: ${errorMessage(error)}`, error)));
    request.end();
  });
}

// Apiserver address normalisation (spec 6.6): kubeconfig `server` URLs and node-config host names both
// end up as `host:port` for https://<server>/api/...
import { goTrimSpace } from '../platform/go/strings.ts';

/** Removes a leading `https://`, then a leading `http://`, then every trailing `/` (a path stays). */
export function stripScheme(server: string): string {
  let out = server;
  if (out.startsWith('https://')) out = out.slice('https://'.length);
  if (out.startsWith('http://')) out = out.slice('http://'.length);
  return out.replace(/\/+$/, '');
}

/**
 * `host` -> `host:<port>`; an existing port is kept. The text after the last `:` counts as a port only
 * when it has no `]`, so an IPv6 literal in brackets gets the port (`[::1]` -> `[::1]:443`).
 */
export function ensurePort(server: string, port: string): string {
  const host = goTrimSpace(stripScheme(goTrimSpace(server)));
  if (host === '') return '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !host.slice(colon + 1).includes(']')) return host;
  return `${host}:${port}`;
}

export interface HostPort {
  /** Host name or IP address, without IPv6 brackets. */
  host: string;
  port: number;
}

/** Splits `host:port` / `[v6]:port` for the socket layer; undefined when it is not that shape. */
export function splitHostPort(server: string): HostPort | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\]|([^:/\s[\]]+)):(\d{1,5})$/.exec(server);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** True for an IPv4 or IPv6 literal (a TLS server name must not be one, RFC 6066). */
export function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

// URL rules of the fast path (pure): every URL stays under the repository's base URI; HTTPS only, plain
// HTTP only to loopback, private or link-local hosts (as the reference agent); a redirect is followed
// only when it satisfies the same rules (so it never leaves the origin).

const PRIVATE_V4: Array<[number, number]> = [
  [0x7f000000, 8], // 127.0.0.0/8 loopback
  [0x0a000000, 8], // 10.0.0.0/8
  [0xac100000, 12], // 172.16.0.0/12
  [0xc0a80000, 16], // 192.168.0.0/16
  [0xa9fe0000, 16], // 169.254.0.0/16 link-local
];

function ipv4(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/**
 * The IPv4 address inside an IPv4-mapped IPv6 literal, in any spelling: `::ffff:127.0.0.1`,
 * `0:0:0:0:0:ffff:7f00:1`, and the `::ffff:7f00:1` a URL's hostname normalises them to.
 */
function mappedIpv4(host: string): number | undefined {
  if (!host.includes(':')) return undefined;
  let normal: string;
  try {
    normal = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(normal);
  return m ? ((Number.parseInt(m[1]!, 16) << 16) | Number.parseInt(m[2]!, 16)) >>> 0 : undefined;
}

/** Loopback, RFC 1918 private or link-local (IPv4 and IPv6 literals, and `localhost`). */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  const v4 = ipv4(host) ?? mappedIpv4(host);
  if (v4 !== undefined) return PRIVATE_V4.some(([net, bits]) => v4 >>> (32 - bits) === net >>> (32 - bits));
  return /^fe[89ab][0-9a-f]:/.test(host) || /^f[cd][0-9a-f]{2}:/.test(host);
}

/** Why `url` may not be fetched as part of the repository at `base`, or undefined when it may. */
export function urlRuleViolation(base: URL, url: URL): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url} is not HTTP(S)`;
  if (url.protocol === 'http:' && !isLocalHost(url.hostname)) {
    return `${url} is plain HTTP to a public host (HTTPS is required outside loopback/private/link-local)`;
  }
  if (url.origin !== base.origin) return `${url} leaves the repository origin ${base.origin}`;
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  if (!url.pathname.startsWith(prefix)) return `${url} is not under the repository base ${base.origin}${prefix}`;
  if (url.username || url.password) return `${url} carries credentials`;
  return undefined;
}

/** The base URI as a URL with a trailing slash (relative paths resolve beneath it). */
export function repositoryBase(uri: string): URL | undefined {
  try {
    const url = new URL(uri.endsWith('/') ? uri : `${uri}/`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves a path from repository metadata (`Filename`, `location href`) beneath `dir` of the repository.
 * Encoded separators and dot segments are refused before URL normalisation could hide them.
 */
export function resolveUnder(dir: URL, relative: string): URL | string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(relative) || relative.startsWith('/') || relative.startsWith('\\')) {
    return `${JSON.stringify(relative)} is not a relative path`;
  }
  if (relative.split('/').some((segment) => segment === '..') || /%2e|%2f|%5c/i.test(relative)) {
    return `${JSON.stringify(relative)} escapes the repository`;
  }
  return new URL(relative.split('/').map(encodeURIComponent).join('/'), dir);
}

// The proxy the node's own package manager would use (pure, over configuration text and the
// environment): apt's Acquire::{http,https}::Proxy (flat or nested apt.conf syntax, `DIRECT` = none,
// per-host overrides honoured), else the http_proxy/https_proxy variables apt also reads; dnf/tdnf's
// `proxy=` of the repository section, else of [main] (`_none_` = none), else the same variables.

type Env = Readonly<Record<string, string | undefined>>;

/** apt.conf text -> lower-cased full option name -> value (last assignment wins, as in apt). */
export function parseAptConf(text: string): Map<string, string> {
  const options = new Map<string, string>();
  const tokens =
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|\s)(\/\/|#)[^\n]*/g, '$1')
      .match(/"[^"]*"|[{};]|[^\s{};"]+/g) ?? [];
  const scope: string[] = [];
  let name: string[] = [];
  for (const token of tokens) {
    if (token === '{') {
      scope.push(name.join('::'));
      name = [];
      continue;
    }
    if (token === '}') {
      scope.pop();
      name = [];
      continue;
    }
    if (token === ';') {
      name = [];
      continue;
    }
    if (token.startsWith('"')) {
      const key = [...scope, ...name].filter(Boolean).join('::').toLowerCase();
      if (key) options.set(key, token.slice(1, -1));
      continue;
    }
    name.push(token);
  }
  return options;
}

function fromEnv(env: Env, scheme: 'http' | 'https'): string | undefined {
  const value = scheme === 'https' ? (env.https_proxy ?? env.HTTPS_PROXY) : (env.http_proxy ?? env.HTTP_PROXY);
  return value || undefined;
}

/** apt's choice for `url` given every apt.conf text in reading order. */
export function aptProxy(confTexts: string[], url: URL, env: Env): string | undefined {
  const options = new Map<string, string>();
  for (const text of confTexts) for (const [k, v] of parseAptConf(text)) options.set(k, v);
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const value = options.get(`acquire::${scheme}::proxy::${url.hostname.toLowerCase()}`) ?? options.get(`acquire::${scheme}::proxy`);
  if (value !== undefined) return value === 'DIRECT' || value === '' ? undefined : value;
  return fromEnv(env, scheme);
}

/** dnf/tdnf's choice: `proxy=` of the repo section, else of [main], else the environment. */
export function dnfProxy(repoProxy: string | undefined, mainProxy: string | undefined, url: URL, env: Env): string | undefined {
  const value = repoProxy ?? mainProxy;
  if (value !== undefined) return value === '_none_' || value === '' ? undefined : value;
  return fromEnv(env, url.protocol === 'https:' ? 'https' : 'http');
}

// HTTP proxy and custom CA trust (config-contract 3.2.11, 3.3.5, 3.3.6).
//
// Secret choice (D14): a proxy URL that carries user info (`http://user:pass@host`) holds a password, so
// HTTP_PROXY_URLS / HTTPS_PROXY_URLS and PROXY_VARS (which embeds them) become Secret values exactly when
// a URL has user info. Plain proxy URLs stay visible in the dry-run, where operators need them.
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, secret, stripNewlines, type EnvPart } from './format.ts';

/** `[scheme://]userinfo@host...`: an `@` inside the authority part. */
export function hasUserInfo(url: string): boolean {
  return /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#]*@/.test(url);
}

/** PROXY_VARS, built in the reference order (note the mixed-case variable names). */
export function proxyVars(httpProxy: string, httpsProxy: string, noProxy: readonly string[]): string {
  let p = '';
  if (httpProxy !== '') p = `export http_proxy="${httpProxy}";`;
  if (httpsProxy !== '') p = `export HTTPS_PROXY="${httpsProxy}"; ` + p;
  if (noProxy.length >= 1) p = `export NO_PROXY="${noProxy.join(',')}"; ` + p;
  return p;
}

export function proxyEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const proxy = config.httpProxyConfig ?? {};
  const http = proxy.httpProxy ?? '';
  const https = proxy.httpsProxy ?? '';
  const noProxy = proxy.noProxyEntries ?? [];
  const credentials = hasUserInfo(http) || hasUserInfo(https);
  const vars = proxyVars(http, https, noProxy);
  return {
    SHOULD_CONFIGURE_HTTP_PROXY: bool(http !== '' || https !== ''),
    SHOULD_CONFIGURE_HTTP_PROXY_CA: bool((proxy.proxyTrustedCa ?? '') !== ''),
    HTTP_PROXY_TRUSTED_CA: stripNewlines(proxy.proxyTrustedCa),
    HTTP_PROXY_URLS: hasUserInfo(http) ? secret(http) : http,
    HTTPS_PROXY_URLS: hasUserInfo(https) ? secret(https) : https,
    NO_PROXY_URLS: noProxy.join(','),
    PROXY_VARS: credentials ? secret(vars) : vars,
  };
}

/** SHOULD_CONFIGURE_CUSTOM_CA_TRUST, CUSTOM_CA_TRUST_COUNT and one CUSTOM_CA_CERT_<i> per element. */
export function customCaEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const certs = config.customCaCerts ?? [];
  const env: EnvPart = {
    SHOULD_CONFIGURE_CUSTOM_CA_TRUST: bool(certs.length >= 1),
    CUSTOM_CA_TRUST_COUNT: String(certs.length),
  };
  certs.forEach((cert, i) => {
    env[`CUSTOM_CA_CERT_${i}`] = stripNewlines(cert);
  });
  return env;
}

// The env's key set and the minimal-config values against config-fields.json (config-contract 3.2, 6.1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isSecret } from '../../../src/platform/secret.ts';
import { ENV_AREAS, buildCseEnv, composeEnv } from '../../../src/cse/env/index.ts';
import { hasUserInfo } from '../../../src/cse/env/proxy.ts';
import { NO_FACTS, PATHS, SPEC, cfg, env, envOf } from './support.ts';

const FIXED = Object.keys(SPEC.envVars).filter((k) => !SPEC.envVars[k]!.dynamic);

test('config-fields.json lists 164 fixed names plus the CUSTOM_CA_CERT_<i> pattern', () => {
  assert.is(Object.keys(SPEC.envVars).length, 165);
  assert.is(FIXED.length, 164);
  assert.ok(SPEC.envVars['CUSTOM_CA_CERT_<i>']!.dynamic);
});

test('the union of the area builders is exactly the 164 fixed names, each produced once', () => {
  const config = cfg({ version: 'v1' });
  const seen: string[] = [];
  for (const [, build] of ENV_AREAS) seen.push(...Object.keys(build(config, NO_FACTS, PATHS)));
  assert.is(new Set(seen).size, seen.length, 'a key is produced by two areas');
  assert.equal([...seen].sort(), [...FIXED].sort());
});

test('custom CA certs add CUSTOM_CA_CERT_<i> keys only, 0-based and unpadded', () => {
  const keys = Object.keys(envOf({ customCaCerts: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'] }));
  const extra = keys.filter((k) => !FIXED.includes(k)).sort();
  assert.equal(extra, Array.from({ length: 11 }, (_, i) => `CUSTOM_CA_CERT_${i}`).sort());
});

test('{"version":"v1"} yields every valueForMinimalConfig exactly', () => {
  const actual = env(cfg({ version: 'v1' }));
  assert.is(Object.keys(actual).length, 164);
  for (const name of FIXED) {
    assert.is(actual[name], SPEC.envVars[name]!.valueForMinimalConfig, name);
  }
});

test('the composer rejects a key produced twice', () => {
  assert.throws(
    () =>
      composeEnv([
        ['a', { X: '1' }],
        ['b', { X: '2' }],
      ]),
    /X is produced by both a and b/,
  );
});

test('exactly the four credential variables are Secret values (no proxy credentials)', () => {
  const raw = buildCseEnv(cfg({ version: 'v1', httpProxyConfig: { httpProxy: 'http://p:80' } }), NO_FACTS, PATHS);
  const secrets = Object.keys(raw)
    .filter((k) => isSecret(raw[k]))
    .sort();
  assert.equal(secrets, [
    'CUSTOM_SEARCH_REALM_PASSWORD',
    'KUBELET_CLIENT_CONTENT',
    'SERVICE_PRINCIPAL_FILE_CONTENT',
    'TLS_BOOTSTRAP_TOKEN',
  ]);
});

test('proxy URLs with user info become Secret values, PROXY_VARS too', () => {
  const raw = buildCseEnv(
    cfg({ version: 'v1', httpProxyConfig: { httpProxy: 'http://u:pw@p:80', httpsProxy: 'https://q:443' } }),
    NO_FACTS,
    PATHS,
  );
  assert.ok(isSecret(raw.HTTP_PROXY_URLS));
  assert.not.ok(isSecret(raw.HTTPS_PROXY_URLS));
  assert.ok(isSecret(raw.PROXY_VARS));
  assert.is(String(raw.PROXY_VARS), '<redacted>');
});

test('user info detection in proxy URLs', () => {
  for (const url of ['http://u:p@proxy:3128', 'https://user@proxy', 'u:p@proxy:80', 'socks5://a:b@h:1080/x'])
    assert.ok(hasUserInfo(url), url);
  for (const url of ['http://proxy:3128', 'http://proxy:3128/path@x', 'http://proxy/?q=a@b', '', 'proxy.example:3128'])
    assert.not.ok(hasUserInfo(url), url);
});

test('building the env does not mutate the configuration', () => {
  const config = cfg({
    version: 'v1',
    kubernetesVersion: '1.34.0',
    kubeletConfig: { kubeletFlags: { '--streaming-connection-idle-timeout': '4h' } },
  });
  const before = JSON.stringify(config);
  buildCseEnv(config, NO_FACTS, PATHS);
  assert.is(JSON.stringify(config), before);
});

test.run();

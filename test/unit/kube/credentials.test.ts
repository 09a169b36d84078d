// Credential order (D1, spec 6.6): node config -> bootstrap-kubeconfig -> kubeconfig.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBase64, resolveCredentials } from '../../../src/kube/credentials.ts';
import { errorMessage } from '../../../src/platform/errors.ts';
import { isSecret } from '../../../src/platform/secret.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function put(deps: FakeDeps, onNode: string, content: string): void {
  const path = deps.paths.under(onNode);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function nodeConfig(deps: FakeDeps, config: unknown): void {
  put(deps, deps.paths.strip(deps.paths.nodeConfig), JSON.stringify(config));
}

const CONFIG = {
  version: 'v1',
  apiServerConfig: { apiServerName: ' api.example.com ' },
  bootstrappingConfig: { tlsBootstrappingToken: ' abcdef.secretsecret01 ' },
};

async function failureOf(deps: FakeDeps): Promise<string> {
  try {
    await resolveCredentials(deps);
  } catch (error) {
    return errorMessage(error);
  }
  return 'no error';
}

test('node config first: trimmed name + :443, trimmed token as a Secret, cluster CA file', async () => {
  const deps = fakeDeps();
  nodeConfig(deps, CONFIG);
  put(deps, '/etc/kubernetes/certs/ca.crt', 'CA-PEM');
  put(deps, '/var/lib/kubelet/bootstrap-kubeconfig', 'clusters:\n- cluster:\n    server: other:1\n');
  const creds = await resolveCredentials(deps);
  assert.is(creds.source, 'node config');
  assert.is(creds.server, 'api.example.com:443');
  assert.ok(isSecret(creds.token));
  assert.is(creds.token!.reveal(), 'abcdef.secretsecret01');
  assert.is(creds.ca!.toString(), 'CA-PEM');
  assert.not.ok(JSON.stringify(creds).includes('secretsecret01'));
  deps.cleanup();
});

test('node config and kubeconfig values are trimmed with Go strings.TrimSpace (U+0085 yes, U+FEFF no)', async () => {
  const deps = fakeDeps();
  nodeConfig(deps, {
    version: 'v1',
    apiServerConfig: { apiServerName: '\u0085api.example.com\u3000' },
    bootstrappingConfig: { tlsBootstrappingToken: '\u00a0abcdef.secretsecret01\u0085' },
  });
  put(deps, '/etc/kubernetes/certs/ca.crt', 'CA-PEM');
  const creds = await resolveCredentials(deps);
  assert.equal([creds.server, creds.token!.reveal()], ['api.example.com:443', 'abcdef.secretsecret01']);
  deps.cleanup();
  const kube = fakeDeps();
  nodeConfig(kube, { version: 'v1' });
  put(
    kube,
    '/var/lib/kubelet/bootstrap-kubeconfig',
    'clusters:\n- cluster:\n    server: "\\uFEFFh:6443"\nusers:\n- user:\n    token: "\\u0085t0k\\u0085"\n',
  );
  const fromKubeconfig = await resolveCredentials(kube);
  assert.equal([fromKubeconfig.server, fromKubeconfig.token!.reveal()], ['\uFEFFh:6443', 't0k']);
  kube.cleanup();
});

test('no CA file yet (a first boot): the config kubernetes_ca_cert stands in; the file wins once it exists', async () => {
  const deps = fakeDeps();
  nodeConfig(deps, { ...CONFIG, kubernetesCaCert: ` ${b64('INLINE-CA-PEM')} ` });
  const creds = await resolveCredentials(deps);
  assert.equal([creds.source, creds.ca!.toString()], ['node config', 'INLINE-CA-PEM']);
  assert.ok(deps.logs.some((l) => l.msg === 'cluster CA file absent; using the node config kubernetes_ca_cert'));
  put(deps, '/etc/kubernetes/certs/ca.crt', 'FILE-CA-PEM');
  assert.is((await resolveCredentials(deps)).ca!.toString(), 'FILE-CA-PEM');
  deps.cleanup();
  const bad = fakeDeps();
  nodeConfig(bad, { ...CONFIG, kubernetesCaCert: 'not base64!' });
  assert.match(await failureOf(bad), /^no usable kubeconfig credentials: /);
  assert.ok(bad.logs.some((l) => l.attrs.error === 'decoding kubernetes_ca_cert: illegal base64 data'));
  bad.cleanup();
});

test('node config in proto (snake_case) spelling', async () => {
  const deps = fakeDeps();
  nodeConfig(deps, { api_server_config: { api_server_name: 'h:6443' }, bootstrapping_config: { tls_bootstrapping_token: 't.t' } });
  put(deps, '/etc/kubernetes/certs/ca.crt', 'CA');
  assert.is((await resolveCredentials(deps)).server, 'h:6443');
  deps.cleanup();
});

for (const [name, config, ca, reason] of [
  [
    'no apiserver name',
    { bootstrappingConfig: { tlsBootstrappingToken: 'x.y' } },
    true,
    'node config has no api_server_config.api_server_name',
  ],
  ['no token', { apiServerConfig: { apiServerName: 'h' } }, true, 'node config has no bootstrapping_config.tls_bootstrapping_token'],
  ['no CA file', CONFIG, false, 'reading cluster CA /etc/kubernetes/certs/ca.crt: ENOENT: no such file or directory'],
  [
    'no node config',
    undefined,
    true,
    'reading node config /opt/azure/containers/aks-node-controller-config.json: ENOENT: no such file or directory',
  ],
] as const) {
  test(`primary unusable (${name}) -> logged, bootstrap-kubeconfig used`, async () => {
    const deps = fakeDeps();
    if (config) nodeConfig(deps, config);
    if (ca) put(deps, '/etc/kubernetes/certs/ca.crt', 'CA');
    put(
      deps,
      '/var/lib/kubelet/bootstrap-kubeconfig',
      `clusters:\n- cluster:\n    server: https://boot:443\nusers:\n- user:\n    token: boot.token\n`,
    );
    const creds = await resolveCredentials(deps);
    assert.is(creds.source, '/var/lib/kubelet/bootstrap-kubeconfig');
    assert.is(creds.server, 'boot:443');
    assert.is(creds.ca, undefined);
    const line = deps.logs.find((l) => l.msg === 'primary apiserver creds (node config) unavailable, trying kubeconfig fallback');
    assert.is(line?.level, 'INFO');
    assert.is(line?.attrs.error, reason);
    deps.cleanup();
  });
}

test('a node config with a bad value: problems logged by path only, token never echoed', async () => {
  const deps = fakeDeps();
  put(
    deps,
    '/opt/azure/containers/aks-node-controller-config.json',
    '{"bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.leakleakleak1"}, "apiServerConfig": {"apiServerName": 5}}',
  );
  put(deps, '/etc/kubernetes/certs/ca.crt', 'CA');
  assert.match(await failureOf(deps), /^no usable kubeconfig credentials: /);
  assert.not.ok(JSON.stringify(deps.logs).includes('leakleak'));
  assert.ok(deps.logs.some((l) => l.msg.startsWith('node config has problems')));
  deps.cleanup();
});

test('bootstrap-kubeconfig unusable -> kubeconfig; CA data wins over file; relative file from the kubeconfig dir', async () => {
  const deps = fakeDeps();
  put(deps, '/var/lib/kubelet/bootstrap-kubeconfig', 'clusters: []\n');
  put(
    deps,
    '/var/lib/kubelet/kubeconfig',
    `clusters:\n- cluster:\n    server: k:6443\n    certificate-authority: missing.crt\n    certificate-authority-data: ${b64('DATA-CA')}\nusers:\n- user:\n    client-certificate: pki/c.pem\n    client-key: pki/c.pem\n`,
  );
  put(deps, '/var/lib/kubelet/pki/c.pem', 'CERT+KEY');
  const creds = await resolveCredentials(deps);
  assert.is(creds.source, '/var/lib/kubelet/kubeconfig');
  assert.is(creds.ca!.toString(), 'DATA-CA');
  assert.is(creds.clientCert!.toString(), 'CERT+KEY');
  assert.is(creds.clientKey!.reveal(), 'CERT+KEY');
  assert.is(creds.token, undefined);
  assert.ok(deps.logs.some((l) => l.msg === 'kubeconfig credentials unusable' && l.attrs.error === 'kubeconfig has no clusters'));
  deps.cleanup();
});

test('everything unusable -> no usable kubeconfig credentials: <last error>', async () => {
  const deps = fakeDeps();
  put(deps, '/var/lib/kubelet/bootstrap-kubeconfig', 'clusters: []\n');
  put(
    deps,
    '/var/lib/kubelet/kubeconfig',
    'clusters:\n- cluster:\n    server: h\n    certificate-authority: /etc/kubernetes/certs/ca.crt\n',
  );
  assert.is(
    await failureOf(deps),
    'no usable kubeconfig credentials: reading certificate-authority /etc/kubernetes/certs/ca.crt: ENOENT: no such file or directory',
  );
  deps.cleanup();
});

test('file and data errors name the field (12.3 "bootstrap token kubeconfig with CA file")', async () => {
  const deps = fakeDeps();
  put(
    deps,
    '/var/lib/kubelet/kubeconfig',
    'clusters:\n- cluster:\n    server: h\n    certificate-authority-data: "not base64!"\nusers:\n- user:\n    client-key: /nope.key\n',
  );
  assert.is(await failureOf(deps), 'no usable kubeconfig credentials: decoding certificate-authority-data: illegal base64 data');
  put(
    deps,
    '/var/lib/kubelet/kubeconfig',
    'clusters:\n- cluster:\n    server: h\nusers:\n- user:\n    client-certificate-data: Y2VydA==\n    client-key: /nope.key\n',
  );
  assert.is(
    await failureOf(deps),
    'no usable kubeconfig credentials: loading client key: reading client-key /nope.key: ENOENT: no such file or directory',
  );
  put(deps, '/var/lib/kubelet/kubeconfig', 'clusters:\n- cluster:\n    server: h\nusers:\n- user:\n    client-certificate-data: "@@@@"\n');
  assert.is(
    await failureOf(deps),
    'no usable kubeconfig credentials: loading client certificate: decoding client-certificate-data: illegal base64 data',
  );
  deps.cleanup();
});

test('decodeBase64 is Go StdEncoding: padding required, CR/LF ignored', async () => {
  assert.is(decodeBase64('dGVzdC1jYQ==', 'x').toString(), 'test-ca');
  assert.is(decodeBase64('dGVz\r\ndC1jYQ==', 'x').toString(), 'test-ca');
  assert.throws(() => decodeBase64('dGVzdC1jYQ', 'x'), /x: illegal base64 data/);
  assert.throws(() => decodeBase64('dGVz dC1j', 'x'), /illegal base64 data/);
  assert.throws(() => decodeBase64('dGVzdC1jYQ-_', 'x'), /illegal base64 data/);
});

test.run();

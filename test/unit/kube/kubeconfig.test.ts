// Conformance list 12.3: TestParseKubeconfigCreds, TestEnsurePort, TestStripScheme (+ IPv6 literals).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensurePort, isIpLiteral, splitHostPort, stripScheme } from '../../../src/kube/address.ts';
import { parseKubeconfig } from '../../../src/kube/kubeconfig.ts';
import { errorMessage } from '../../../src/platform/errors.ts';
import { isSecret } from '../../../src/platform/secret.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

test('token kubeconfig with inline CA data: scheme stripped, token a Secret', () => {
  const f = parseKubeconfig(
    `clusters:\n- cluster:\n    server: https://myapi.example.com:443\n    certificate-authority-data: ${b64('test-ca')}\nusers:\n- user:\n    token: abc.def\n`,
  );
  assert.is(f.server, 'myapi.example.com:443');
  assert.is(f.caData, b64('test-ca'));
  assert.ok(isSecret(f.token));
  assert.is(f.token!.reveal(), 'abc.def');
  assert.is(JSON.stringify(f).includes('abc.def'), false);
});

test('client-cert kubeconfig with inline data: no token', () => {
  const f = parseKubeconfig(
    `clusters:\n- cluster:\n    server: https://10.0.0.1:443\nusers:\n- user:\n    client-certificate-data: ${b64('cert')}\n    client-key-data: ${b64('key')}\n`,
  );
  assert.is(f.server, '10.0.0.1:443');
  assert.is(f.token, undefined);
  assert.is(f.clientCertData, b64('cert'));
  assert.is(f.clientKeyData!.reveal(), b64('key'));
});

test('file references are kept as paths (trimmed); both data and file kept (credentials.ts picks data)', () => {
  const f = parseKubeconfig(
    'clusters:\n- cluster:\n    server: "https://h/"\n    certificate-authority: " /etc/kubernetes/certs/ca.crt "\n    certificate-authority-data: ""\nusers:\n- user:\n    client-certificate: /p.pem\n    client-key: /p.pem\n',
  );
  assert.is(f.server, 'h');
  assert.is(f.caFile, '/etc/kubernetes/certs/ca.crt');
  assert.is(f.caData, undefined);
  assert.is(f.clientCertFile, '/p.pem');
  assert.is(f.clientKeyFile, '/p.pem');
});

test('the FIRST cluster and user are used, whatever current-context says', () => {
  const f = parseKubeconfig(
    'current-context: second\nclusters:\n- name: first\n  cluster:\n    server: one:1\n- name: second\n  cluster:\n    server: two:2\nusers:\n- user:\n    token: t1\n- user:\n    token: t2\n',
  );
  assert.is(f.server, 'one:1');
  assert.is(f.token!.reveal(), 't1');
});

for (const [name, text, expected] of [
  ['no clusters', 'users: []\n', 'kubeconfig has no clusters'],
  ['empty document', '', 'kubeconfig has no clusters'],
  ['cluster without server', 'clusters:\n- cluster:\n    server: "  "\n', 'kubeconfig cluster has no server'],
  [
    'invalid yaml',
    'clusters: [\n',
    'parsing kubeconfig YAML: line 1: Flow sequence in block collection must be sufficiently indented and end with a ] (BAD_INDENT)',
  ],
  ['clusters not a list', 'clusters: x\n', 'parsing kubeconfig YAML: clusters is not a list'],
  ['server not a string', 'clusters:\n- cluster:\n    server: [a]\n', 'parsing kubeconfig YAML: cluster.server is not a string'],
  ['document not a mapping', '- a\n', 'parsing kubeconfig YAML: the document is not a mapping'],
] as const) {
  test(`error: ${name}`, () => {
    assert.throws(
      () => parseKubeconfig(text),
      (e: unknown) => errorMessage(e) === expected,
    );
  });
}

test('ensurePort (12.3 TestEnsurePort + IPv6)', () => {
  assert.is(ensurePort('host.example.com', '443'), 'host.example.com:443');
  assert.is(ensurePort('https://host.example.com', '443'), 'host.example.com:443');
  assert.is(ensurePort('host.example.com:6443', '443'), 'host.example.com:6443');
  assert.is(ensurePort('https://host.example.com/', '443'), 'host.example.com:443');
  assert.is(ensurePort('', '443'), '');
  assert.is(ensurePort('  host  ', '443'), 'host:443');
  assert.is(ensurePort('\u0085https://host\u3000', '443'), 'host:443', 'Go TrimSpace: U+0085 and U+3000 are space');
  assert.is(ensurePort('\uFEFFhost', '443'), '\uFEFFhost:443', 'U+FEFF is not space in Go');
  assert.is(ensurePort('[::1]', '443'), '[::1]:443');
  assert.is(ensurePort('[fd00::10]:6443', '443'), '[fd00::10]:6443');
  assert.is(ensurePort('https://[::1]/', '443'), '[::1]:443');
});

test('stripScheme (12.3 TestStripScheme)', () => {
  assert.is(stripScheme('https://a.b'), 'a.b');
  assert.is(stripScheme('http://a.b'), 'a.b');
  assert.is(stripScheme('https://http://a.b'), 'a.b');
  assert.is(stripScheme('a.b'), 'a.b');
  assert.is(stripScheme('a.b//'), 'a.b');
  assert.is(stripScheme('https://a.b/path/'), 'a.b/path');
});

test('splitHostPort and isIpLiteral', () => {
  assert.equal(splitHostPort('h.example:443'), { host: 'h.example', port: 443 });
  assert.equal(splitHostPort('[::1]:6443'), { host: '::1', port: 6443 });
  assert.equal(splitHostPort('10.0.0.1:1'), { host: '10.0.0.1', port: 1 });
  assert.is(splitHostPort('h.example'), undefined);
  assert.is(splitHostPort('h.example:0'), undefined);
  assert.is(splitHostPort('h.example:443/path'), undefined);
  assert.is(splitHostPort('::1:443'), undefined);
  assert.ok(isIpLiteral('10.0.0.1'));
  assert.ok(isIpLiteral('::1'));
  assert.not.ok(isIpLiteral('host.example'));
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseYaml } from '../../../src/kube/kubeconfig-yaml.ts';
import { errorMessage } from '../../../src/platform/errors.ts';

const KUBEADM = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tQ0EtLS0K
    server: https://10.0.0.1:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
preferences: {}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
`;

test('kubeadm/kubectl block style (sequences at the key column, flow {} value)', () => {
  assert.equal(parseYaml(KUBEADM), {
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': 'LS0tQ0EtLS0K', server: 'https://10.0.0.1:6443' }, name: 'kubernetes' }],
    contexts: [{ context: { cluster: 'kubernetes', user: 'kubernetes-admin' }, name: 'kubernetes-admin@kubernetes' }],
    'current-context': 'kubernetes-admin@kubernetes',
    kind: 'Config',
    preferences: {},
    users: [{ name: 'kubernetes-admin', user: { 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' } }],
  });
});

test('indented sequences, comments, quotes, document marker, CRLF', () => {
  const text =
    '---\r\n# bootstrap\r\nclusters:\r\n  - name: "local" # trailing\r\n    cluster:\r\n      server: \'https://h:443\'\r\nusers:\r\n  - user:\r\n      token: "ab\\"c#d"\r\n';
  assert.equal(parseYaml(text), {
    clusters: [{ name: 'local', cluster: { server: 'https://h:443' } }],
    users: [{ user: { token: 'ab"c#d' } }],
  });
});

test('flow style and whole-document JSON (multi-line)', () => {
  assert.equal(parseYaml('clusters: [{cluster: {server: "https://a:6443", x: y}, name: c1}, {name: c2}]\nusers: []\n'), {
    clusters: [{ cluster: { server: 'https://a:6443', x: 'y' }, name: 'c1' }, { name: 'c2' }],
    users: [],
  });
  const json = JSON.stringify({ clusters: [{ cluster: { server: 'https://b' } }], users: [{ user: { token: 't' } }] }, null, 2);
  assert.equal(parseYaml(json), { clusters: [{ cluster: { server: 'https://b' } }], users: [{ user: { token: 't' } }] });
});

test('scalars stay strings (failsafe schema); null forms; single-quote escaping; escapes in double quotes', () => {
  assert.equal(parseYaml("a: 123\nb: true\nc: ~\nd:\ne: 'it''s'\nf: \"\\u0041\\t\"\n"), {
    a: '123',
    b: 'true',
    c: null,
    d: null,
    e: "it's",
    f: 'A\t',
  });
});

test('block scalars (literal and folded) and a plain scalar continued on the next line', () => {
  assert.equal(parseYaml('a: |\n  line1\n  line2\nb: >-\n  x\n  y\nc: long\n  value\n'), {
    a: 'line1\nline2\n',
    b: 'x y',
    c: 'long value',
  });
});

test('nested sequences and an empty sequence item', () => {
  assert.equal(parseYaml('a:\n- - x\n  - y\n-\n- z\n'), { a: [['x', 'y'], null, 'z'] });
});

for (const [name, text, problem] of [
  ['duplicate key', 'a: 1\na: 2\n', /^line 2: Map keys must be unique \(DUPLICATE_KEY\)$/],
  ['tab indentation', 'a:\n\tb: 1\n', /^line 2: .*\(TAB_AS_INDENT\)$/],
  ['bad indentation', 'a:\n    b: 1\n  c: 2\n', /^line 3: .*\(BAD_INDENT\)$/],
  ['unterminated quote', 'a: "abc\n', /^line 1: Missing closing "quote \(MISSING_CHAR\)$/],
  ['unterminated flow', 'a: [1, 2\n', /^line 1: Flow sequence .*\(BAD_INDENT\)$/],
  ['alias', 'a: &x 1\nb: *x\n', /^line 2: aliases are not supported$/],
  ['two documents', 'a: 1\n---\nb: 2\n', /^line 2: Source contains multiple documents \(MULTIPLE_DOCS\)$/],
] as const) {
  test(`error: ${name}`, () => {
    assert.throws(
      () => parseYaml(text),
      (e: unknown) => (problem as RegExp).test(errorMessage(e)),
    );
  });
}

test('billion laughs: refused at the first alias, nothing expanded', () => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(9)
        .fill(`*${'abcdefghij'[i - 1]}`)
        .join(',')}]`,
    );
  assert.throws(
    () => parseYaml(lines.join('\n')),
    (e: unknown) => /^line 2: aliases are not supported$/.test(errorMessage(e)),
  );
});

test('an anchor without an alias is harmless; unknown tags keep the string', () => {
  assert.equal(parseYaml('a: &x 1\nb: !foo 2\n'), { a: '1', b: '2' });
});

test('errors name the line, never its text (the line may hold a token)', () => {
  for (const [text, line] of [
    ['users:\n- user:\n    token: "supersecret.token\n', 3],
    ['users:\n- user:\n    token: "supersecret\\q"\n', 3],
    ['users:\n- user:\n    token: supersecret\n    token: supersecret\n', 4],
    ['users:\n- user:\n    token: | supersecret\n      x\n', 3],
    ['users:\n- user: {token: supersecret supersecret: x}\n', 2],
    ['users:\n- user:\n    token: !<supersecret> x\n    k: *supersecret\n', 4],
  ] as const) {
    try {
      parseYaml(text);
      assert.unreachable(text);
    } catch (error) {
      assert.not.match(errorMessage(error), 'supersecret', text);
      assert.match(errorMessage(error), new RegExp(`^line ${line}: `), text);
    }
  }
});

test.run();

// check-hotfix on the compiled binary: what the ConfigMap serves, and how it is parsed and staged
// (spec 6.6, D2, D3). Every run: exit 0, one CheckHotfix event, pointer unchanged or replaced whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import {
  ANC_VERSION,
  CM_KEY,
  EXISTING_POINTER,
  NODE_CONFIG,
  assertRun,
  mergedPointer,
  nodeFor,
  registerSecretGrep,
  runCheck,
  SERVED,
} from './node.ts';

async function withData(data: unknown, fn: (api: FakeApiServer) => Promise<void>): Promise<void> {
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: data } });
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

test('success: the served map is staged over the existing pointer, version/scripts_version kept (configMapRead)', async () => {
  await withData(SERVED(), async (api) => {
    const run = await runCheck(nodeFor(api));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, mergedPointer({ [ANC_VERSION.base]: ANC_VERSION.target, '202401.01': '202401.01.2' }));
    assert.match(run.stderr, '"msg":"staged hotfix pointer for download-hotfix"');
    assert.match(run.stderr, '"msg":"check-hotfix completed","outcome":"configMapRead"');
    assert.is(api.requests.at(-1)!.path, '/api/v1/namespaces/kube-system/configmaps/anc-hotfix-version');
    assert.is(api.requests.at(-1)!.accept, 'application/json');
    assert.is(api.requests.at(-1)!.user, 'system:bootstrap:abcdef');
  });
});

test('no entry for our base: the full map is still staged (noHotfixForBase)', async () => {
  await withData({ 'hotfixes.json': '{"hotfixes":{"202001.01":"202001.01.3"}}' }, async (api) => {
    const run = await runCheck(nodeFor(api));
    assertRun(run, 'noHotfixForBase');
    assert.is(run.pointer, mergedPointer({ '202001.01': '202001.01.3' }));
  });
});

test('no pointer file yet: a new file with mode 0644 and the Go key order', async () => {
  await withData(SERVED(), async (api) => {
    const run = await runCheck(nodeFor(api, { pointer: null }));
    assertRun(run, 'configMapRead');
    const entries = `"202401.01":"202401.01.2","${ANC_VERSION.base}":"${ANC_VERSION.target}"`;
    assert.is(run.pointer, `{"hotfixes":{${entries}}}`);
    const { statSync } = await import('node:fs');
    assert.is(statSync(run.sb.path('/opt/azure/containers/aks-node-controller-hotfix.json')).mode & 0o777, 0o644);
  });
});

test('a single key other than hotfixes.json is used', async () => {
  await withData({ pointer: `{"hotfixes":{"${ANC_VERSION.base}":"${ANC_VERSION.target}"}}` }, async (api) => {
    const run = await runCheck(nodeFor(api));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, mergedPointer({ [ANC_VERSION.base]: ANC_VERSION.target }));
  });
});

test('legacy-only served `version` is staged too and resolves (configMapRead)', async () => {
  await withData({ 'hotfixes.json': `{"version":"${ANC_VERSION.target}"}` }, async (api) => {
    const run = await runCheck(nodeFor(api));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, mergedPointer({}, ANC_VERSION.target));
  });
});

const FAILURES: Array<[string, unknown, RegExp]> = [
  ['`data` not an object', 'hotfixes', /unmarshaling ConfigMap: cannot unmarshal string into field data/],
  ['no data at all', undefined, /ConfigMap has no data/],
  [
    'two keys without hotfixes.json',
    { a: '{}', b: '{}' },
    /ConfigMap data has no "hotfixes.json" key and 2 entries \(expected exactly 1\)/,
  ],
  ['empty value', { 'hotfixes.json': '  \n ' }, /ConfigMap hotfix entry is empty/],
  ['non-string ConfigMap value', { 'hotfixes.json': 5 }, /unmarshaling ConfigMap: cannot unmarshal number/],
  [
    'non-string map value in the pointer',
    { 'hotfixes.json': '{"hotfixes":{"202604.01":1}}' },
    /unmarshaling hotfix pointer JSON: cannot unmarshal number/,
  ],
  ['invalid pointer JSON', { 'hotfixes.json': 'not valid json' }, /unmarshaling hotfix pointer JSON/],
];

for (const [name, data, error] of FAILURES) {
  test(`${name}: failed, pointer untouched, no cold-start fallback`, async () => {
    await withData(data, async (api) => {
      // The node config HAS a cold-start pointer: a parse failure must still not fall back.
      const run = await runCheck(nodeFor(api, { extra: { hotfixes: { [ANC_VERSION.base]: ANC_VERSION.target } } }));
      assertRun(run, 'failed');
      assert.match(run.error, /^parsing anc-hotfix-version ConfigMap: /);
      assert.match(run.error, error);
      assert.is(run.pointer, EXISTING_POINTER);
      assert.match(run.stderr, '"msg":"check-hotfix completed with error (fail-open)"');
    });
  });
}

test('invalid ConfigMap JSON body: failed (unmarshaling ConfigMap), no fallback', async () => {
  const api = await startFakeApiServer({
    override: (req, res) => {
      if (!req.url?.includes('/configmaps/')) return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"ConfigMap","data":{');
      return true;
    },
  });
  try {
    const run = await runCheck(nodeFor(api, { extra: { hotfixes: { [ANC_VERSION.base]: ANC_VERSION.target } } }));
    assertRun(run, 'failed');
    assert.match(run.error, /^parsing anc-hotfix-version ConfigMap: unmarshaling ConfigMap: /);
    assert.is(run.pointer, EXISTING_POINTER);
  } finally {
    await api.close();
  }
});

test('extra arguments are ignored with a WARN, still exit 0', async () => {
  await withData(SERVED(), async (api) => {
    const run = await runCheck(nodeFor(api), { args: ['surprise', 'args'] });
    assertRun(run, 'configMapRead');
    assert.match(run.stderr, '"level":"WARN","msg":"ignoring unexpected check-hotfix arguments","args":"surprise args"');
  });
});

test('node config written with proto (snake_case) names works too', async () => {
  await withData(SERVED(), async (api) => {
    const sb = nodeFor(api);
    const { DEFAULT_TOKEN } = await import('../../fakes/apiserver.ts');
    sb.write(
      NODE_CONFIG,
      JSON.stringify({
        version: 'v1',
        api_server_config: { api_server_name: api.address },
        bootstrapping_config: { tls_bootstrapping_token: DEFAULT_TOKEN },
      }),
      0o600,
    );
    const run = await runCheck(sb);
    assertRun(run, 'configMapRead');
  });
});

registerSecretGrep(test);
test.run();

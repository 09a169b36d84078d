// check-hotfix on the compiled binary against the apiserver's refusals (spec 6.6): 401, 403, 404 and
// server errors are failed fetches: cold-start fallback when the node config has a pointer, else failed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer, status, type FakeApiServerOptions } from '../../fakes/apiserver.ts';
import {
  ANC_VERSION,
  CM_KEY,
  EXISTING_POINTER,
  assertRun,
  mergedPointer,
  nodeFor,
  registerSecretGrep,
  runCheck,
  SERVED,
  type CheckRun,
  type NodeSetup,
} from './node.ts';

async function against(options: FakeApiServerOptions, setup: NodeSetup = {}): Promise<CheckRun> {
  const api = await startFakeApiServer({
    configMaps: { [CM_KEY]: SERVED() },
    tokens: {
      'abcdef.0123456789abcdef': { user: 'system:bootstrap:abcdef', canRead: true },
      'noaccess.1111111111111111': { user: 'system:bootstrap:noaccess', canRead: false },
    },
    ...options,
  });
  try {
    return await runCheck(nodeFor(api, setup));
  } finally {
    await api.close();
  }
}

function assertStatus(run: CheckRun, code: number): void {
  assertRun(run, 'failed');
  assert.match(
    run.error,
    new RegExp(
      `^configmap fetch failed and no cold-start pointer present: apiserver returned status ${code} for https://127\\.0\\.0\\.1:\\d+/api/v1/namespaces/kube-system/configmaps/anc-hotfix-version$`,
    ),
  );
  assert.is(run.pointer, EXISTING_POINTER);
}

test('401: a token the apiserver does not know', async () => {
  assertStatus(await against({}, { token: 'wrongtoken.0000000000000000' }), 401);
});

test('403: a token without rights on the ConfigMap', async () => {
  assertStatus(await against({}, { token: 'noaccess.1111111111111111' }), 403);
});

test('404: no anc-hotfix-version ConfigMap', async () => {
  assertStatus(await against({ configMaps: {} }), 404);
});

for (const code of [500, 503]) {
  test(`${code}: server error`, async () => {
    const override: FakeApiServerOptions['override'] = (req, res) => {
      if (!req.url?.includes('/configmaps/')) return false;
      status(res, code, code === 500 ? 'InternalError' : 'ServiceUnavailable', 'the server is busy');
      return true;
    };
    assertStatus(await against({ override }), code);
  });
}

test('404 with a cold-start pointer in the node config -> customDataFallback (the fallback replaces hotfixes)', async () => {
  const hotfixes = { [ANC_VERSION.base]: ANC_VERSION.target };
  const run = await against({ configMaps: {} }, { extra: { hotfixes } });
  assertRun(run, 'customDataFallback');
  assert.is(run.pointer, mergedPointer(hotfixes));
  assert.match(run.stderr, '"msg":"staged hotfix pointer for download-hotfix"');
});

test('404 with an empty cold-start map -> failed, nothing staged', async () => {
  const run = await against({ configMaps: {} }, { extra: { hotfixes: {} } });
  assertStatus(run, 404);
});

test('cold-start pointer of the wrong shape -> failed (cold-start fallback failed)', async () => {
  const run = await against({ configMaps: {} }, { extra: { hotfixes: ['202604.01.1'] } });
  assertRun(run, 'failed');
  assert.match(
    run.error,
    /^configmap fetch failed \(apiserver returned status 404 for .*\) and cold-start fallback failed: parsing hotfix config \/opt\/azure\/containers\/aks-node-controller-config.json: cannot unmarshal array/,
  );
  assert.is(run.pointer, EXISTING_POINTER);
});

registerSecretGrep(test);
test.run();

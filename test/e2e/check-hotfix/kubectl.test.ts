// Fidelity of the apiserver stand-in, proved with the real client: kubectl (discovery first, then the
// GET) reads the ConfigMap through it with a bearer token and with a client certificate, and reports
// its refusals (401, 403, 404) the way it reports a real apiserver's. The same kubeconfig then drives the
// compiled check-hotfix, which must stage exactly what kubectl saw.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN, kubeconfigFor, startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import { ANC_VERSION, CM_KEY, assertRun, mergedPointer, prepareNode, registerSecretGrep, runCheck, SERVED } from './node.ts';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'anc-kubectl-'));
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, kubeconfig, { mode: 0o600 });
  return new Promise((resolve, reject) => {
    // stdin closed: kubectl would otherwise prompt for a user name after a 401 without credentials.
    const child = spawn(KUBECTL, ['--kubeconfig', file, '--cache-dir', join(dir, 'cache'), '--request-timeout', '10s', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

const GET = ['-n', 'kube-system', 'get', 'configmap', 'anc-hotfix-version', '-o', 'json'];

async function withApi(fn: (api: FakeApiServer) => Promise<void>): Promise<void> {
  const api = await startFakeApiServer({
    configMaps: { [CM_KEY]: SERVED() },
    tokens: {
      [DEFAULT_TOKEN]: { user: 'system:bootstrap:abcdef', canRead: true },
      'noaccess.1111111111111111': { user: 'system:bootstrap:noaccess', canRead: false },
    },
  });
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

test('kubectl is installed (the fidelity proof needs the real client)', () => {
  assert.ok(existsSync(KUBECTL), `${KUBECTL} not found; set KUBECTL=<path>`);
});

for (const variant of ['token', 'client certificate'] as const) {
  test(`kubectl get configmap works against the stand-in (${variant}), and check-hotfix stages the same data`, async () => {
    await withApi(async (api) => {
      const kubeconfig = kubeconfigFor(api, variant === 'token' ? { token: DEFAULT_TOKEN } : { clientCert: true });
      const result = await kubectl(kubeconfig, GET);
      assert.is(result.code, 0, result.stderr);
      const cm = JSON.parse(result.stdout);
      assert.is(cm.kind, 'ConfigMap');
      assert.is(cm.metadata.name, 'anc-hotfix-version');
      assert.is(cm.metadata.namespace, 'kube-system');
      assert.equal(cm.data, SERVED());
      assert.ok(
        api.requests.some((r) => r.path === '/api'),
        'kubectl did discovery first',
      );
      const run = await runCheck(prepareNode({ kubeconfig, ca: null }));
      assertRun(run, 'configMapRead');
      const served = JSON.parse(cm.data['hotfixes.json']).hotfixes;
      assert.is(run.pointer, mergedPointer(served));
      assert.ok(served[ANC_VERSION.base]);
    });
  });
}

test('kubectl sees the stand-in refuse like an apiserver: 401, 403, 404', async () => {
  await withApi(async (api) => {
    const unauthorized = await kubectl(kubeconfigFor(api, { token: 'wrongtoken.0000000000000000' }), GET);
    assert.is.not(unauthorized.code, 0);
    // kubectl >= 1.28 words a 401 during discovery this way against a real apiserver too.
    assert.match(
      unauthorized.stderr,
      'error: You must be logged in to the server (the server has asked for the client to provide credentials)',
    );
    const forbidden = await kubectl(kubeconfigFor(api, { token: 'noaccess.1111111111111111' }), GET);
    assert.is.not(forbidden.code, 0);
    assert.match(
      forbidden.stderr,
      'Error from server (Forbidden): configmaps "anc-hotfix-version" is forbidden: User "system:bootstrap:noaccess" cannot get resource "configmaps" in API group "" in the namespace "kube-system"',
    );
    api.configMaps.clear();
    const missing = await kubectl(kubeconfigFor(api, { token: DEFAULT_TOKEN }), GET);
    assert.is.not(missing.code, 0);
    assert.match(missing.stderr, 'Error from server (NotFound): configmaps "anc-hotfix-version" not found');
  });
});

test('kubectl refuses the stand-in when the kubeconfig trusts the wrong CA (same as check-hotfix)', async () => {
  await withApi(async (api) => {
    const result = await kubectl(kubeconfigFor(api, { token: DEFAULT_TOKEN }, api.pki.otherCa.cert), GET);
    assert.is.not(result.code, 0);
    assert.match(result.stderr, /certificate signed by unknown authority|x509/);
  });
});

registerSecretGrep(test);
test.run();

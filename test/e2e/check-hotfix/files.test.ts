// check-hotfix on the compiled binary: on-node files that are missing, unreadable or unwritable, and the
// kubeconfig-only credential paths (D1). Tests run as root, which ignores permission bits: "unreadable"
// is a directory where the file is expected (EISDIR for everyone), and "unwritable" runs the binary as
// uid 65534 over a sandbox it owns with the pointer directory at 0555 (spawn's uid option).
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideHotfix } from '../../../src/pointer/resolve.ts';
import { readPointerFile } from '../../../src/pointer/file.ts';
import { createRealFileSystem } from '../../../src/platform/fs.ts';
import { DEFAULT_TOKEN, kubeconfigFor, startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import {
  ANC_VERSION,
  CLUSTER_CA,
  CM_KEY,
  EXISTING_POINTER,
  NODE_CONFIG,
  POINTER,
  assertRun,
  chownTree,
  mergedPointer,
  nodeFor,
  prepareNode,
  registerSecretGrep,
  runCheck,
  SERVED,
} from './node.ts';

const EXPECTED = () => mergedPointer({ [ANC_VERSION.base]: ANC_VERSION.target, '202401.01': '202401.01.2' });

async function withApi(fn: (api: FakeApiServer) => Promise<void>): Promise<void> {
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() } });
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

test('unreadable node config (a directory) and no kubeconfig -> failed, both reasons named', async () => {
  await withApi(async (api) => {
    const sb = nodeFor(api);
    rmSync(sb.path(NODE_CONFIG));
    mkdirSync(sb.path(NODE_CONFIG));
    const run = await runCheck(sb);
    assertRun(run, 'failed');
    assert.match(
      run.error,
      /^configmap fetch failed \(no usable kubeconfig credentials: .*\) and cold-start fallback failed: reading node config \/opt\/azure\/containers\/aks-node-controller-config.json: EISDIR/,
    );
    assert.is(run.pointer, EXISTING_POINTER);
  });
});

test('unreadable node config but a bootstrap-kubeconfig (AKS template: CA file + token) -> configMapRead', async () => {
  await withApi(async (api) => {
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: localcluster',
      '  cluster:',
      `    certificate-authority: ${CLUSTER_CA}`,
      `    server: https://${api.address}`,
      'users:',
      '- name: kubelet-bootstrap',
      '  user:',
      `    token: "${DEFAULT_TOKEN}"`,
      'contexts:',
      '- context:',
      '    cluster: localcluster',
      '    user: kubelet-bootstrap',
      '  name: bootstrap-context',
      'current-context: bootstrap-context',
      '',
    ].join('\n');
    const sb = nodeFor(api, { bootstrapKubeconfig: kubeconfig });
    rmSync(sb.path(NODE_CONFIG));
    mkdirSync(sb.path(NODE_CONFIG));
    const run = await runCheck(sb);
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, EXPECTED());
    assert.match(run.stderr, '"credentials":"/var/lib/kubelet/bootstrap-kubeconfig"');
  });
});

test('kubeconfig only, client certificate inline (kubectl style *-data) -> configMapRead', async () => {
  await withApi(async (api) => {
    const run = await runCheck(prepareNode({ kubeconfig: kubeconfigFor(api, { clientCert: true }), ca: null }));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, EXPECTED());
    assert.is(api.requests.at(-1)!.user, api.pki.clientUser);
    assert.is(api.requests.at(-1)!.bearer, false);
  });
});

test('kubeconfig only, client certificate files (kubelet style: one PEM with cert and key) -> configMapRead', async () => {
  await withApi(async (api) => {
    const pem = '/var/lib/kubelet/pki/kubelet-client-current.pem';
    const kubeconfig = [
      'apiVersion: v1',
      'clusters:',
      '- cluster:',
      `    certificate-authority: ${CLUSTER_CA}`,
      `    server: https://${api.address}`,
      '  name: default-cluster',
      'contexts:',
      '- context:',
      '    cluster: default-cluster',
      '    namespace: default',
      '    user: default-auth',
      '  name: default-context',
      'current-context: default-context',
      'kind: Config',
      'preferences: {}',
      'users:',
      '- name: default-auth',
      '  user:',
      `    client-certificate: ${pem}`,
      `    client-key: ${pem}`,
      '',
    ].join('\n');
    const sb = prepareNode({ kubeconfig });
    sb.write(pem, api.pki.client.cert + api.pki.client.key, 0o600);
    const run = await runCheck(sb);
    assertRun(run, 'configMapRead');
    assert.is(api.requests.at(-1)!.user, api.pki.clientUser);
  });
});

test('kubeconfig only, token, written as JSON -> configMapRead', async () => {
  await withApi(async (api) => {
    const kubeconfig = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { server: `https://${api.address}/`, 'certificate-authority-data': Buffer.from(api.pki.ca.cert).toString('base64') },
          },
        ],
        users: [{ name: 'u', user: { token: DEFAULT_TOKEN } }],
      },
      null,
      2,
    );
    const run = await runCheck(prepareNode({ bootstrapKubeconfig: kubeconfig }));
    assertRun(run, 'configMapRead');
    assert.is(api.requests.at(-1)!.user, 'system:bootstrap:abcdef');
  });
});

test('read-only pointer file (0444) is replaced whole and keeps its mode (rename needs only the directory)', async () => {
  await withApi(async (api) => {
    const run = await runCheck(nodeFor(api, { pointerMode: 0o444 }));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, EXPECTED());
    assert.is(statSync(run.sb.path(POINTER)).mode & 0o777, 0o444);
  });
});

test('existing pointer mode 0600 is preserved', async () => {
  await withApi(async (api) => {
    const run = await runCheck(nodeFor(api, { pointerMode: 0o600 }));
    assertRun(run, 'configMapRead');
    assert.is(statSync(run.sb.path(POINTER)).mode & 0o777, 0o600);
  });
});

test('unwritable pointer directory (unprivileged run, 0555) -> failed, pointer untouched', async () => {
  await withApi(async (api) => {
    const sb = nodeFor(api);
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    if (uid !== undefined) chownTree(sb.root, uid);
    chmodSync(sb.path('/opt/azure/containers'), 0o555);
    const run = await runCheck(sb, uid === undefined ? {} : { uid });
    chmodSync(sb.path('/opt/azure/containers'), 0o755);
    assertRun(run, 'failed');
    assert.is(run.error, 'staging hotfix pointer /opt/azure/containers/aks-node-controller-hotfix.json: EACCES: permission denied');
    assert.is(run.pointer, EXISTING_POINTER);
  });
});

test('pointer path is a directory -> failed, nothing replaced', async () => {
  await withApi(async (api) => {
    const sb = nodeFor(api, { pointer: null });
    mkdirSync(sb.path(POINTER));
    const run = await runCheck(sb);
    assertRun(run, 'failed');
    assert.match(run.error, /^reading existing hotfix pointer \/opt\/azure\/containers\/aks-node-controller-hotfix.json: EISDIR/);
    assert.ok(statSync(sb.path(POINTER)).isDirectory());
  });
});

test('corrupt existing pointer: replaced by the served one (download-hotfix could not read it either)', async () => {
  await withApi(async (api) => {
    const run = await runCheck(nodeFor(api, { pointer: '{"version": 5' }));
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, `{"hotfixes":{"202401.01":"202401.01.2","${ANC_VERSION.base}":"${ANC_VERSION.target}"}}`);
    assert.match(run.stderr, '"msg":"existing hotfix pointer is not valid; replacing it"');
  });
});

test('download-hotfix reads what check-hotfix staged and picks the served target', async () => {
  await withApi(async (api) => {
    const run = await runCheck(nodeFor(api));
    assertRun(run, 'configMapRead');
    // The very reader download-hotfix uses (src/hotfix/download.ts), on the staged file.
    const pointer = readPointerFile(createRealFileSystem(), run.sb.path(POINTER));
    const decision = decideHotfix(pointer, ANC_VERSION.full);
    assert.is(decision.resolved, ANC_VERSION.target);
    assert.is(decision.upgrade, true);
    assert.is(pointer.version, '202401.01.1');
    assert.is(pointer.scriptsVersion, 's-1');
  });
});

test('no node config, no kubeconfig at all -> failed', async () => {
  const run = await runCheck(prepareNode({ ca: null, pointer: null }));
  assertRun(run, 'failed');
  assert.match(
    run.error,
    /^configmap fetch failed and no cold-start pointer present: no usable kubeconfig credentials: reading kubeconfig \/var\/lib\/kubelet\/kubeconfig: ENOENT/,
  );
  assert.is(run.pointer, null);
});

test('IPv6 literal apiserver: node config `[::1]:<port>` and kubeconfig `https://[::1]:<port>` -> configMapRead', async () => {
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() }, listenHost: '::1' });
  try {
    assert.match(api.address, /^\[::1\]:\d+$/);
    const viaNodeConfig = await runCheck(nodeFor(api));
    assertRun(viaNodeConfig, 'configMapRead');
    const viaKubeconfig = await runCheck(prepareNode({ kubeconfig: kubeconfigFor(api, { token: DEFAULT_TOKEN }) }));
    assertRun(viaKubeconfig, 'configMapRead');
    assert.is(viaKubeconfig.pointer, EXPECTED());
  } finally {
    await api.close();
  }
});

test('client certificate with a key that does not match -> failed (loading client key pair)', async () => {
  await withApi(async (api) => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const kubeconfig = kubeconfigFor(api, { clientCert: true }).replace(b64(api.pki.client.key), b64(api.pki.foreignClient.key));
    const run = await runCheck(prepareNode({ kubeconfig }));
    assertRun(run, 'failed');
    assert.match(run.error, /no cold-start pointer present: loading client key pair: /);
  });
});

registerSecretGrep(test);
test.run();

// check-hotfix on the compiled binary against transport and TLS faults (spec 6.6, D1): every fault ends
// as outcome `failed` (or the cold-start fallback when the node config carries one), exit 0, the pointer
// untouched, and the whole command back within 12 s even when the server never answers.
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer, type FakeApiServerOptions } from '../../fakes/apiserver.ts';
import { makeTestPki } from '../../fakes/apiserver-pki.ts';
import {
  ANC_VERSION,
  CM_KEY,
  EXISTING_POINTER,
  assertRun,
  mergedPointer,
  nodeFor,
  prepareNode,
  registerSecretGrep,
  runCheck,
  SERVED,
  type CheckRun,
} from './node.ts';

async function againstServer(options: FakeApiServerOptions, setup: Parameters<typeof nodeFor>[1] = {}): Promise<CheckRun> {
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() }, ...options });
  try {
    return await runCheck(nodeFor(api, setup));
  } finally {
    await api.close();
  }
}

function assertFetchFailed(run: CheckRun, detail?: RegExp): void {
  assertRun(run, 'failed');
  assert.match(run.error, /^configmap fetch failed and no cold-start pointer present: /);
  if (detail) assert.match(run.error, detail);
  assert.is(run.pointer, EXISTING_POINTER);
  assert.match(run.stderr, '"msg":"failed to read anc-hotfix-version ConfigMap, attempting cold-start fallback"');
}

test('wrong CA: the node trusts an unrelated CA -> failed', async () => {
  const run = await againstServer({}, { ca: makeTestPki().otherCa.cert });
  assertFetchFailed(run, /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/kube-system\/configmaps\/anc-hotfix-version: /);
});

test('hostname mismatch: certificate for another name -> failed', async () => {
  assertFetchFailed(await againstServer({ cert: 'wrong-name' }), /GET https:/);
});

test('expired server certificate -> failed', async () => {
  assertFetchFailed(await againstServer({ cert: 'expired' }), /GET https:/);
});

test('no cluster CA file and no kubeconfig -> failed, primary-credential fallback logged', async () => {
  const run = await againstServer({}, { ca: null });
  assertFetchFailed(run, /no usable kubeconfig credentials: reading kubeconfig \/var\/lib\/kubelet\/kubeconfig: ENOENT/);
  assert.match(
    run.stderr,
    '"msg":"primary apiserver creds (node config) unavailable, trying kubeconfig fallback","error":"reading cluster CA /etc/kubernetes/certs/ca.crt: ENOENT: no such file or directory"',
  );
});

test('cluster CA file that holds no certificate -> failed (failed to parse cluster CA PEM)', async () => {
  assertFetchFailed(await againstServer({}, { ca: 'not a pem\n' }), /failed to parse cluster CA PEM/);
});

test('plain HTTP server on the port -> failed', async () => {
  assertFetchFailed(await againstServer({ plainHttp: true }), /GET https:/);
});

test('connection refused -> failed', async () => {
  const probe = createNetServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const run = await runCheck(prepareNode({ server: `127.0.0.1:${port}` }));
  assertFetchFailed(run, /ECONNREFUSED/);
});

test('a fault with a cold-start pointer in the node config -> customDataFallback, fallback staged', async () => {
  const hotfixes = { [ANC_VERSION.base]: ANC_VERSION.target };
  const run = await againstServer({ cert: 'expired' }, { extra: { hotfixes } });
  assertRun(run, 'customDataFallback');
  assert.is(run.error, '');
  assert.is(run.pointer, mergedPointer(hotfixes));
});

async function listen(server: NetServer): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

test('never answering (TCP accept + silence, TLS then silence, dripping body): each back within 12 s', async () => {
  const held: Socket[] = [];
  const silent = createNetServer((socket) => void held.push(socket));
  const silentPort = await listen(silent);
  const tlsSilent = await startFakeApiServer({ override: () => true });
  const drip = await startFakeApiServer({
    override: (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"data":{"hotfixes.json":"');
      const timer = setInterval(() => res.write(' '), 400);
      res.on('close', () => clearInterval(timer));
      return true;
    },
  });
  try {
    const runs = await Promise.all([
      runCheck(prepareNode({ server: `127.0.0.1:${silentPort}` })),
      runCheck(nodeFor(tlsSilent)),
      runCheck(nodeFor(drip)),
    ]);
    for (const run of runs) {
      assertFetchFailed(run, /no complete answer within 10 s/);
      assert.ok(run.durationMs >= 9_500, `gave up early: ${run.durationMs} ms`);
    }
  } finally {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
    await tlsSilent.close();
    await drip.close();
  }
});

test('truncated body (Content-Length 1000, 100 bytes sent, connection dropped) -> failed', async () => {
  const run = await againstServer({
    override: (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"kind":"ConfigMap","data":{"hotfixes.json":"' + 'x'.repeat(55));
      setTimeout(() => res.socket?.destroy(), 50);
      return true;
    },
  });
  assertFetchFailed(run, /cut off|aborted|socket hang up|ECONNRESET/);
});

for (const chunked of [false, true]) {
  test(`10 MiB body (${chunked ? 'chunked' : 'Content-Length'}) -> failed past the 1 MiB cap`, async () => {
    const size = 10 * 1024 * 1024;
    const run = await againstServer({
      override: (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', ...(chunked ? {} : { 'Content-Length': String(size) }) });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = (): void => {
          while (sent < size) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        pump();
        return true;
      },
    });
    assertFetchFailed(run, /exceeds 1048576 bytes/);
  });
}

test('HTTPS_PROXY / HTTP_PROXY / ALL_PROXY are ignored: the proxy sees nothing, the read succeeds', async () => {
  let proxied = 0;
  const proxy = createNetServer((socket) => {
    proxied++;
    socket.destroy();
  });
  const proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
  try {
    const env = {
      HTTPS_PROXY: proxyUrl,
      https_proxy: proxyUrl,
      HTTP_PROXY: proxyUrl,
      http_proxy: proxyUrl,
      ALL_PROXY: proxyUrl,
      NO_PROXY: '',
    };
    const api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() } });
    try {
      const run = await runCheck(nodeFor(api), { env });
      assertRun(run, 'configMapRead');
    } finally {
      await api.close();
    }
    assert.is(proxied, 0, 'the proxy was contacted');
  } finally {
    await new Promise<void>((r) => proxy.close(() => r()));
  }
});

test('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment does not switch verification off', async () => {
  const run = await againstServer({ cert: 'wrong-name' }, {});
  const loose = await (async () => {
    const api = await startFakeApiServer({ configMaps: { [CM_KEY]: SERVED() }, cert: 'expired' });
    try {
      return await runCheck(nodeFor(api), { env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' } });
    } finally {
      await api.close();
    }
  })();
  assertFetchFailed(run);
  assertFetchFailed(loose);
});

registerSecretGrep(test);
test.run();

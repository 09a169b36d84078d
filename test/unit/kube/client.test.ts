// The HTTPS client against the loopback apiserver stand-in, in-process (node's TLS; the e2e tests repeat
// the faults on the compiled binary's TLS). Short deadlines and caps keep these fast.
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  apiGet,
  DEFAULT_TIMEOUT_MS,
  hasPemCertificate,
  HOTFIX_CONFIGMAP_PATH,
  MAX_BODY_BYTES,
  targetOf,
} from '../../../src/kube/client.ts';
import type { ApiCredentials } from '../../../src/kube/credentials.ts';
import { errorMessage } from '../../../src/platform/errors.ts';
import { Secret } from '../../../src/platform/secret.ts';
import { DEFAULT_TOKEN, startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from '../../fakes/apiserver.ts';
import { makeTestPki } from '../../fakes/apiserver-pki.ts';

const CM = 'kube-system/anc-hotfix-version';

async function withApi(options: FakeApiServerOptions, fn: (api: FakeApiServer, creds: ApiCredentials) => Promise<void>): Promise<void> {
  const api = await startFakeApiServer({ configMaps: { [CM]: { 'hotfixes.json': '{}' } }, ...options });
  try {
    await fn(api, { source: 'test', server: api.address, ca: Buffer.from(api.pki.ca.cert), token: new Secret(DEFAULT_TOKEN) });
  } finally {
    await api.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return errorMessage(error);
  }
  return 'no error';
}

test('defaults: 10 s bound, 1 MiB body cap (12.3 "no CA builds a client with default timeout")', () => {
  assert.is(DEFAULT_TIMEOUT_MS, 10_000);
  assert.is(MAX_BODY_BYTES, 1_048_576);
});

test('GET with the bearer token, Accept json and a user agent; body returned', async () => {
  await withApi({}, async (api, creds) => {
    const body = await apiGet(creds, HOTFIX_CONFIGMAP_PATH, { userAgent: 'aks-node-controller/test' });
    assert.equal(JSON.parse(body).data, { 'hotfixes.json': '{}' });
    const seen = api.requests.at(-1)!;
    assert.equal(
      [seen.method, seen.accept, seen.userAgent, seen.user],
      ['GET', 'application/json', 'aks-node-controller/test', 'system:bootstrap:abcdef'],
    );
  });
});

test('client certificate (both halves) authenticates; no Authorization header without a token', async () => {
  await withApi({}, async (api, creds) => {
    const mtls = { ...creds, token: undefined, clientCert: Buffer.from(api.pki.client.cert), clientKey: new Secret(api.pki.client.key) };
    await apiGet(mtls, HOTFIX_CONFIGMAP_PATH);
    assert.equal([api.requests.at(-1)!.bearer, api.requests.at(-1)!.user], [false, api.pki.clientUser]);
    const certOnly = { ...creds, token: undefined, clientCert: Buffer.from(api.pki.client.cert) };
    assert.match(await failure(apiGet(certOnly, HOTFIX_CONFIGMAP_PATH)), /apiserver returned status 401/);
    const mismatched = { ...mtls, clientKey: new Secret(api.pki.foreignClient.key) };
    assert.match(await failure(apiGet(mismatched, HOTFIX_CONFIGMAP_PATH)), /^loading client key pair: /);
  });
});

test('non-2xx -> apiserver returned status <code> for <url>', async () => {
  await withApi({ configMaps: {} }, async (api, creds) => {
    assert.is(
      await failure(apiGet(creds, HOTFIX_CONFIGMAP_PATH)),
      `apiserver returned status 404 for https://${api.address}${HOTFIX_CONFIGMAP_PATH}`,
    );
    assert.match(await failure(apiGet({ ...creds, token: new Secret('nope.nope') }, HOTFIX_CONFIGMAP_PATH)), /status 401/);
  });
});

test('trust: only the given CA; no CA = system roots (which do not know the test CA); CA without a certificate', async () => {
  await withApi({}, async (api, creds) => {
    assert.match(
      await failure(apiGet({ ...creds, ca: Buffer.from(api.pki.otherCa.cert) }, HOTFIX_CONFIGMAP_PATH)),
      /^GET https:\/\/127\.0\.0\.1:\d+\/api/,
    );
    assert.match(await failure(apiGet({ ...creds, ca: undefined }, HOTFIX_CONFIGMAP_PATH)), /^GET https:/);
    assert.is(await failure(apiGet({ ...creds, ca: Buffer.from('garbage') }, HOTFIX_CONFIGMAP_PATH)), 'failed to parse cluster CA PEM');
  });
});

test('hasPemCertificate: needs one complete CERTIFICATE block holding DER', () => {
  const pki = makeTestPki();
  assert.ok(hasPemCertificate(Buffer.from(pki.ca.cert)));
  assert.ok(hasPemCertificate(Buffer.from(`junk\n${pki.client.key}${pki.ca.cert}`)));
  assert.not.ok(hasPemCertificate(Buffer.from(pki.client.key)));
  assert.not.ok(hasPemCertificate(Buffer.from('-----BEGIN CERTIFICATE-----\n')));
  assert.not.ok(hasPemCertificate(Buffer.from('-----BEGIN CERTIFICATE-----\nZ2FyYmFnZQ==\n-----END CERTIFICATE-----\n')));
});

test('host name verification: a certificate for another name is refused; `localhost` matches by DNS name', async () => {
  await withApi({ cert: 'wrong-name' }, async (_api, creds) => {
    assert.match(await failure(apiGet(creds, HOTFIX_CONFIGMAP_PATH)), /^GET https:/);
  });
  await withApi({}, async (api, creds) => {
    const body = await apiGet({ ...creds, server: `localhost:${api.port}` }, HOTFIX_CONFIGMAP_PATH);
    assert.ok(body.includes('ConfigMap'));
  });
});

test('an invalid address is refused before any I/O; no port means 443', async () => {
  const creds: ApiCredentials = { source: 't', server: 'h.example/path' };
  assert.is(await failure(apiGet(creds, '/x')), 'invalid apiserver address "h.example/path" (expected host[:port])');
  assert.equal(targetOf('myapi.example.com'), { host: 'myapi.example.com', port: 443 });
  assert.throws(
    () => targetOf('admin:hunter22@h:443'),
    (e: unknown) => !errorMessage(e).includes('hunter22') && /user info/.test(errorMessage(e)),
  );
  assert.equal(targetOf('[fd00::1]'), { host: 'fd00::1', port: 443 });
  assert.equal(targetOf('10.0.0.1:6443'), { host: '10.0.0.1', port: 6443 });
});

test('the deadline covers a TCP peer that never speaks TLS and a server that never answers', async () => {
  const held: Socket[] = [];
  const silent = createServer((s) => void held.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const creds: ApiCredentials = {
    source: 't',
    server: `127.0.0.1:${(silent.address() as AddressInfo).port}`,
    ca: Buffer.from(makeTestPki().ca.cert),
  };
  let started = Date.now();
  assert.match(await failure(apiGet(creds, '/x', { timeoutMs: 300 })), /no complete answer within 0\.3 s$/);
  assert.ok(Date.now() - started < 2_000);
  held.forEach((s) => s.destroy());
  await new Promise<void>((r) => silent.close(() => r()));
  await withApi({ override: () => true }, async (_api, c) => {
    started = Date.now();
    assert.match(await failure(apiGet(c, HOTFIX_CONFIGMAP_PATH, { timeoutMs: 300 })), /no complete answer within 0\.3 s$/);
    assert.ok(Date.now() - started < 2_000);
  });
});

test('the deadline covers a dripping body', async () => {
  const override: FakeApiServerOptions['override'] = (_req, res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
    return true;
  };
  await withApi({ override }, async (_api, creds) => {
    assert.match(await failure(apiGet(creds, HOTFIX_CONFIGMAP_PATH, { timeoutMs: 400 })), /no complete answer within 0\.4 s$/);
  });
});

test('body cap: declared too large, streamed too large, exactly at the cap is fine', async () => {
  const sizes = { declared: 5000, streamed: 5000, exact: 1000 };
  for (const [kind, size] of Object.entries(sizes)) {
    const override: FakeApiServerOptions['override'] = (_req, res) => {
      res.writeHead(200, kind === 'declared' ? { 'Content-Length': String(size) } : {});
      res.end(' '.repeat(size));
      return true;
    };
    await withApi({ override }, async (_api, creds) => {
      const result = await failure(apiGet(creds, HOTFIX_CONFIGMAP_PATH, { maxBodyBytes: 1000 }));
      if (kind === 'exact') assert.is(result, 'no error');
      else assert.match(result, /exceeds 1000 bytes$/);
    });
  }
});

test('a body cut short by the server is an error, not a short document', async () => {
  const override: FakeApiServerOptions['override'] = (_req, res) => {
    res.writeHead(200, { 'Content-Length': '100' });
    res.write('{"data":');
    setTimeout(() => res.socket?.destroy(), 20);
    return true;
  };
  await withApi({ override }, async (_api, creds) => {
    assert.match(await failure(apiGet(creds, HOTFIX_CONFIGMAP_PATH)), /cut off|aborted|socket hang up|ECONNRESET/);
  });
});

test.run();

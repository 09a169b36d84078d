// An impossible calendar date is never an expiry (issue 25): `--expires 2027-02-30T00:00:00Z` is refused
// by `hotfix pointer render`, a payload carrying it by `sign`, and a signed one by a node's own checks
// (`hotfix pointer verify`, the node's exact gate), on the compiled binary without baked keys.
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const IMPOSSIBLE = [
  '2027-02-30T00:00:00Z',
  '2027-04-31T00:00:00Z',
  '2027-13-01T00:00:00Z',
  '2027-01-01T24:00:00Z',
  '2027-01-01T00:00:00+24:00',
];
const TYPE = 'application/vnd.aks-node-controller.hotfix-pointer+json';
const box: Sandbox = makeSandbox('anc-dates-');
test.after(() => box.cleanup());

const payload = (expires: string) =>
  JSON.stringify({ schemaVersion: 1, serial: 1, expires, scope: {}, hotfixes: { '202604.01': '202604.01.1' } });
const configMap = (data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'anc-hotfix-version', namespace: 'kube-system' }, data });

test('render refuses an impossible --expires; a real one (leap day) renders', async () => {
  for (const expires of IMPOSSIBLE) {
    const r = await runAnc(['hotfix', 'pointer', 'render', '--serial', '1', '--expires', expires, '--hotfix', '202604.01=202604.01.1']);
    assert.is(r.exitCode, 1, `${expires}: ${r.stdout}`);
    assert.match(r.stderr, `--expires "${expires}": expected a valid RFC 3339 time`);
  }
  const leap = await runAnc([
    'hotfix',
    'pointer',
    'render',
    '--serial',
    '1',
    '--expires',
    '2028-02-29T00:00:00Z',
    '--hotfix',
    '202604.01=202604.01.1',
  ]);
  assert.is(leap.exitCode, 0, leap.stderr);
});

test('sign refuses a payload whose expires is an impossible date', async () => {
  const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  const keyFile = box.write('/signing-key.pem', String(key), 0o600);
  for (const expires of IMPOSSIBLE) {
    const file = box.write('/unsigned.json', configMap({ 'hotfixes.json': payload(expires) }));
    const r = await runAnc(['hotfix', 'pointer', 'sign', '--key', keyFile, '--key-id', 'fleet', file]);
    assert.is(r.exitCode, 1, `${expires}: ${r.stdout}`);
    assert.match(r.stderr, `expires "${expires}" is not a valid RFC 3339 time`);
  }
});

test("a node's checks refuse a signed payload whose expires is an impossible date (refused, nothing staged)", async () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keys = box.write(
    '/keys.json',
    JSON.stringify({ keys: [{ keyid: 'fleet', algorithm: 'ed25519', publicKey: publicKey.export({ type: 'spki', format: 'pem' }) }] }),
  );
  for (const expires of IMPOSSIBLE) {
    const body = Buffer.from(payload(expires));
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${TYPE.length} ${TYPE} ${body.length} `), body]);
    const envelope = {
      payloadType: TYPE,
      payload: body.toString('base64'),
      signatures: [{ keyid: 'fleet', sig: sign(null, pae, privateKey).toString('base64') }],
    };
    const file = box.write('/signed.json', configMap({ 'hotfixes.json': body.toString(), 'pointer.dsse.json': JSON.stringify(envelope) }));
    const r = await runAnc(['hotfix', 'pointer', 'verify', file, '--mode', 'enforce', '--keys', keys, '--at', '2026-06-01T00:00:00Z']);
    assert.is(r.exitCode, 1, `${expires}: ${r.stdout}`);
    assert.match(r.stdout, 'rejected: outcome=failed');
    assert.match(r.stdout, `expires "${expires}" is not a valid RFC 3339 time`);
  }
});

test.run();

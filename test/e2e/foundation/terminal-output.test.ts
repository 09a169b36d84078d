// No raw control character reaches a terminal (issue 25): strings a ConfigMap writer without the signing
// key controls (a pointer's version string in unsigned-allowed mode, a DSSE keyid) and a staged binary's
// version answer are escaped in the text output of `hotfix explain`, `hotfix pointer verify`, `status`,
// the agent's stderr and log file, and the launcher's journal / serial console lines.
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, runLauncher, writeFakeAgent, writeHostname } from '../../fakes/node-image.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

/** OSC window title, BEL, clear screen, CSI colour (C1), carriage return, DEL. */
const EVIL = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\r\u007f';
const ESCAPED = '\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u000d\\u007f';
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them is the test.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
const boxes: Sandbox[] = [];
test.after(() => boxes.forEach((b) => b.cleanup()));

function box(): Sandbox {
  const b = makeSandbox('anc-terminal-');
  boxes.push(b);
  return b;
}

function assertClean(text: string, what: string): void {
  assert.not.match(text, RAW, `${what} carries a raw control character: ${JSON.stringify(text)}`);
}

test('hotfix explain (text): a pointer version string with control characters is escaped', async () => {
  const b = box();
  b.write(POINTER, JSON.stringify({ hotfixes: { '202604.01': `202604.01.1${EVIL}` } }));
  const r = await runAnc(['hotfix', 'explain', '--current-version', '202604.01.0'], { root: b.root });
  assert.is(r.exitCode, 0, r.stderr);
  assertClean(r.stdout, 'explain');
  assert.ok(r.stdout.includes(`resolved: 202604.01.1${ESCAPED}`), r.stdout);
});

test('hotfix pointer verify (text) and its log: a DSSE keyid with control characters is escaped', async () => {
  const b = box();
  const type = 'application/vnd.aks-node-controller.hotfix-pointer+json';
  const payload = JSON.stringify({ schemaVersion: 1, serial: 1, expires: '2099-01-01T00:00:00Z', scope: {}, hotfixes: {} });
  const body = Buffer.from(payload);
  const signer = generateKeyPairSync('ed25519');
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${body.length} `), body]);
  const envelope = {
    payloadType: type,
    payload: body.toString('base64'),
    signatures: [{ keyid: `k${EVIL}`, sig: sign(null, pae, signer.privateKey).toString('base64') }],
  };
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'anc-hotfix-version', namespace: 'kube-system' },
    data: { 'hotfixes.json': payload, 'pointer.dsse.json': JSON.stringify(envelope) },
  };
  const trusted = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
  const keys = b.write('/keys.json', JSON.stringify({ keys: [{ keyid: 'fleet', algorithm: 'ed25519', publicKey: trusted }] }));
  const file = b.write('/cm.json', JSON.stringify(configMap));
  const r = await runAnc(['hotfix', 'pointer', 'verify', file, '--mode', 'enforce', '--keys', keys], {
    root: b.root,
    env: { ANC_LOG_STDERR: '1' },
  });
  assert.is(r.exitCode, 1);
  assertClean(r.stdout + r.stderr, 'verify');
  assert.ok(r.stdout.includes(`signed by: k${ESCAPED}; trusted: fleet`), r.stdout);
});

test('status (text): a failing step message with control characters is escaped', async () => {
  const b = box();
  b.write(
    '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events/1000.json',
    JSON.stringify({
      Timestamp: '2026-04-01 10:00:00.000',
      OperationId: '2026-04-01 10:00:01.000',
      Version: '202604.01.0',
      TaskName: 'AKS.AKSNodeController.CheckHotfix',
      EventLevel: 'Error',
      Message: `outcome=signatureInvalid reason=no signature by a trusted key (signed by: k${EVIL})`,
      EventPid: '0',
      EventTid: '0',
    }),
  );
  const r = await runAnc(['status'], { root: b.root });
  assertClean(r.stdout, 'status');
  assert.ok(r.stdout.includes(`signed by: k${ESCAPED}`), r.stdout);
});

test("launcher: a staged binary's version answer with control characters never reaches the console raw", async () => {
  const b = box();
  const p = imagePaths(b.root);
  writeHostname(b.root);
  mkdirSync(join(b.root, 'opt/azure/containers'), { recursive: true });
  writeFileSync(p.config, '{}');
  writeFakeAgent(p.binary, join(b.root, 'calls'), { label: 'baked' });
  writeFakeAgent(p.hotfixBinary, join(b.root, 'calls'), { label: 'hotfix' });
  const fake = readFileSync(p.hotfixBinary, 'utf8').replace(
    'echo 202604.01.1;',
    `printf '202604.01.1%s\\n' "$(printf '\\033]0;pwned\\007\\033[2J\\302\\233')";`,
  );
  writeFileSync(p.hotfixBinary, fake);
  const r = await runLauncher(b.root);
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  assertClean(r.stdout, 'launcher');
  assert.ok(r.stdout.includes('reports version 202604.01.1?]0;pwned??[2J?'), r.stdout);
  rmSync(join(b.root, 'calls'), { recursive: true, force: true });
});

test.run();

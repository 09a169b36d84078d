// The pointer's recall list (issue 34 §1) on the compiled binary: `hotfix pointer render --recall`, signing
// and `verify` (recall is part of the signed bytes), and check-hotfix staging it in enforce mode from the
// signed payload only, and in the default mode from an unsigned ConfigMap like the other fields.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer } from '../../fakes/apiserver.ts';
import { ANC_VERSION, assertRun, CM_KEY, mergedPointer, nodeFor, runCheck } from '../check-hotfix/node.ts';
import { makeSandbox, runAnc } from '../harness.ts';
import { CURRENT, envelope, FUTURE, keyFile, SIGNED_BIN } from './keys.ts';

const HOTFIXES = { [ANC_VERSION.base]: ANC_VERSION.target };
const RECALLED = `${ANC_VERSION.base}.9`;
const box = makeSandbox('anc-recall-');
test.after(() => box.cleanup());
const anc = (args: string[]) => runAnc(args, { bin: SIGNED_BIN, root: box.root, cwd: box.root });

test('render --recall puts the list in the payload; sign and verify show it (it is signed)', async () => {
  const flags = ['--hotfix', `${ANC_VERSION.base}=${ANC_VERSION.target}`, '--serial', '3', '--expires', FUTURE];
  const rendered = await anc(['hotfix', 'pointer', 'render', ...flags, '--recall', RECALLED, '-o', 'json']);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const data = JSON.parse(JSON.parse(rendered.stdout).data['hotfixes.json']);
  assert.equal(data.recall, [RECALLED]);
  const same = await anc(['hotfix', 'pointer', 'render', ...flags, '--recall', ANC_VERSION.target]);
  assert.is(same.exitCode, 1);
  assert.match(
    same.stderr,
    `--recall ${ANC_VERSION.target}: this pointer ships ${ANC_VERSION.target} for image ${ANC_VERSION.base}, the same version`,
  );
  const bad = await anc(['hotfix', 'pointer', 'render', ...flags, '--recall', 'latest']);
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, '--recall "latest": expected a hotfix version');
  const file = join(box.root, 'cm.json');
  writeFileSync(file, rendered.stdout);
  const signed = await anc(['hotfix', 'pointer', 'sign', '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, file]);
  assert.is(signed.exitCode, 0, signed.stderr);
  const signedFile = join(box.root, 'signed.yaml');
  writeFileSync(signedFile, signed.stdout);
  const verified = await anc(['hotfix', 'pointer', 'verify', signedFile, '--mode', 'enforce']);
  assert.is(verified.exitCode, 0, verified.stdout);
  assert.match(verified.stdout, `recall: ${RECALLED} (nodes that staged these return to the baked agent)`);
});

async function checkWith(data: Record<string, string>, mode?: string) {
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: data } });
  try {
    return await runCheck(nodeFor(api, {}), { bin: SIGNED_BIN, env: mode ? { ANC_HOTFIX_POINTER_SIGNING: mode } : {} });
  } finally {
    await api.close();
  }
}

const withRecall = (pointer: string) => pointer.replace(/}$/, `,"recall":["${RECALLED}"]}`);

test('enforce mode: check-hotfix stages the recall from the signed bytes only', async () => {
  const text = JSON.stringify({ schemaVersion: 1, serial: 5, expires: FUTURE, scope: {}, hotfixes: HOTFIXES, recall: [RECALLED] });
  const run = await checkWith({ 'hotfixes.json': text, 'pointer.dsse.json': envelope(text, [CURRENT]) }, 'enforce');
  assertRun(run, 'configMapRead');
  assert.is(run.pointer, withRecall(mergedPointer(HOTFIXES)));
  // A recall added to the unsigned copy beside a signature that does not cover it is never read.
  const plain = JSON.stringify({ schemaVersion: 1, serial: 6, expires: FUTURE, scope: {}, hotfixes: HOTFIXES });
  const forged = JSON.stringify({ ...JSON.parse(plain), recall: [ANC_VERSION.target] });
  const tampered = await checkWith({ 'hotfixes.json': forged, 'pointer.dsse.json': envelope(plain, [CURRENT]) }, 'enforce');
  assertRun(tampered, 'configMapRead');
  assert.is(tampered.pointer, mergedPointer(HOTFIXES));
});

test('default mode: an unsigned ConfigMap recall is honoured like its other fields', async () => {
  const run = await checkWith({ 'hotfixes.json': JSON.stringify({ hotfixes: HOTFIXES, recall: [RECALLED] }) });
  assertRun(run, 'configMapRead');
  assert.is(run.pointer, withRecall(mergedPointer(HOTFIXES)));
});

test.run();

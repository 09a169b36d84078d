// One reading of signed bytes (issue 25): the review tools (`hotfix pointer sign`, `verify`) and a node
// (check-hotfix, then download-hotfix's pointer reader) read a signed payload the same way. Payloads the
// Go-compatible pointer reader would read differently from the signed schema (a legacy `version`, a
// case-variant key such as "Rollout", a key twice) are refused by sign, by verify and by the node.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer } from '../../fakes/apiserver.ts';
import { ANC_VERSION, CM_KEY, EXISTING_POINTER, POINTER, nodeFor, runCheck } from '../check-hotfix/node.ts';
import { runAnc } from '../harness.ts';
import { CURRENT, KEYSET_FILE, SIGNED_BIN, envelope, keyFile } from './keys.ts';

const WORK = mkdtempSync(join(tmpdir(), 'anc-one-reading-'));
test.after(() => rmSync(WORK, { recursive: true, force: true }));

const { base, target } = ANC_VERSION;
const head = `"schemaVersion":1,"serial":1,"expires":"2099-01-01T00:00:00Z","scope":{}`;
/** Payloads the strict schema reader and the Go-compatible pointer reader would read differently. */
const AMBIGUOUS: Array<[string, string, RegExp]> = [
  [
    'legacy version',
    `{${head},"hotfixes":{},"version":"${target}"}`,
    /key "version" is not part of the signed pointer: .*legacy single pointer/,
  ],
  [
    'case-variant Rollout at 0%',
    `{${head},"hotfixes":{"${base}":"${target}"},"Rollout":{"${base}":{"percent":0,"salt":"s"}}}`,
    /key "Rollout" is not part of the signed pointer: .*read it as "rollout"/,
  ],
  ['a map key twice', `{${head},"hotfixes":{"${base}":"${target}","${base}":"${base}.0"}}`, /key "hotfixes\.\d+\.\d+" appears twice/],
];

const configMap = (data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'anc-hotfix-version', namespace: 'kube-system' }, data });

for (const [name, payload, why] of AMBIGUOUS) {
  test(`${name}: sign refuses it, verify rejects it, a node stages nothing`, async () => {
    const unsigned = join(WORK, `${name}.json`);
    writeFileSync(unsigned, configMap({ 'hotfixes.json': payload }));
    const sign = await runAnc(['hotfix', 'pointer', 'sign', '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, unsigned], {
      root: WORK,
    });
    assert.is(sign.exitCode, 1, sign.stdout);
    assert.match(sign.stderr, why);

    const signed = { 'hotfixes.json': payload, 'pointer.dsse.json': envelope(payload, [CURRENT]) };
    const file = join(WORK, `${name}-signed.json`);
    writeFileSync(file, configMap(signed));
    const verify = await runAnc(['hotfix', 'pointer', 'verify', file, '--mode', 'enforce', '--keys', KEYSET_FILE], { root: WORK });
    assert.is(verify.exitCode, 1, verify.stdout);
    assert.match(verify.stdout, 'rejected: outcome=failed');
    assert.match(verify.stdout, why);

    const api = await startFakeApiServer({ configMaps: { [CM_KEY]: { ...signed } } });
    try {
      const run = await runCheck(nodeFor(api), { bin: SIGNED_BIN });
      assert.is(run.outcome, 'failed', run.stderr);
      assert.match(run.error, why);
      assert.is(run.pointer, EXISTING_POINTER, 'nothing staged');
      assert.ok(existsSync(run.sb.path(POINTER)));
    } finally {
      await api.close();
    }
  });
}

test('a clean signed payload: verify and the node read the same target and wave', async () => {
  const payload = `{${head},"hotfixes":{"${base}":"${target}"},"rollout":{"${base}":{"percent":0,"salt":"s"}}}`;
  const signed = { 'hotfixes.json': payload, 'pointer.dsse.json': envelope(payload, [CURRENT]) };
  const file = join(WORK, 'clean.json');
  writeFileSync(file, configMap(signed));
  const verify = await runAnc(['hotfix', 'pointer', 'verify', '-o', 'json', file, '--mode', 'enforce', '--keys', KEYSET_FILE], {
    root: WORK,
  });
  assert.is(verify.exitCode, 0, verify.stdout + verify.stderr);
  const api = await startFakeApiServer({ configMaps: { [CM_KEY]: signed } });
  try {
    const run = await runCheck(nodeFor(api), { bin: SIGNED_BIN });
    assert.is(run.outcome, 'configMapRead', run.stderr);
    const staged = JSON.parse(run.pointer!);
    assert.equal([staged.hotfixes[base], staged.rollout[base].percent], [target, 0]);
    assert.is(staged.version, '202401.01.1', 'the existing legacy version is kept, never read from signed bytes');
  } finally {
    await api.close();
  }
});

test.run();

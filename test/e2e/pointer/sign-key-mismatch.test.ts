// Issue 40 (Low): `hotfix pointer sign --key K --key-id ID` where this binary bakes ID with another public
// key than K's: refused at signing, naming the mismatch, instead of every node reading it as "altered".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';
import { CURRENT, DIR, keyFile, SIGNED_BIN, STRANGER } from './keys.ts';

const sign = (key: string, keyid: string, file: string) =>
  runAnc(['hotfix', 'pointer', 'sign', '--key', key, '--key-id', keyid, file], { root: DIR, bin: SIGNED_BIN });

test("a private key that is not the baked key id's: exit 1 at signing, nothing printed; the right key signs", async () => {
  const rendered = await runAnc(
    [
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      '202604.01=202604.01.1',
      '--serial',
      '3',
      '--expires',
      new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    ],
    { root: DIR, bin: SIGNED_BIN },
  );
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const file = join(DIR, 'pointer-to-sign.yaml');
  writeFileSync(file, rendered.stdout);
  const wrong = await sign(keyFile(STRANGER), CURRENT.keyid, file);
  assert.is(wrong.exitCode, 1);
  assert.is(wrong.stdout, '');
  assert.match(
    wrong.stderr,
    `aks-node-controller: --key does not match key id "${CURRENT.keyid}": this binary bakes another public key under that id, so nodes built like it would refuse the signature (as altered)\n`,
  );
  const right = await sign(keyFile(CURRENT), CURRENT.keyid, file);
  assert.is(right.exitCode, 0, right.stderr);
  // A key id this binary does not know is signed as asked (another fleet's binary may bake it).
  assert.is((await sign(keyFile(STRANGER), STRANGER.keyid, file)).exitCode, 0);
});

test.run();

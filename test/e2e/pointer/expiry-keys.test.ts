// Issue 29: render, sign and verify warn about an expiry under an hour or over 90 days away; verify names
// the key set it checked against, and when the binary trusts no key it says that is the cause (not the
// signature), instead of advising to sign again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runAnc } from '../harness.ts';
import { CURRENT, keyFile, SIGNED_BIN } from './keys.ts';

const WORK = mkdtempSync(join(tmpdir(), 'anc-expiry-'));
const at = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/\.\d+Z$/, 'Z');
const anc = (args: string[], bin = SIGNED_BIN) => runAnc(args, { bin, root: WORK, cwd: WORK });
test.after(() => rmSync(WORK, { recursive: true, force: true }));

async function render(name: string, expires: string) {
  const out = await anc(['hotfix', 'pointer', 'render', '--hotfix', '202604.01=202604.01.1', '--serial', '1', '--expires', expires]);
  assert.is(out.exitCode, 0, out.stderr);
  writeFileSync(join(WORK, `${name}.yaml`), out.stdout);
  return out;
}

test('render and sign warn about an expiry minutes or years away; weeks are quiet', async () => {
  const soon = await render('soon', at(2 * 60_000 + 5_000));
  assert.match(
    soon.stderr,
    /^warning: the pointer expires in [23] minutes \(.*\): nodes that check after that stage nothing; render it with a later --expires\n$/,
  );
  const late = await render('late', at(10 * 365 * 86_400_000));
  assert.match(
    late.stderr,
    /^warning: the pointer expires in 36\d\d days \(.*\), over 90: a superseded or leaked pointer stays valid that long; use weeks, not years\n$/,
  );
  assert.is((await render('weeks', at(21 * 86_400_000))).stderr, '');
  const signed = await anc(['hotfix', 'pointer', 'sign', '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, join(WORK, 'late.yaml')]);
  assert.is(signed.exitCode, 0, signed.stderr);
  assert.match(signed.stderr, /^warning: the pointer expires in 36\d\d days/);
  writeFileSync(join(WORK, 'late-signed.yaml'), signed.stdout);
});

test('verify names the key set, warns about the expiry, and blames an empty key set instead of the signature', async () => {
  const ok = await anc(['hotfix', 'pointer', 'verify', '-o', 'json', join(WORK, 'late-signed.yaml')]);
  assert.is(ok.exitCode, 0, ok.stdout);
  const report = JSON.parse(ok.stdout);
  assert.is(report.keySet, `the keys baked into ${SIGNED_BIN} (2: fleet-2026a, fleet-2026b)`);
  assert.ok(
    report.warnings.some((w: string) => /expires in 36\d\d days/.test(w)),
    report.warnings.join('\n'),
  );
  const none = await anc(['hotfix', 'pointer', 'verify', join(WORK, 'late-signed.yaml')], BIN);
  assert.is(none.exitCode, 1);
  assert.match(none.stdout, 'rejected: outcome=signatureInvalid');
  assert.match(none.stdout, `keys: the keys baked into ${BIN} (none: built without --pointer-keys)`);
  assert.match(
    none.stdout,
    `hint: this binary (${BIN}) trusts no pointer signing key, so no signature can verify: the cause is the key set, not the signature.`,
  );
  assert.not.match(none.stdout, 'sign the ConfigMap again');
});

test.run();

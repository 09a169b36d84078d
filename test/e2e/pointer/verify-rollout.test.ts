// Issue 40 (Low): `hotfix pointer verify`'s rollout line: each step `percent @ time` in order, which step is
// in force now, and the salt apart; one line per base.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';
import { CURRENT, DIR, keyFile, SIGNED_BIN } from './keys.ts';

const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString().replace(/:00\.000Z$/, 'Z');

test('rollout lines: steps in order with the one in force now marked, the salt apart; a schedule not yet started says so', async () => {
  const past = minute(Date.now() - 3_600_000);
  const future = minute(Date.now() + 86_400_000);
  const later = minute(Date.now() + 2 * 86_400_000);
  const run = (args: string[]) => runAnc(args, { root: DIR, bin: SIGNED_BIN });
  const rendered = await run([
    ...['hotfix', 'pointer', 'render', '--hotfix', '202604.01=202604.01.1', '--hotfix', '202605.01=202605.01.2'],
    ...['--schedule', `202604.01=10@${past},100@${future}`, '--schedule', `202605.01=5@${future},50@${later}`],
    ...['--serial', '4', '--expires', new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z')],
  ]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const file = join(DIR, 'scheduled.yaml');
  writeFileSync(file, rendered.stdout);
  const signed = await run(['hotfix', 'pointer', 'sign', '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, file]);
  assert.is(signed.exitCode, 0, signed.stderr);
  writeFileSync(file, signed.stdout);
  const r = await run(['hotfix', 'pointer', 'verify', file]);
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  const at = (m: string) => m.replace(/Z$/, ':00Z');
  const salt = (base: string) => new RegExp(`rollout: ${base.replace('.', '\\.')}: .*; salt "[^"]*"\n`);
  assert.match(r.stdout, `\nrollout: 202604.01: 10% @ ${at(past)} (in force now), 100% @ ${at(future)}; salt "`);
  assert.match(
    r.stdout,
    `\nrollout: 202605.01: 5% @ ${at(future)}, 50% @ ${at(later)} (none in force yet: 0% until ${at(future)}); salt "`,
  );
  assert.match(r.stdout, salt('202604.01'));
  assert.match(r.stdout, salt('202605.01'));
});

test.run();

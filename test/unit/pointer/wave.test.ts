// Staged waves: the seed from (salt, product UUID), the wave decision, and the fleet-level properties the
// issue asks for, over 10,000 simulated node identities.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideWave, normaliseProductUuid, readProductUuid, waveSeed } from '../../../src/pointer/wave.ts';
import { createRealFileSystem } from '../../../src/platform/fs.ts';
import { fakeDeps } from '../../fakes/deps.ts';

/** 10,000 deterministic, well-formed product UUIDs (no randomness in the test either). */
const FLEET = Array.from({ length: 10_000 }, (_, i) => {
  const h = createHash('sha1').update(`node-${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
});
const inWave = (percent: number, salt: string) => new Set(FLEET.filter((u) => decideWave({ percent, salt }, u).inWave));

test('seed: first 53 bits of sha256(salt + ":" + uuid) as a fraction, pinned', () => {
  const uuid = '4c4c4544-0036-3510-8058-b7c04f4e3332';
  const digest = createHash('sha256').update(`wave-1:${uuid}`).digest();
  assert.is(waveSeed(uuid, 'wave-1'), Number(digest.readBigUInt64BE(0) >> 11n) / 2 ** 53);
  assert.is(waveSeed(uuid, 'wave-1'), waveSeed(uuid, 'wave-1'), 'deterministic');
  for (const u of FLEET.slice(0, 1000)) {
    const s = waveSeed(u, 'x');
    assert.ok(s >= 0 && s < 1, `${s} in [0, 1)`);
  }
});

test('10,000 identities: the share in the wave is within ±1 point of the percent', () => {
  for (const percent of [0, 1, 5, 10, 25, 33.3, 50, 75, 90, 99, 100]) {
    for (const salt of ['', 'wave-1', 'ünïcode salt']) {
      const share = (inWave(percent, salt).size / FLEET.length) * 100;
      assert.ok(Math.abs(share - percent) <= 1, `${percent}% (salt ${JSON.stringify(salt)}): ${share.toFixed(2)}%`);
    }
  }
});

test('raising the percent only ever adds nodes; lowering it only removes them', () => {
  let previous = new Set<string>();
  for (const percent of [0, 1, 2, 5, 10, 20, 50, 80, 100]) {
    const now = inWave(percent, 'wave-1');
    for (const node of previous) assert.ok(now.has(node), `${node} left the wave when raising to ${percent}%`);
    previous = now;
  }
});

test('changing the salt reshuffles: two 20% waves overlap about as two independent draws (4%)', () => {
  const a = inWave(20, 'salt-a');
  const b = inWave(20, 'salt-b');
  const both = [...a].filter((n) => b.has(n)).length / FLEET.length;
  assert.ok(Math.abs(both - 0.04) < 0.01, `overlap ${both}`);
});

test('percent 0 withdraws everyone; 100 (or no entry) takes everyone, even without an identity', () => {
  assert.is(inWave(0, 'x').size, 0);
  assert.is(decideWave({ percent: 0, salt: 'x' }, FLEET[0]).reason, 'notInWave');
  assert.equal(decideWave(undefined, undefined), { percent: 100, salt: '', seed: null, cutoff: 1, inWave: true, reason: 'full' });
  assert.equal(decideWave({ percent: 100, salt: 's' }, undefined).inWave, true);
});

test('a missing identity is outside any partial wave (fail-safe), even at 99.9%', () => {
  for (const percent of [0.1, 50, 99.9]) {
    const d = decideWave({ percent, salt: 's' }, undefined);
    assert.equal([d.inWave, d.seed, d.reason, d.cutoff], [false, null, 'notInWave', percent / 100]);
  }
});

test('identity: trimmed, case-insensitive; unset placeholders and junk are unusable', () => {
  assert.is(normaliseProductUuid(' 4C4C4544-0036-3510-8058-B7C04F4E3332\n'), '4c4c4544-0036-3510-8058-b7c04f4e3332');
  for (const bad of [
    '',
    'Not Settable',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '4c4c4544-0036-3510-8058',
    undefined,
  ]) {
    assert.is(normaliseProductUuid(bad), undefined, String(bad));
  }
});

test('readProductUuid: under the sandbox root; missing or unreadable file is a problem, not an error', () => {
  const d = fakeDeps();
  try {
    const fs = createRealFileSystem();
    assert.match(readProductUuid(fs, d.paths.productUuid).problem!, 'product_uuid');
    assert.ok(d.paths.productUuid.startsWith(d.paths.root + '/sys/class/dmi/id/'));
    mkdirSync(dirname(d.paths.productUuid), { recursive: true });
    writeFileSync(d.paths.productUuid, `${FLEET[7]!.toUpperCase()}\n`);
    assert.equal(readProductUuid(fs, d.paths.productUuid), { uuid: FLEET[7] });
  } finally {
    d.cleanup();
  }
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeVcdiff, VcdiffError } from '../../../../src/formats/vcdiff.ts';
import { bufferSource, encode, pair } from './xdelta.ts';

const LIMITS = { maxWindow: 64 << 20, maxTarget: 1 << 30 };

function decode(delta: Uint8Array, base: Uint8Array, limits = LIMITS): Buffer {
  const windows: Uint8Array[] = [];
  const n = decodeVcdiff(delta, bufferSource(base), (w) => void windows.push(w.slice()), limits);
  const out = Buffer.concat(windows);
  assert.is(n, out.length);
  return out;
}

function fault(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.instance(error, VcdiffError);
    return `${(error as VcdiffError).fault}: ${(error as Error).message}`;
  }
  assert.unreachable('decoding succeeded');
  return '';
}

test('decodes xdelta3 deltas byte for byte (packager flags, several seeds, one and many windows)', () => {
  for (const [seed, size, flags] of [
    [1, 300_000, undefined],
    [2, 1_500_000, undefined],
    [3, 700_000, ['-9', '-S', 'none', '-A', '-n', '-W', '16384']],
    [4, 200_000, ['-1', '-S', 'none', '-A', '-n']],
    [5, 900_000, ['-9', '-S', 'none', '-A', '-n', '-N']],
  ] as const) {
    const { base, target } = pair(seed, size);
    const delta = encode(base, target, flags ? [...flags] : undefined);
    assert.ok(delta.length < target.length / 4, `seed ${seed}: delta ${delta.length} of ${target.length}`);
    assert.ok(decode(delta, base).equals(target), `seed ${seed} reconstructs the target`);
  }
});

test('xdelta3 defaults: application header skipped, per-window Adler-32 checked', () => {
  const { base, target } = pair(6, 400_000);
  const delta = encode(base, target, ['-9', '-S', 'none', '-W', '65536']);
  assert.ok(decode(delta, base).equals(target));
  // Flip a byte inside the first window's ADD data: the checksum catches it.
  const tampered = Buffer.from(delta);
  const at = tampered.indexOf(Buffer.from('log message'));
  assert.ok(at > 0);
  tampered[at]! ^= 0xff;
  assert.match(
    fault(() => decode(tampered, base)),
    /^malformed: .*Adler-32/,
  );
});

test('a target with no base at all (pure ADD/RUN, no source segment)', () => {
  const target = Buffer.concat([Buffer.alloc(20000, 7), Buffer.from('hello '.repeat(500))]);
  const delta = encode(Buffer.alloc(0), target);
  assert.ok(decode(delta, Buffer.alloc(0)).equals(target));
});

test('refuses secondary compression as unsupported', () => {
  const { base, target } = pair(7, 100_000);
  assert.match(
    fault(() => decode(encode(base, target, ['-9', '-S', 'djw']), base)),
    /^unsupported: .*secondary compression/,
  );
});

test('bad magic, truncation and a base too short are malformed', () => {
  const { base, target } = pair(8, 300_000);
  const delta = encode(base, target);
  assert.match(
    fault(() => decode(Buffer.from('PK\x03\x04 not a delta'), base)),
    /^malformed: .*bad magic/,
  );
  assert.match(
    fault(() => decode(delta.subarray(0, delta.length - 3), base)),
    /^malformed: /,
  );
  assert.match(
    fault(() => decode(delta, base.subarray(0, 1000))),
    /^malformed: .*outside the 1000-byte base/,
  );
});

test('bounds: the target size and the window size', () => {
  const { base, target } = pair(9, 300_000);
  const delta = encode(base, target);
  assert.match(
    fault(() => decode(delta, base, { maxWindow: 64 << 20, maxTarget: target.length - 1 })),
    /^too-large: .*exceeds/,
  );
  assert.match(
    fault(() => decode(delta, base, { maxWindow: 1000, maxTarget: 1 << 30 })),
    /^too-large: .*target window of \d+ bytes exceeds 1000/,
  );
});

test.run();

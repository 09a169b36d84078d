// Real deltas for the decoder tests: seeded base/target pairs encoded by the stock xdelta3 tool (the
// encoder the packager uses), so the decoder is checked against what production will feed it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 } from '../../config/gen.ts';

/** The packager's settings: plain RFC 3284 (no secondary compression, no app header, no checksum). */
export const PACKAGER_FLAGS = ['-9', '-S', 'none', '-A', '-n', '-W', String(2 * 1024 * 1024)];

export function encode(base: Uint8Array, target: Uint8Array, flags: string[] = PACKAGER_FLAGS): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'anc-vcdiff-'));
  try {
    writeFileSync(join(dir, 'base'), base);
    writeFileSync(join(dir, 'target'), target);
    execFileSync('xdelta3', ['-e', '-f', ...flags, '-s', join(dir, 'base'), join(dir, 'target'), join(dir, 'delta')]);
    return readFileSync(join(dir, 'delta'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A seeded base of `size` bytes with structure (repeats), and a target with scattered edits and a run. */
export function pair(seed: number, size: number): { base: Buffer; target: Buffer } {
  const rng = mulberry32(seed);
  const base = Buffer.alloc(size);
  for (let i = 0; i < size; i++) base[i] = i % 4096 < 2048 ? Math.floor(rng() * 256) : base[i - 2048]!;
  const parts: Buffer[] = [];
  let at = 0;
  while (at < size) {
    const keep = Math.floor((rng() * size) / 8);
    parts.push(base.subarray(at, at + keep));
    at += keep;
    const edit = rng();
    if (edit < 0.3) parts.push(Buffer.from(`log message ${Math.floor(rng() * 1e6)}`));
    else if (edit < 0.5) at += Math.floor(rng() * 300);
    else if (edit < 0.7) parts.push(Buffer.alloc(5000 + Math.floor(rng() * 5000), 0x41));
    else parts.push(base.subarray(Math.floor((rng() * size) / 2), Math.floor((rng() * size) / 2) + 700));
  }
  return { base, target: Buffer.concat(parts) };
}

export function bufferSource(base: Uint8Array) {
  return {
    size: base.length,
    copyTo: (target: Uint8Array, offset: number, position: number, length: number) =>
      target.set(base.subarray(position, position + length), offset),
  };
}

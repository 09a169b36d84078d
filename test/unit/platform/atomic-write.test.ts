import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atomicWrite, randomTempSuffix } from '../../../src/platform/fs.ts';

test('atomicWrite sets the requested mode whatever the umask and leaves no temp file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-atomic-'));
  try {
    const target = join(dir, 'pointer.json');
    writeFileSync(target, 'old', { mode: 0o600 });
    atomicWrite(target, 'new', { mode: 0o644 });
    assert.is(readFileSync(target, 'utf8'), 'new');
    assert.is(statSync(target).mode & 0o777, 0o644);
    assert.equal(readdirSync(dir), ['pointer.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('atomicWrite into a missing directory fails and creates nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-atomic-'));
  try {
    assert.throws(() => atomicWrite(join(dir, 'missing', 'f'), 'x', { mode: 0o644 }));
    assert.equal(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function killWriterAfter(target: string, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', '--loader', 'tsm', 'test/fakes/atomic-writer.ts', target], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), delayMs));
    child.on('close', () => resolve());
  });
}

test('a writer killed at random moments never leaves a partial target file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-atomic-kill-'));
  try {
    const target = join(dir, 'status.json');
    for (let round = 0; round < 6; round++) {
      await killWriterAfter(target, 20 + round * 37);
      let content: Buffer;
      try {
        content = readFileSync(target);
      } catch {
        continue; // killed before the first rename: no file at all is fine, a partial one is not
      }
      assert.is(content.length, 8 * 1024 * 1024, `round ${round}: complete size`);
      const first = content[0]!;
      assert.ok(
        content.every((b) => b === first),
        `round ${round}: one whole version`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('temp names carry 10 random digits (Web Crypto), and a non-durable write is still whole with its mode', () => {
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const n = randomTempSuffix();
    assert.ok(Number.isInteger(n) && n >= 1_000_000_000 && n <= 9_999_999_999, String(n));
    seen.add(n);
  }
  assert.ok(seen.size > 1990, `only ${seen.size} distinct names of 2000`);
  const dir = mkdtempSync(join(tmpdir(), 'anc-atomic-'));
  try {
    atomicWrite(join(dir, 'marker'), 'v1 now\n', { mode: 0o644, durable: false });
    assert.is(readFileSync(join(dir, 'marker'), 'utf8'), 'v1 now\n');
    assert.is(statSync(join(dir, 'marker')).mode & 0o777, 0o644);
    assert.equal(readdirSync(dir), ['marker']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

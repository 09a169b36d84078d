import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backgroundSha256, createHashingWriter, sha256OfFile } from '../../../src/platform/file-stream.ts';
import { syncFile } from '../../../src/platform/fs.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a background digest advances while the caller awaits, and result() finishes it with the same sha256', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-digest-'));
  try {
    const data = randomBytes(5 * 1024 * 1024 + 17);
    const file = join(dir, 'base');
    writeFileSync(file, data);
    const expected = { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
    assert.equal(sha256OfFile(file), expected);

    const idle = backgroundSha256(file);
    for (let i = 0; i < 10; i++) await turn();
    assert.equal(idle.result(), expected, 'finished in the background');
    assert.equal(idle.result(), expected, 'asked twice');

    const asked = backgroundSha256(file);
    assert.equal(asked.result(), expected, 'asked at once: hashed synchronously');

    const cancelled = backgroundSha256(file);
    await turn();
    cancelled.cancel();
    assert.throws(() => cancelled.result(), /cancelled/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a writer without durability skips the fsync; syncFile flushes a file that is renamed meanwhile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-sync-'));
  try {
    const file = join(dir, 'candidate');
    const writer = createHashingWriter(file, 0o600, { durable: false });
    writer.write(Buffer.from('executable'));
    assert.equal(writer.close(), { size: 10, sha256: createHash('sha256').update('executable').digest('hex') });
    const synced = syncFile(file);
    const { renameSync } = await import('node:fs');
    renameSync(file, join(dir, 'pending'));
    await synced;
    await syncFile(join(dir, 'absent')).then(
      () => assert.unreachable('no file to sync'),
      (error: NodeJS.ErrnoException) => assert.is(error.code, 'ENOENT'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

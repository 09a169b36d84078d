import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runProcess, which } from '../../../src/platform/proc.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

test('captures stdout/stderr and the exit status with an explicit environment', async () => {
  const r = await runProcess({ program: '/bin/bash', args: ['-c', 'echo "out $FOO"; echo err >&2; exit 7'], env: { ...env, FOO: 'bar' } });
  assert.is(r.exitCode, 7);
  assert.is(r.stdout, 'out bar\n');
  assert.is(r.stderr, 'err\n');
  assert.is(r.timedOut, false);
});

test('the environment is exactly what the caller gives (nothing inherited)', async () => {
  const r = await runProcess({ program: '/usr/bin/env', args: [], env: { ONLY: '1' } });
  assert.is(r.stdout, 'ONLY=1\n');
});

test('a timeout kills the whole process group, grandchildren included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-proc-'));
  try {
    const marker = join(dir, 'grandchild-survived');
    const started = Date.now();
    const r = await runProcess({
      program: '/bin/bash',
      args: ['-c', `(sleep 1.5; touch ${marker}) & sleep 30`],
      env,
      timeoutMs: 300,
    });
    assert.ok(Date.now() - started < 5000, 'returned promptly');
    assert.is(r.timedOut, true);
    assert.is(r.exitCode, null);
    assert.is(r.signal, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.not.ok(existsSync(marker), 'the grandchild was killed with the group');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a program that cannot start reports a spawn error, not a throw', async () => {
  const r = await runProcess({ program: '/nonexistent/program', args: [], env });
  assert.is(r.exitCode, null);
  assert.ok(r.spawnError);
});

test('capture keeps the tail of very large output', async () => {
  const r = await runProcess({
    program: '/bin/bash',
    args: ['-c', 'head -c 300000 /dev/zero | tr "\\0" a; echo END'],
    env,
    captureLimit: 1000,
  });
  assert.ok(r.stdout.length <= 1000);
  assert.ok(r.stdout.endsWith('END\n'));
});

test('which finds executables on a PATH string only', () => {
  assert.is(which('bash', '/nonexistent:/bin'), '/bin/bash');
  assert.is(which('bash', '/nonexistent'), undefined);
  assert.is(which('bash', undefined), undefined);
});

test.run();

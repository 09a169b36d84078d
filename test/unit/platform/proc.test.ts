import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

test('stdout to a sink through a FIFO: whole, capped (group killed), a failing sink, a program that is missing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-proc-fifo-'));
  try {
    let bytes = 0;
    let ended = false;
    const counting = {
      write: (c: Uint8Array) => {
        bytes += c.length;
      },
      end: () => {
        ended = true;
      },
    };
    const whole = await runProcess({ program: 'head', args: ['-c', '10000000', '/dev/zero'], env, stdoutSink: counting, fifoDir: dir });
    assert.equal([whole.exitCode, bytes, ended, whole.outputCapped], [0, 10_000_000, true, undefined]);

    ended = false;
    const started = Date.now();
    const capped = await runProcess({ program: 'yes', args: [], env, stdoutSink: counting, fifoDir: dir, maxStdoutBytes: 1 << 20 });
    assert.equal([capped.outputCapped, capped.signal, ended], [true, 'SIGKILL', false]);
    assert.ok(Date.now() - started < 5000, 'the cap stops the child at once');

    const failing = {
      write: () => {
        throw new Error('disk full');
      },
    };
    const failed = await runProcess({ program: 'yes', args: [], env, stdoutSink: failing, fifoDir: dir });
    assert.equal([failed.streamError?.message, failed.signal], ['disk full', 'SIGKILL']);

    const missing = await runProcess({ program: 'no-such-decoder', args: [], env, stdoutSink: counting, fifoDir: dir });
    assert.ok(missing.spawnError, 'reported as not started, without waiting for a writer');
    assert.equal(readdirSync(dir), [], 'no FIFO is left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

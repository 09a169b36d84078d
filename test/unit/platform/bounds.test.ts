// The platform pieces behind the fault bounds: the input guard, the bounded pipe drain and deadline kill
// of child processes, stale temp-file removal and the derived secret forms.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSyntaxProblem } from '../../../src/config/json-offset.ts';
import { clip } from '../../../src/platform/errors.ts';
import { removeStaleFiles } from '../../../src/platform/fs.ts';
import { INPUT_LIMITS, readBoundedFile } from '../../../src/platform/input.ts';
import { DEADLINE_KILL_GRACE_MS, PIPE_DRAIN_MS, runProcess } from '../../../src/platform/proc.ts';
import { derivedForms, redactText, Secret } from '../../../src/platform/secret.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const dir = mkdtempSync(join(tmpdir(), 'anc-bounds-unit-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return `${(error as NodeJS.ErrnoException).code}: ${(error as Error).message}`;
  }
  return 'no error';
};

test('readBoundedFile: a regular file is read whole; FIFO, device, directory and oversize are refused', () => {
  const file = join(dir, 'ok.json');
  writeFileSync(file, '{"a":1}');
  assert.is(readBoundedFile(file, 'pointer').toString(), '{"a":1}');
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  assert.match(
    code(() => readBoundedFile(fifo, 'config')),
    /^ENOTREG: ENOTREG: a FIFO is not a regular file/,
  );
  assert.match(
    code(() => readBoundedFile('/dev/zero', 'status')),
    /^ENOTREG: .*a character device/,
  );
  assert.match(
    code(() => readBoundedFile(dir, 'config')),
    /^EISDIR: EISDIR: illegal operation on a directory, read/,
  );
  assert.match(
    code(() => readBoundedFile(join(dir, 'missing'), 'config')),
    /^ENOENT/,
  );
  const big = join(dir, 'big');
  writeFileSync(big, Buffer.alloc(INPUT_LIMITS.osRelease + 1));
  assert.match(
    code(() => readBoundedFile(big, 'osRelease')),
    /^EFBIG: EFBIG: 65537 bytes is over the 65536-byte limit for a os-release file/,
  );
  writeFileSync(big, Buffer.alloc(INPUT_LIMITS.osRelease));
  assert.is(readBoundedFile(big, 'osRelease').length, INPUT_LIMITS.osRelease);
});

test('a child that exits while a setsid grandchild holds stdout returns within the drain bound', async () => {
  const started = Date.now();
  const r = await runProcess({ program: '/bin/bash', args: ['-c', 'setsid sleep 5 & echo $! ; echo done'], env });
  const took = Date.now() - started;
  const pid = Number(r.stdout.split('\n')[0]);
  if (pid > 0) process.kill(pid, 'SIGKILL');
  assert.is(r.exitCode, 0);
  assert.match(r.stdout, /done\n$/);
  assert.ok(took < PIPE_DRAIN_MS + 3_000, `took ${took} ms`);
});

test('a child ignoring SIGTERM is killed after the short deadline grace', async () => {
  const started = Date.now();
  const r = await runProcess({ program: '/bin/bash', args: ['-c', "trap '' TERM; sleep 30"], env, timeoutMs: 300 });
  const took = Date.now() - started;
  assert.is(r.timedOut, true);
  assert.is(r.signal, 'SIGKILL');
  assert.ok(took < 300 + DEADLINE_KILL_GRACE_MS + 3_000, `took ${took} ms`);
});

test('removeStaleFiles: only the prefix, only regular files, only older than the run', () => {
  const d = join(dir, 'temps');
  mkdirSync(d);
  const old = new Date(Date.now() - 60_000);
  for (const name of ['.aks-node-controller-update-1', '.aks-node-controller-update-2', 'aks-node-controller-hotfix']) {
    writeFileSync(join(d, name), 'x');
    utimesSync(join(d, name), old, old);
  }
  writeFileSync(join(d, '.aks-node-controller-update-fresh'), 'x');
  const removed = removeStaleFiles(d, '.aks-node-controller-update-', new Date(Date.now() - 1_000));
  assert.equal(removed.sort(), ['.aks-node-controller-update-1', '.aks-node-controller-update-2']);
  assert.equal(removeStaleFiles(join(dir, 'absent'), 'x', new Date()), []);
});

test("removeStaleFiles: a killed fast path's scratch directory goes whole; a fresh one and a symlink stay", () => {
  const d = join(dir, 'scratch');
  mkdirSync(d);
  const old = new Date(Date.now() - 60_000);
  mkdirSync(join(d, '.aks-node-controller-fetch-old'));
  writeFileSync(join(d, '.aks-node-controller-fetch-old', 'candidate'), 'x');
  utimesSync(join(d, '.aks-node-controller-fetch-old'), old, old);
  mkdirSync(join(d, '.aks-node-controller-fetch-fresh'));
  symlinkSync(join(d, '.aks-node-controller-fetch-old'), join(d, '.aks-node-controller-fetch-link'));
  const removed = removeStaleFiles(d, '.aks-node-controller-fetch-', new Date(Date.now() - 1_000));
  assert.equal(removed, ['.aks-node-controller-fetch-old']);
  assert.equal(readdirSync(d).sort(), ['.aks-node-controller-fetch-fresh', '.aks-node-controller-fetch-link']);
});

test('derived secret forms: base64 (any alignment), base64url, decoded base64, PEM body, URL forms', () => {
  const pem =
    '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\nAAAABBBBCCCCDDDD\n-----END PRIVATE KEY-----\n';
  const keyB64 = Buffer.from(pem).toString('base64');
  const token = 'abcdef.0123456789abcdef';
  const proxy = 'http://user:p%40ss%2Fword@proxy:3128';
  const secrets = [new Secret(keyB64), new Secret(token), new Secret(proxy)];
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const printed = [
    pem,
    'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg',
    b64(token),
    b64(token).replace(/=+$/, ''),
    b64(`x${token}`),
    b64(`xy${token}tail`),
    encodeURIComponent(token + '/+'),
    'p@ss/word',
    'user:p%40ss%2Fword',
  ];
  const out = redactText(printed.join('\n'), secrets);
  assert.not.ok(out.includes('MIGHAgEAMBMG'), out);
  assert.not.ok(out.includes('p@ss/word'), out);
  assert.not.ok(out.includes('p%40ss%2Fword'), out);
  for (const line of out.split('\n').slice(2, 6)) assert.ok(line.length < 12 || line.includes('<redacted>'), line);
  assert.equal(derivedForms('abc'), []);
  assert.is(redactText('nothing secret here', secrets), 'nothing secret here');
});

test('jsonSyntaxProblem and clip: offsets and lengths, never content', () => {
  assert.is(jsonSyntaxProblem('{"a":1}'), undefined);
  assert.is(jsonSyntaxProblem(''), 'empty (0 bytes)');
  assert.is(jsonSyntaxProblem('{"a":"secret'), 'not complete JSON (it ends at byte 12 inside a value)');
  assert.is(jsonSyntaxProblem('{"a":1} secret'), 'not valid JSON (syntax error at byte offset 8 of 14)');
  assert.is(clip('x'.repeat(250)), `${'x'.repeat(200)}... (50 more characters)`);
});

test.run();

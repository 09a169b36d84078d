// The agent's own output path (platform/stdio.ts) and the time-zone shortcut (platform/clock.ts), the two
// start-up savings that change how bytes and times are produced: both must produce exactly what the slow
// path did.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zoneIsPlainUtc } from '../../../src/platform/clock.ts';
import { fdOutput, type FdOutputIo } from '../../../src/platform/stdio.ts';

const errno = (code: string) => Object.assign(new Error(code), { code });

/** A descriptor that accepts what `accept` says per call (a number of bytes, or an error code). */
function fakeIo(accept: Array<number | string>) {
  const written: string[] = [];
  const queued: string[] = [];
  let streams = 0;
  const io: FdOutputIo = {
    printLine: (text) => void written.push(`${text}\n`),
    writeSync(_fd, bytes) {
      const next = accept.length > 0 ? accept.shift()! : bytes.length;
      if (typeof next === 'string') throw errno(next);
      const n = Math.min(next, bytes.length);
      written.push(Buffer.from(bytes.subarray(0, n)).toString());
      return n;
    },
    stream() {
      streams++;
      return { write: (bytes: Uint8Array) => queued.push(Buffer.from(bytes).toString()) };
    },
  };
  return { io, written, queued, streams: () => streams };
}

test('whole lines go to the line printer; other text and bytes by write(2), in order', () => {
  const fake = fakeIo([]);
  const out = fdOutput(1, fake.io);
  out.write('line one\nline two\n');
  out.write('no newline');
  out.write(Buffer.from(' bytes\n'));
  assert.equal(fake.written, ['line one\nline two\n', 'no newline', ' bytes\n']);
});

test('short writes and EINTR: every byte goes out, in order, without the stream', () => {
  const fake = fakeIo([3, 'EINTR', 2]);
  const out = fdOutput(1, fake.io);
  out.write(Buffer.from('hello world\n'));
  out.write(Buffer.from('bytes\n'));
  assert.is(fake.written.join(''), 'hello world\nbytes\n');
  assert.is(fake.streams(), 0);
});

test('EAGAIN hands the rest and every later write to the queueing stream, in order', () => {
  const fake = fakeIo([4, 'EAGAIN']);
  const out = fdOutput(2, fake.io);
  out.write(Buffer.from('first line\n'));
  out.write('second\n');
  assert.is(fake.written.join(''), 'firs');
  assert.equal(fake.queued, ['t line\n', 'second\n']);
  assert.is(fake.streams(), 1);
});

test('writeQueued (a child copied while its timeout runs) moves everything after it to the stream', () => {
  const fake = fakeIo([]);
  const out = fdOutput(1, fake.io);
  out.write(Buffer.from('before\n'));
  out.writeQueued(Buffer.from('child\n'));
  out.write('after\n');
  assert.equal(fake.written, ['before\n']);
  assert.equal(fake.queued, ['child\n', 'after\n']);
});

test('EPIPE (the reader went away) ends the writing quietly; nothing is thrown', () => {
  const fake = fakeIo(['EPIPE']);
  const out = fdOutput(1, fake.io);
  out.write(Buffer.from('lost\n'));
  out.write(Buffer.from('also lost\n'));
  assert.equal(fake.written, []);
  assert.is(fake.streams(), 0);
});

test('zoneIsPlainUtc: only names that are UTC in every tz database, else the runtime decides', () => {
  const noLink = () => undefined;
  for (const tz of ['UTC', 'Etc/UTC', 'UCT', 'Universal', 'Zulu']) assert.ok(zoneIsPlainUtc(tz, noLink), tz);
  for (const tz of ['', 'GMT+1', 'Europe/London', 'UTC0', ':UTC', 'right/UTC']) assert.not.ok(zoneIsPlainUtc(tz, noLink), tz);
  // TZ set wins over /etc/localtime.
  assert.not.ok(zoneIsPlainUtc('Asia/Kolkata', () => '/usr/share/zoneinfo/Etc/UTC'));
  // TZ unset: the /etc/localtime link decides (absolute or relative); a copied file or none: not plain.
  assert.ok(zoneIsPlainUtc(undefined, () => '/usr/share/zoneinfo/Etc/UTC'));
  assert.ok(zoneIsPlainUtc(undefined, () => '../usr/share/zoneinfo/UTC'));
  assert.not.ok(zoneIsPlainUtc(undefined, () => '/usr/share/zoneinfo/right/UTC'));
  assert.not.ok(zoneIsPlainUtc(undefined, () => '/usr/share/zoneinfo/America/New_York'));
  assert.not.ok(zoneIsPlainUtc(undefined, noLink));
});

test.run();

// The pure parts of telling runs and boots apart: event file names as instants, /proc/<pid>/stat fields,
// the launcher's ELF format comparison in words, and wrapping for a terminal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statEnded, statStartTime } from '../../../src/platform/boot.ts';
import { executableFormat, formatWords } from '../../../src/pointer/staged.ts';
import { spanText } from '../../../src/status/checks.ts';
import { wrap } from '../../../src/status/render.ts';
import { eventInstant, fileInstant } from '../../../src/status/timeline.ts';

test('event file names: ns (agent) and ms (scripts) are the same instant; implausible names fall back to the text as UTC', () => {
  assert.is(fileInstant('1775037600123456789.json'), 1775037600123);
  assert.is(fileInstant('1775037600123.json'), 1775037600123);
  assert.is(fileInstant('1000.json'), null);
  assert.is(eventInstant({ file: '1000.json', Timestamp: '2026-04-01 10:00:00.000' }), Date.parse('2026-04-01T10:00:00Z'));
  assert.is(eventInstant({ file: 'x.json' }), null);
});

test('/proc/<pid>/stat: the start time is field 22 even when the name holds spaces and parens; Z/X are ended', () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
  fields[0] = 'S';
  fields[19] = '123456';
  const stat = `4242 (a (b) c) ${fields.join(' ')}`;
  assert.is(statStartTime(stat), '123456');
  assert.not.ok(statEnded(stat));
  assert.ok(statEnded(stat.replace(') S ', ') Z ')));
});

test("the launcher's format: od's bytes 0-5 and 18-19, fewer for a short file; in words", () => {
  const elf = new Uint8Array(64);
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
  elf[18] = 0x3e;
  assert.is(executableFormat(elf), '7f454c4602013e00');
  assert.is(formatWords(executableFormat(elf)), 'ELF x86-64');
  elf[18] = 0xb7;
  assert.is(formatWords(executableFormat(elf)), 'ELF arm64 (aarch64)');
  assert.is(executableFormat(elf.subarray(0, 4)), '7f454c46');
  assert.is(formatWords('23212f62696e'), 'not an ELF executable');
});

test('spans and wrapping: whole words, continued under the indent, a long word split never cut', () => {
  assert.equal(
    [spanText(0), spanText(65_000), spanText(22 * 60_000), spanText(7_260_000)],
    ['0 s', '1 min 5 s', '22 min 0 s', '2 h 1 min'],
  );
  assert.equal(wrap('  path  /a/very/long/path/that/does/not/fit', 20), [
    '  path',
    '    /a/very/long/pat',
    '    h/that/does/not/',
    '    fit',
  ]);
  const lines = wrap(`INTERRUPTED: ${'word '.repeat(30)}`, 40);
  assert.ok(lines.every((l) => l.length <= 40));
  assert.is(lines.join(' ').replace(/\s+/g, ' ').trim(), `INTERRUPTED: ${'word '.repeat(30)}`.trim());
});

test.run();

// Issue 40 (Low): the release's package progress (vhd/packaging/progress.mjs; no binary path): each step's
// own time when it ends, an estimate of what is left from the second step on, one counter.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain .mjs module of the packaging scripts, without types
import { createProgress } from '../../../vhd/packaging/progress.mjs';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('each package: building n/N, then built n/N in S s; from the second on, about S s left', async () => {
  const lines: string[] = [];
  const p = createProgress(3, Date.now(), (l: string) => lines.push(l), 60_000);
  p.start('a.deb');
  await sleep(20);
  p.stop();
  p.start('b.rpm');
  p.stop();
  p.start('c.deb');
  p.stop();
  assert.equal(
    lines.map((l) => l.replace(/\d+ s/g, 'N s')),
    [
      '  building 1/3 a.deb (N s)',
      '  built 1/3 a.deb in N s',
      '  building 2/3 b.rpm (N s; about N s left)',
      '  built 2/3 b.rpm in N s',
      '  building 3/3 c.deb (N s; about N s left)',
      '  built 3/3 c.deb in N s',
    ],
  );
  p.stop(); // a second stop says nothing more
  assert.is(lines.length, 6);
});

test.run();

// Spec 2 (JSON-lines log, file + stderr, cwd fallback) and spec 3 (event files) on the compiled binary.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

const LOG = '/var/log/azure/aks-node-controller.log';
const EVENTS = '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';

function parseLines(text: string): Array<Record<string, unknown>> {
  return text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

test('log lines go to the log file (0644) and to stderr, keys time, level, msg first', async () => {
  const sandbox = makeSandbox();
  try {
    const r = await runAnc(['provision'], { root: sandbox.root });
    assert.is(r.exitCode, 1);
    const file = sandbox.path(LOG);
    assert.is(statSync(file).mode & 0o777, 0o644);
    const fileText = readFileSync(file, 'utf8');
    const lines = parseLines(fileText);
    assert.ok(lines.length >= 1, 'at least one log line');
    for (const line of lines) {
      assert.equal(Object.keys(line).slice(0, 3), ['time', 'level', 'msg']);
      assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/);
      assert.ok(['INFO', 'WARN', 'ERROR'].includes(String(line.level)));
    }
    for (const raw of fileText.trimEnd().split('\n')) assert.ok(r.stderr.includes(raw), 'each file line is also on stderr');
  } finally {
    sandbox.cleanup();
  }
});

test('log falls back to ./aks-node-controller.log when the log directory cannot be created', async () => {
  const sandbox = makeSandbox();
  const cwd = mkdtempSync(join(tmpdir(), 'anc-cwd-'));
  try {
    mkdirSync(sandbox.path('/var/log'), { recursive: true });
    writeFileSync(sandbox.path('/var/log/azure'), 'not a directory');
    const r = await runAnc(['provision'], { root: sandbox.root, cwd });
    assert.is(r.exitCode, 1);
    const fallback = join(cwd, 'aks-node-controller.log');
    assert.ok(parseLines(readFileSync(fallback, 'utf8')).length >= 1);
  } finally {
    sandbox.cleanup();
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('a log file that cannot be opened is reported on stdout and exits 1', async () => {
  const sandbox = makeSandbox();
  try {
    mkdirSync(sandbox.path(LOG), { recursive: true }); // a directory where the file should be
    const r = await runAnc(['provision'], { root: sandbox.root });
    assert.is(r.exitCode, 1);
    assert.match(r.stdout, /^failed to open log file: /);
    // Read-only commands never open the node log, so they still work.
    const version = await runAnc(['version'], { root: sandbox.root });
    assert.is(version.exitCode, 0, version.stdout);
  } finally {
    sandbox.cleanup();
  }
});

test('event files: nanosecond names, 0644, Go field order and format, no trailing newline', async () => {
  const sandbox = makeSandbox();
  try {
    const r = await runAnc(['provision'], { root: sandbox.root });
    assert.is(r.exitCode, 1);
    // The reference's bytes: Version is its constant "1.23", the Message ends at durationMs=<n> (D16).
    const dir = sandbox.path(EVENTS);
    const names = readdirSync(dir).sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1));
    assert.is(names.length, 2, names.join(','));
    const started = Date.now() * 1e6;
    for (const name of names) {
      assert.match(name, /^\d{19}\.json$/);
      assert.ok(Math.abs(Number(name.slice(0, -5)) - started) < 120e9, 'name is unix nanoseconds');
      assert.is(statSync(join(dir, name)).mode & 0o777, 0o644);
    }
    const text = readFileSync(join(dir, names[1]!), 'utf8');
    assert.not.ok(text.endsWith('\n'));
    const event = JSON.parse(text) as Record<string, string>;
    const start = event.Timestamp!;
    const end = event.OperationId!;
    assert.match(start, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    const duration = / durationMs=(\d+)$/.exec(event.Message!)![1]!;
    const formattedDiff = Date.parse(end.replace(' ', 'T') + 'Z') - Date.parse(start.replace(' ', 'T') + 'Z');
    assert.ok(Math.abs(Number(duration) - formattedDiff) <= 1, 'durationMs agrees with the two timestamps');
    const expected =
      `{"Timestamp":"${start}","OperationId":"${end}","Version":"1.23","TaskName":"AKS.AKSNodeController.Provision",` +
      `"EventLevel":"Error","Message":"aks-node-controller exited with error --provision-config or --nbc-cmd is required` +
      ` | startTime=${start} endTime=${end} durationMs=${duration}","EventPid":"0","EventTid":"0"}`;
    assert.is(text, expected);
    const first = JSON.parse(readFileSync(join(dir, names[0]!), 'utf8')) as Record<string, string>;
    assert.is(first.EventLevel, 'Informational');
    assert.ok(first.Message!.startsWith('Starting | startTime='));
  } finally {
    sandbox.cleanup();
  }
});

test('log and event times: local zone, UTC read without the zone database, any other zone through it', async () => {
  // TZ=UTC and the harness default take the shortcut; a named zone and TZ unset (this machine's
  // /etc/localtime, whatever it is) go the runtime's way. Every form must say the same instant.
  const cases: Array<[string | undefined, RegExp]> = [
    ['UTC', /Z$/],
    ['Asia/Kolkata', /\+05:30$/],
    ['America/St_Johns', /-0[23]:30$/],
    [undefined, /(Z|[+-]\d\d:\d\d)$/],
  ];
  for (const [tz, zone] of cases) {
    const sandbox = makeSandbox();
    try {
      const before = Date.now();
      const r = await runAnc(['provision'], { root: sandbox.root, env: { TZ: tz } });
      assert.is(r.exitCode, 1);
      const line = parseLines(readFileSync(sandbox.path(LOG), 'utf8'))[0]!;
      const time = String(line.time);
      assert.match(time, zone, `TZ=${tz}: ${time}`);
      const instant = Date.parse(time);
      assert.ok(instant >= before - 1000 && instant <= Date.now() + 1000, `TZ=${tz}: ${time} is now`);
      // Events carry the local wall clock without a zone: it must agree with the log line's local digits.
      const names = readdirSync(sandbox.path(EVENTS)).sort();
      const event = JSON.parse(readFileSync(join(sandbox.path(EVENTS), names[0]!), 'utf8')) as Record<string, string>;
      assert.is(event.Timestamp!.slice(0, 13), time.slice(0, 13).replace('T', ' '), `TZ=${tz}: event hour is local`);
    } finally {
      sandbox.cleanup();
    }
  }
});

test.run();

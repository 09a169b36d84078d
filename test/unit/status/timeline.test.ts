// The pure parts of `status`: the exit-code table and the timeline of events.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nameExitCode, PROVISION_EXIT_CODES } from '../../../src/status/exit-codes.ts';
import { buildTimeline } from '../../../src/status/timeline.ts';
import { eventWriter, startLines } from '../../../src/status/writers.ts';

test("exit codes: the scripts' names, the agent's own, unknown codes said as such", () => {
  assert.equal(nameExitCode('50'), { code: 50, name: 'ERR_OUTBOUND_CONN_FAIL', meaning: PROVISION_EXIT_CODES[50]![1] });
  assert.is(nameExitCode(51)!.name, 'ERR_K8S_API_SERVER_CONN_FAIL');
  assert.is(nameExitCode('240')!.name, 'ANC_CONFIG_ERROR');
  assert.is(nameExitCode('-1')!.name, 'ANC_KILLED');
  assert.is(nameExitCode('0')!.name, 'SUCCESS');
  assert.is(nameExitCode('242')!.name, 'UNKNOWN');
  assert.is(nameExitCode('x'), undefined);
  const names = Object.values(PROVISION_EXIT_CODES).map(([name]) => name);
  assert.is(new Set(names).size, names.length, 'every name once');
});

const event = (file: string, task: string, message: string, start: string, end: string, level = 'Informational') => ({
  file: `${file}.json`,
  Timestamp: start,
  OperationId: end,
  Version: '1.23',
  TaskName: task,
  EventLevel: level,
  Message: `${message} | startTime=${start} endTime=${end} durationMs=0`,
});

test("timeline: Starting + final event are one row; rows in time order (file name breaks ties); scripts' events their own rows", () => {
  const rows = buildTimeline([
    event(
      '300',
      'AKS.AKSNodeController.Provision',
      'aks-node-controller exited with error exit status 50',
      '2026-04-01 10:00:00.000',
      '2026-04-01 10:00:09.250',
      'Error',
    ),
    event('100', 'AKS.AKSNodeController.Provision', 'Starting', '2026-04-01 10:00:00.000', '2026-04-01 10:00:00.000'),
    {
      file: '200.json',
      Timestamp: '2026-04-01 10:00:01.000',
      OperationId: '2026-04-01 10:00:03.000',
      TaskName: 'AKS.CSE.ensureContainerd',
      EventLevel: 'Informational',
      Message: 'Completed: ensureContainerd',
    },
    event('400', 'AKS.AKSNodeController.ProvisionWait', 'Starting', '2026-04-01 10:00:00.500', '2026-04-01 10:00:00.500'),
  ]);
  assert.equal(
    rows.map((r) => [r.task, r.outcome, r.durationMs, r.agent]),
    [
      ['Provision', 'error', 9250, true],
      ['ProvisionWait', 'running', null, true],
      ['AKS.CSE.ensureContainerd', 'ok', 2000, false],
    ],
  );
  assert.is(rows[0]!.message, 'aks-node-controller exited with error exit status 50');
  // The event's text never says which build wrote it (D16): without a writer, no version.
  assert.is(rows[0]!.version, undefined);
  const [legacy] = buildTimeline([
    {
      ...event('1', 'AKS.AKSNodeController.Provision', 'Completed', 'a', 'b'),
      Version: '202601.01.0',
      Message: 'Completed | ancVersion=1',
    },
  ]);
  assert.is(legacy!.version, undefined);
});

test('timeline: each agent row says which build wrote it, from the writer lookup; script rows never', () => {
  const rows = buildTimeline(
    [
      event('100', 'AKS.AKSNodeController.Provision', 'Starting', '2026-04-01 10:00:00.000', '2026-04-01 10:00:00.000'),
      event('200', 'AKS.CSE.x', 'Completed', '2026-04-01 10:00:01.000', '2026-04-01 10:00:01.000'),
    ],
    (task, file) => (task === 'Provision' && file === '100.json' ? { version: '202604.01.1', binary: 'hotfix' } : undefined),
  );
  assert.equal(
    rows.map((r) => [r.task, r.version, r.binary]),
    [
      ['Provision', '202604.01.1', 'hotfix'],
      ['AKS.CSE.x', undefined, undefined],
    ],
  );
});

const ns = (iso: string, extraMs = 0) => `${BigInt(Date.parse(iso) + extraMs) * 1_000_000n + 123_456n}.json`;
const start = (time: string, task: string, version: string, binary: string) => ({
  time,
  level: 'INFO',
  msg: 'started',
  task,
  version,
  binary,
});

test('writers: the last start line before the event, its own task or a sequential command; ProvisionWait only for itself', () => {
  const lines = startLines([
    start('2026-04-01T10:00:00Z', 'CheckHotfix', '202604.01.0', 'baked'),
    start('2026-04-01T10:00:01+00:00', 'DownloadHotfix', '202604.01.0', 'baked'),
    { time: '2026-04-01T10:00:01.5Z', level: 'INFO', msg: 'no start line (no version)' },
    start('2026-04-01T12:00:02+02:00', 'Provision', '202604.01.1', 'hotfix'),
    start('2026-04-01T10:00:03.5Z', 'ProvisionWait', '202604.01.0', 'baked'),
    start('not a time', 'Provision', '1', 'baked'),
  ]);
  assert.equal(eventWriter(lines, 'CheckHotfix', ns('2026-04-01T10:00:00.100Z')), { version: '202604.01.0', binary: 'baked' });
  // The zone offset of the log line counts: 12:00:02+02:00 is 10:00:02Z.
  assert.equal(eventWriter(lines, 'Provision', ns('2026-04-01T10:00:02.001Z')), { version: '202604.01.1', binary: 'hotfix' });
  // provision-wait started while provision ran: provision's later events are still provision's.
  assert.equal(eventWriter(lines, 'CompareEnvs', ns('2026-04-01T10:00:04Z')), { version: '202604.01.1', binary: 'hotfix' });
  assert.equal(eventWriter(lines, 'Provision', ns('2026-04-01T10:00:09Z')), { version: '202604.01.1', binary: 'hotfix' });
  assert.equal(eventWriter(lines, 'ProvisionWait', ns('2026-04-01T10:00:03.5Z')), { version: '202604.01.0', binary: 'baked' });
  // An event name read a millisecond before its command's start line still finds that command...
  assert.equal(eventWriter(lines, 'Provision', ns('2026-04-01T10:00:01.999Z')), { version: '202604.01.1', binary: 'hotfix' });
  // ...but the last event of one command never goes to the next one, started 20 ms later.
  assert.equal(eventWriter(lines, 'DownloadHotfix', ns('2026-04-01T10:00:01.980Z')), { version: '202604.01.0', binary: 'baked' });
  // Before any start line, or a name that is not unix nanoseconds: unknown, never guessed.
  assert.is(eventWriter(lines, 'CheckHotfix', ns('2026-04-01T09:00:00Z')), undefined);
  assert.is(eventWriter(lines, 'Provision', '1700000000000.json'), undefined);
});

test("the darwin binary's offline commands read no /proc, /sys or /dev path (CLI, commands, config, status)", () => {
  const src = join(process.cwd(), 'src');
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  const offline = walk(src).filter(
    (f) => /^(cli|commands|config|status)\//.test(relative(src, f)) || /platform\/(deps|log|paths|build-info|errors)\.ts$/.test(f),
  );
  for (const file of offline) {
    // The table entries allowed, optional by design: the SMBIOS identity for staged waves (a missing file
    // is "no identity", which hotfix explain reports; docs/hotfix.md "Staged waves"), and the boot id
    // report-status reads and status compares with the agent's start line (missing = an empty bootId in
    // the report; status cannot tell a live run from a dead one and says so).
    const code = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !/^\s*(\/\/|\*)/.test(l) && !/^\s*(productUuid|bootId): /.test(l))
      .join('\n');
    assert.not.match(code, /['"`]\/(proc|sys|dev)\//, relative(src, file));
  }
});

test.run();

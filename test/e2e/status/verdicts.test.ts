// `status` tells the truth about nodes that are not simply failed or done (files alone, portable): a node
// whose custom data never arrived (only provision-wait ran and timed out), one whose launcher waits for its
// hostname, a stuck one ("since …, 1 h 30 min ago"), a failed one whose failing step is the scripts' and
// never provision-wait, rows in time order, a fallen-back one, the exit code per verdict, and text cut to
// the terminal's width while -o json keeps everything.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, baseEnv, makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const EVENTS = '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';
const C = '/opt/azure/containers';
const sandboxes: Sandbox[] = [];
test.after(() => {
  for (const s of sandboxes) s.cleanup();
});

/** The events' node-local `YYYY-MM-DD HH:MM:SS.mmm` on a UTC node, `minutesAgo` before now. */
function eventTime(minutesAgo: number): string {
  return new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 23).replace('T', ' ');
}

function event(box: Sandbox, file: string, task: string, message: string, at: string, level = 'Informational'): void {
  const Message = `${message} | startTime=${at} endTime=${at} durationMs=0`;
  box.write(
    `${EVENTS}/${file}.json`,
    JSON.stringify({
      Timestamp: at,
      OperationId: at,
      Version: '202604.01.0',
      TaskName: task,
      EventLevel: level,
      Message,
      EventPid: '0',
      EventTid: '0',
    }),
  );
}

function node(): Sandbox {
  const box = makeSandbox('anc-verdicts-');
  sandboxes.push(box);
  return box;
}

/** A node whose custom data arrived and whose hostname is set. */
function configured(): Sandbox {
  const box = node();
  box.write(`${C}/aks-node-controller-config.json`, '{"version":"v1"}', 0o600);
  box.write(`${C}/enabled_features.sh`, 'ENABLE_PROVISIONING_HOTFIX=true\n', 0o600);
  box.write('/etc/hostname', `${hostname()}\n`);
  return box;
}

async function status(box: Sandbox) {
  const json = await runAnc(['status', '-o', 'json'], { root: box.root });
  const text = await runAnc(['status'], { root: box.root });
  assert.is(json.exitCode, text.exitCode);
  return { code: json.exitCode, report: JSON.parse(json.stdout), text: text.stdout };
}

test('never-started: no custom data, only provision-wait ran and timed out -> not-started (exit 4), the missing config named', async () => {
  const box = node();
  event(box, '1000', 'AKS.AKSNodeController.ProvisionWait', 'Starting', eventTime(16));
  event(
    box,
    '2000',
    'AKS.AKSNodeController.ProvisionWait',
    'aks-node-controller exited with error context deadline exceeded',
    eventTime(1),
    'Error',
  );
  const { code, report, text } = await status(box);
  assert.is(code, 4);
  assert.is(report.state, 'not-started');
  assert.is(report.summary, 'provisioning has not started: the custom data never arrived (no node configuration)');
  assert.is(report.failingStep, null);
  assert.match(text, /^not-started: provisioning has not started: the custom data never arrived/);
  assert.match(
    text,
    /\n {2}MISSING {5}node configuration: missing: neither \/opt\/azure\/containers\/aks-node-controller-config\.json nor /,
  );
  // Without a configuration the features file is not missing yet: it comes with the configuration.
  assert.match(text, /\n {2}not yet {5}features file: absent \(\/opt\/azure\/containers\/enabled_features\.sh\): no configuration yet/);
});

test('waiting for the hostname -> not-started (exit 4), both names said', async () => {
  const box = configured();
  box.write('/etc/hostname', 'aks-nodepool1-0\n');
  const { code, report, text } = await status(box);
  // A word per state that is true of it: the launcher waits for the hostname; the scripts are not started yet.
  assert.match(text, /\n {2}WAITING {5}hostname: the running hostname is /);
  assert.match(text, /\n {2}not yet {5}scripts started: no /);
  assert.not.match(text, /MISSING/);
  assert.equal(
    report.checks.map((c: { state: string }) => c.state),
    ['ok', 'ok', 'waiting', 'not yet'],
  );
  assert.is(code, 4);
  assert.is(
    report.summary,
    `provisioning has not started: the launcher waits for the hostname (the running hostname is "${hostname()}" but /etc/hostname says "aks-nodepool1-0": the launcher waits until they match)`,
  );
  assert.equal(
    report.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok]),
    [
      ['node configuration', true],
      ['features file', true],
      ['hostname', false],
      ['scripts started', false],
    ],
  );
});

test('stuck: Provision running for 1 h 30 min, no boot id to tell it dead -> stalled (exit 6), beyond the 15 min; provision-wait is not the running step', async () => {
  const box = configured();
  box.write(`${C}/aks-node-controller-scripts-started`, '');
  const since = eventTime(90);
  event(box, '1000', 'AKS.AKSNodeController.Provision', 'Starting', since);
  event(box, '2000', 'AKS.AKSNodeController.ProvisionWait', 'Starting', eventTime(89));
  const { code, report, text } = await status(box);
  assert.is(code, 6);
  assert.is(report.state, 'stalled');
  assert.match(
    report.summary,
    /^provisioning step Provision started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(1 h 30 min ago\), running 1 h 30 min, beyond the 15 min the extension waits \(whether its process still runs cannot be told: no boot id to compare\)$/,
  );
  assert.match(text, /^STALLED: provisioning step Provision started at /);
  assert.match(text, /\n {2}ok {10}scripts started: yes/);
});

test("failed: the failing step is the scripts' step, never provision-wait; rows in time order (exit 2)", async () => {
  const box = configured();
  box.write(`${C}/provision.complete`, '');
  box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"50","Error":"","Output":"curl: (7) Failed to connect"}');
  // Real names: the agent's in unix ns, the scripts' in unix ms (smaller names, later times).
  const ns = (minutesAgo: number) => String(BigInt(Date.now() - minutesAgo * 60_000) * 1_000_000n);
  const ms = (minutesAgo: number) => String(Date.now() - minutesAgo * 60_000);
  event(box, ns(10), 'AKS.AKSNodeController.Provision', 'Starting', eventTime(10));
  event(box, ms(8), 'AKS.CSE.ensureOutboundConnectivity', 'Failed: ensureOutboundConnectivity', eventTime(8), 'Error');
  event(box, ns(7), 'AKS.AKSNodeController.Provision', 'aks-node-controller exited with error exit status 50', eventTime(7), 'Error');
  event(box, ns(6), 'AKS.AKSNodeController.ProvisionWait', 'aks-node-controller exited with error provision failed', eventTime(6), 'Error');
  const { code, report } = await status(box);
  assert.is(code, 2);
  assert.is(report.state, 'failed');
  assert.equal(
    [report.failingStep.task, report.failingStep.exitCode.name],
    ['AKS.CSE.ensureOutboundConnectivity', 'ERR_OUTBOUND_CONN_FAIL'],
  );
  assert.equal(
    report.timeline.map((r: { task: string }) => r.task),
    ['Provision', 'AKS.CSE.ensureOutboundConnectivity', 'ProvisionWait'],
  );
});

test('fallen back: the verdict says the baked agent ran after the hotfix failed before the scripts (exit 0)', async () => {
  const box = configured();
  box.write(`${C}/provision.complete`, '');
  box.write('/var/log/azure/aks/provision.json', '{"ExitCode":"0","Error":"","Output":"","ExecDuration":"41"}');
  box.write(
    '/var/log/azure/aks-node-controller.log',
    `${JSON.stringify({
      time: '2026-04-01T10:00:00Z',
      level: 'ERROR',
      msg: 'hotfix failed before the provisioning scripts started; falling back to the baked agent',
      hotfix: '202604.01.1',
      reason: 'exited with status 1 before the provisioning scripts started',
      problems: [],
    })}\n`,
  );
  const { code, report, text } = await status(box);
  assert.is(code, 0);
  assert.is(
    report.summary,
    'provisioning succeeded on the baked agent: hotfix 202604.01.1 failed before the scripts (quarantined) in 41 s',
  );
  assert.equal(report.fallback, { hotfix: '202604.01.1', reason: 'exited with status 1 before the provisioning scripts started' });
  assert.match(text, /^succeeded: provisioning succeeded on the baked agent: hotfix 202604\.01\.1 failed before the scripts/);
});

test('on a 60-column terminal every line fits: the verdict, errors and paths wrap whole, table rows are cut (not with --wide); -o json keeps the whole text', async () => {
  const box = configured();
  box.write(`${C}/provision.complete`, '');
  box.write('/var/log/azure/aks/provision.json', `{"ExitCode":"50","Error":"${'x'.repeat(300)}","Output":""}`);
  event(box, '1000', 'AKS.CSE.ensureOutboundConnectivity', `Failed: ${'y'.repeat(100)}`, eventTime(3), 'Error');
  const terminal = (args: string) =>
    spawnSync('script', ['-qec', `stty cols 60; ${BIN} status ${args}`, '/dev/null'], { env: baseEnv(box.root), encoding: 'utf8' })
      .stdout.replace(/\r/g, '')
      .trimEnd()
      .split('\n');
  const lines = terminal('');
  assert.ok(lines.length > 5, lines.join('\n'));
  for (const line of lines) assert.ok([...line].length <= 60, `${line.length}: ${line}`);
  const cut = lines.filter((l) => l.endsWith('…'));
  assert.equal(
    cut.map((l) => l.split(/ +/)[1]),
    ['step', 'AKS.CSE.ensureOutboundConnectivity'],
    'only the table (its heading and row) is cut',
  );
  const whole = lines.join('').replace(/ +/g, '');
  assert.ok(whole.includes('x'.repeat(300)), 'the error wraps whole');
  assert.ok(
    whole.includes(`${box.root}/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events`.replace(/ /g, '')),
    'paths wrap whole',
  );
  assert.match(lines[0]!, /^FAILED: provisioning FAILED with exit code 50/);
  const wide = terminal('--wide');
  assert.ok(
    wide.some((l) => l.includes('y'.repeat(100))),
    'with --wide the table row is whole',
  );
  const json = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
  assert.is(json.provision.error, 'x'.repeat(300));
});

test("hotfix explain: decides for the baked agent by default, leads with one sentence, shows check-hotfix's refusal", async () => {
  const box = configured();
  // The baked agent of this image reports 202604.01.0, whatever version the binary running explain has.
  box.write(`${C}/aks-node-controller`, '#!/bin/sh\n[ "$1" = version ] && echo 202604.01.0\n', 0o755);
  box.write(`${C}/aks-node-controller-hotfix.json`, JSON.stringify({ hotfixes: { '202604.01': '202604.01.1' } }));
  const text = await runAnc(['hotfix', 'explain'], { root: box.root });
  assert.is(text.exitCode, 0, text.stderr);
  assert.is(
    text.stdout.split('\n')[0],
    'This node takes hotfix 202604.01.1: the pointer asks for it for base 202604.01, a higher patch of 202604.01.0.',
  );
  const json = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: box.root })).stdout);
  assert.equal([json.current, json.decidedFor], ['202604.01.0', { source: 'baked' }]);
  // check-hotfix refused an expired pointer: nothing staged, and explain says why there is no request.
  box.write(
    '/var/log/azure/aks-node-controller.log',
    `${JSON.stringify({ time: '2026-04-01T10:00:00Z', level: 'WARN', msg: 'check-hotfix completed with error (fail-open)', outcome: 'expired', error: 'the pointer expired at 2026-03-01T00:00:00Z' })}\n`,
  );
  const { rmSync } = await import('node:fs');
  rmSync(box.path(`${C}/aks-node-controller-hotfix.json`));
  const refused = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: box.root })).stdout);
  assert.is(refused.reason, 'no-request');
  assert.equal(refused.checkHotfix, {
    outcome: 'expired',
    error: 'the pointer expired at 2026-03-01T00:00:00Z',
    time: '2026-04-01T10:00:00Z',
  });
  assert.match(
    refused.summary,
    /^This node stays on 202604\.01\.0: .*: check-hotfix refused the cluster's pointer \(expired: the pointer expired at 2026-03-01T00:00:00Z\), so nothing is staged\.$/,
  );
  // A --current-version that is not an image version is refused, not decided for.
  const bad = await runAnc(['hotfix', 'explain', '--current-version', '2026.4'], { root: box.root });
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, '--current-version "2026.4" is not an image version YYYYMM.DD.PATCH');
});

test.run();

// The health-gated switch, the quarantine record and the fallback command, in process with a fake
// process runner (the compiled binary end to end: test/e2e/boot/hotfix-safety.test.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as runCli } from '../../../src/commands/cli.ts';
import { COMMANDS } from '../../../src/commands/index.ts';
import { downloadHotfix } from '../../../src/hotfix/download.ts';
import { deadlineFrom } from '../../../src/hotfix/retry.ts';
import { fallbackToBaked } from '../../../src/hotfix/switch/fallback.ts';
import { promoteWithHealthGate } from '../../../src/hotfix/switch/gate.ts';
import { readQuarantine, recordQuarantine } from '../../../src/pointer/quarantine.ts';
import { AgentError } from '../../../src/platform/errors.ts';
import type { RunResult, RunSpec } from '../../../src/platform/proc.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';

const ok = (stdout = ''): RunResult => ({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false });
const DRY_RUN = '{"command":["/bin/bash","-c","x"],"env":{}}\n';
const put = (path: string, content: string, mode = 0o644) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode });
};

/** A node with a baked binary, a node configuration and a candidate binary; `answer` plays the candidate. */
function node(answer: (spec: RunSpec) => RunResult, options: { config?: boolean } = {}): FakeDeps {
  const d = fakeDeps({ run: answer });
  put(d.paths.bakedBinary, 'BAKED', 0o755);
  put(d.paths.packageBinary, 'CANDIDATE', 0o755);
  if (options.config !== false) put(d.paths.nodeConfig, '{"version":"v1"}', 0o600);
  return d;
}
const candidate = (version: string, dryRun: RunResult) => (spec: RunSpec) => (spec.args[0] === 'version' ? ok(`${version}\n`) : dryRun);

async function gate(d: FakeDeps, seconds = 240): Promise<AgentError | undefined> {
  try {
    await promoteWithHealthGate(
      d,
      d.paths.packageBinary,
      '202604.01.1',
      deadlineFrom(() => d.clock.now(), seconds),
    );
    return undefined;
  } catch (error) {
    if (error instanceof AgentError) return error;
    throw error;
  }
}
function assertNotPromoted(d: FakeDeps) {
  assert.not.ok(existsSync(d.paths.hotfixBinary), 'not promoted');
  assert.not.ok(existsSync(d.paths.hotfixPending), 'pending file removed');
  assert.is(readFileSync(d.paths.bakedBinary, 'utf8'), 'BAKED');
  const leftovers = readdirSync(dirname(d.paths.hotfixBinary)).filter((n) => n.startsWith('.aks-node-controller-update-'));
  assert.equal(leftovers, []);
}

test('gate passes: version on the pending copy, then the dry-run self-test, then rename to the hotfix name', async () => {
  const d = node(candidate('202604.01.1', ok(DRY_RUN)));
  try {
    assert.is(await gate(d), undefined);
    assert.equal(
      d.runs.map((r) => [r.program, ...r.args]),
      [
        [d.paths.hotfixPending, 'version'],
        [d.paths.hotfixPending, 'provision', '--dry-run', `--provision-config=${d.paths.nodeConfig}`],
      ],
    );
    assert.equal(
      d.runs.map((r) => r.timeoutMs),
      [5_000, 30_000],
    );
    assert.is(readFileSync(d.paths.hotfixBinary, 'utf8'), 'CANDIDATE');
    assert.is(statSync(d.paths.hotfixBinary).mode & 0o777, 0o755);
    assert.not.ok(existsSync(d.paths.hotfixPending));
    // R4-7: the verified version is recorded beside it, naming exactly this file.
    const record = JSON.parse(readFileSync(d.paths.hotfixRecord, 'utf8'));
    assert.is(record.version, '202604.01.1');
    const s = statSync(d.paths.hotfixBinary, { bigint: true });
    assert.equal([record.file, record.content], [`${s.dev}:${s.ino}`, `${s.size}:${s.mode}:${s.mtimeNs}`]);
  } finally {
    d.cleanup();
  }
});

test('gate: the nbc command file is self-tested too (both flags, like the launcher)', async () => {
  const d = node(candidate('202604.01.1', ok(DRY_RUN)));
  try {
    put(d.paths.nbcCmd, 'echo', 0o644);
    assert.is(await gate(d), undefined);
    assert.equal(d.runs[1]!.args.slice(2), [`--provision-config=${d.paths.nodeConfig}`, `--nbc-cmd=${d.paths.nbcCmd}`]);
  } finally {
    d.cleanup();
  }
});

const FAILURES: Array<[string, (spec: RunSpec) => RunResult, string, string, { config?: boolean }?]> = [
  [
    'version hangs (killed at its bound)',
    (s) => (s.args[0] === 'version' ? { ...ok(), exitCode: null, signal: 'SIGKILL', timedOut: true } : ok(DRY_RUN)),
    'healthCheckFailed',
    'version: no answer within 5 s (signal: killed)',
  ],
  [
    'version crashes',
    (s) => (s.args[0] === 'version' ? { ...ok(), exitCode: null, signal: 'SIGSEGV' } : ok(DRY_RUN)),
    'healthCheckFailed',
    'version: signal: segmentation fault',
  ],
  [
    'version prints another version',
    candidate('202604.01.0', ok(DRY_RUN)),
    'verifyFailed',
    'reports version "202604.01.0", expected "202604.01.1"',
  ],
  [
    "self-test exits with the agent's error",
    candidate('202604.01.1', { ...ok(), exitCode: 1, stderr: 'aks-node-controller: parsing config: boom\nhint: Run x\n' }),
    'healthCheckFailed',
    'provision --dry-run: exit status 1 (aks-node-controller: parsing config: boom)',
  ],
  [
    'self-test prints no command',
    candidate('202604.01.1', ok('hello\n')),
    'healthCheckFailed',
    'provision --dry-run printed no provisioning command',
  ],
  [
    'self-test hangs',
    candidate('202604.01.1', { ...ok(), exitCode: null, signal: 'SIGKILL', timedOut: true }),
    'healthCheckFailed',
    'no answer within 30 s',
  ],
  [
    'no node configuration',
    candidate('202604.01.1', ok(DRY_RUN)),
    'healthCheckFailed',
    'no node configuration to self-test against',
    { config: false },
  ],
];
for (const [name, answer, step, message, options] of FAILURES) {
  test(`gate fails: ${name} -> ${step}, never half-promoted`, async () => {
    const d = node(answer, options);
    try {
      const error = await gate(d);
      assert.ok(error, 'gate must fail');
      assert.is(error!.step, step);
      assert.ok(error!.message.includes(message), error!.message);
      assertNotPromoted(d);
    } finally {
      d.cleanup();
    }
  });
}

test('gate: missing candidate is verifyFailed; an exhausted deadline runs nothing', async () => {
  const d = node(candidate('202604.01.1', ok(DRY_RUN)));
  try {
    writeFileSync(d.paths.packageBinary, 'x');
    let now = 0;
    d.clock.now = () => new Date(now);
    const late = promoteWithHealthGate(d, d.paths.packageBinary, '202604.01.1', { seconds: 1, remainingMs: () => 0 });
    await late.then(
      () => assert.unreachable(),
      (e: AgentError) => {
        // The copy is never started after the deadline (whichever path produced the candidate).
        assert.match(e.message, 'the 1s deadline passed before staging');
        assert.is(e.step, 'stageFailed');
      },
    );
    assert.is(d.runs.length, 0);
    assertNotPromoted(d);
    now = 1;
    const missing = await promoteWithHealthGate(
      d,
      `${d.paths.root}/nope`,
      '202604.01.1',
      deadlineFrom(() => d.clock.now(), 9),
    ).catch((e: AgentError) => e);
    assert.is((missing as AgentError).step, 'verifyFailed');
  } finally {
    d.cleanup();
  }
});

// download-hotfix: the node-local refusals happen before anything is installed.
function downloadNode(pointer: string, uuid?: string): FakeDeps {
  const d = fakeDeps({ run: () => assert.unreachable('nothing may run') as never });
  put(d.paths.hotfixPointer, pointer);
  if (uuid !== undefined) put(d.paths.productUuid, `${uuid}\n`, 0o400);
  return d;
}
const UUID = '4c4c4544-0036-3510-8058-b7c04f4e3332';

test('download: a quarantined version -> outcome quarantined, exit 0, nothing run', async () => {
  const d = downloadNode('{"hotfixes":{"202604.01":"202604.01.1-1"}}', UUID);
  try {
    recordQuarantine(d, {
      version: '202604.01.1',
      reason: 'exited with status 1 before the provisioning scripts started',
      recordedAt: '2026-04-02T00:00:00.000Z',
    });
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
    assert.is(d.runs.length, 0);
    const e = d.emitted[0]!;
    assert.is(e.level, 'Informational');
    assert.match(
      e.message,
      /^outcome=quarantined current=202604\.01\.0 target=202604\.01\.1-1 reason=hotfix 202604\.01\.1 is quarantined on this node since 2026-04-02/,
    );
  } finally {
    d.cleanup();
  }
});

test('download: an unreadable quarantine record refuses too (fail-safe)', async () => {
  const d = downloadNode('{"hotfixes":{"202604.01":"202604.01.1"}}', UUID);
  try {
    put(d.paths.hotfixQuarantine, '{"versions":');
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
    assert.match(d.emitted[0]!.message, 'outcome=quarantined');
    assert.match(d.emitted[0]!.message, 'reading hotfix quarantine record');
  } finally {
    d.cleanup();
  }
});

test('download: outside the wave (0%, or no identity at 50%) -> notInWave, exit 0, nothing run', async () => {
  for (const [pointer, uuid] of [
    ['{"hotfixes":{"202604.01":"202604.01.1"},"rollout":{"202604.01":{"percent":0,"salt":"s"}}}', UUID],
    ['{"hotfixes":{"202604.01":"202604.01.1"},"rollout":{"202604.01":{"percent":50,"salt":"s"}}}', undefined],
  ] as const) {
    const d = downloadNode(pointer, uuid);
    try {
      assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
      assert.is(d.runs.length, 0);
      assert.match(d.emitted[0]!.message, /^outcome=notInWave current=202604\.01\.0 target=202604\.01\.1 reason=node is outside the/);
      assert.not.ok(existsSync(d.paths.hotfixBinary));
    } finally {
      d.cleanup();
    }
  }
});

test('download: a wave for another base does not hold this one back', async () => {
  const d = fakeDeps({ run: () => ({ ...ok(), exitCode: 100 }) });
  try {
    put(d.paths.hotfixPointer, '{"hotfixes":{"202604.01":"202604.01.1"},"rollout":{"202605.30":{"percent":0,"salt":"s"}}}');
    put(d.paths.osRelease, 'ID=ubuntu\n');
    put(`${d.paths.aptSourcesDir}/microsoft-prod.list`, 'deb x ./\n');
    put(d.paths.aptConfig, 'Dir "/x/";\n');
    await downloadHotfix(d, { timeoutSeconds: 240 });
    assert.match(d.emitted[0]!.message, 'outcome=installFailed', 'it went on to install');
  } finally {
    d.cleanup();
  }
});

// hotfix fallback (the launcher runs it with the baked binary)
test('fallback: records the staged hotfix version, removes it, one event with "fallback" and the version', async () => {
  const d = fakeDeps({
    run: (s) => (s.program.endsWith('-hotfix') && s.args[0] === 'version' ? ok('202604.01.1\n') : (assert.unreachable() as never)),
  });
  try {
    put(d.paths.hotfixBinary, 'HOTFIX', 0o755);
    assert.is(await fallbackToBaked(d, 'was killed by signal 11 before the provisioning scripts started'), 0);
    assert.not.ok(existsSync(d.paths.hotfixBinary));
    const [entry] = readQuarantine(d);
    assert.equal([entry!.version, entry!.reason], ['202604.01.1', 'was killed by signal 11 before the provisioning scripts started']);
    assert.is(statSync(d.paths.hotfixQuarantine).mode & 0o777, 0o644);
    assert.is(d.emitted.length, 1);
    assert.is(d.emitted[0]!.task, 'HotfixFallback');
    assert.is(d.emitted[0]!.level, 'Error');
    assert.is(
      d.emitted[0]!.message,
      'fallback to the baked agent 202604.01.0: hotfix 202604.01.1 was killed by signal 11 before the provisioning scripts started; version 202604.01.1 quarantined on this node',
    );
  } finally {
    d.cleanup();
  }
});

test("fallback: a hotfix that cannot even say its version is recorded under the pointer's version", async () => {
  const d = fakeDeps({ run: () => ({ ...ok(), exitCode: null, signal: 'SIGKILL', timedOut: true }) });
  try {
    put(d.paths.hotfixBinary, 'HOTFIX', 0o755);
    put(d.paths.hotfixPointer, '{"hotfixes":{"202604.01":"202604.01.3-1"}}');
    recordQuarantine(d, { version: '202604.01.2', reason: 'older', recordedAt: 'x' });
    await fallbackToBaked(d, 'exited with status 1 before the provisioning scripts started');
    assert.equal(
      readQuarantine(d).map((e) => e.version),
      ['202604.01.2', '202604.01.3'],
    );
    assert.match(d.emitted[0]!.message, /^fallback to the baked agent 202604\.01\.0: hotfix 202604\.01\.3 exited/);
    assert.match(d.emitted[0]!.message, 'did not print a version');
  } finally {
    d.cleanup();
  }
});

test('CLI: `hotfix fallback` needs --reason (usage error, nothing recorded) and is hidden from the help', async () => {
  const d = fakeDeps();
  try {
    assert.is(await runCli(['hotfix', 'fallback'], d, COMMANDS), 1);
    assert.match(d.err.join(''), 'hotfix fallback needs --reason <text>');
    assert.not.ok(existsSync(d.paths.hotfixQuarantine));
    assert.equal(d.emitted, []);
    assert.is(COMMANDS.find((c) => c.name === 'hotfix fallback')!.hidden, true);
  } finally {
    d.cleanup();
  }
});

test.run();

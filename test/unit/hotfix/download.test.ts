import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { downloadHotfixCommand } from '../../../src/commands/download-hotfix.ts';
import { DEFAULT_TIMEOUT_SECONDS, downloadHotfix } from '../../../src/hotfix/download.ts';
import type { RunResult, RunSpec } from '../../../src/platform/proc.ts';
import { AgentError } from '../../../src/platform/errors.ts';
import { fakeDeps, type FakeDeps, type FakeDepsOptions } from '../../fakes/deps.ts';

const ok = (stdout = ''): RunResult => ({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false });
const exit = (code: number): RunResult => ({ exitCode: code, signal: null, stdout: '', stderr: '', timedOut: false });

function put(path: string, content: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode });
}

interface Setup extends FakeDepsOptions {
  pointer?: string;
  os?: string;
}

function setup(o: Setup = {}): FakeDeps {
  const deps = fakeDeps(o);
  if (o.pointer !== undefined) put(deps.paths.hotfixPointer, o.pointer);
  put(deps.paths.osRelease, o.os ?? 'ID=ubuntu\n');
  put(`${deps.paths.aptSourcesDir}/microsoft-prod.list`, 'deb http://127.0.0.1/ ./\n');
  put(deps.paths.under('/etc/apt/apt.conf'), 'Dir "/x/";\n');
  put(deps.paths.bakedBinary, 'BAKED', 0o750);
  put(deps.paths.nodeConfig, '{"version":"v1"}', 0o600); // what the health gate's self-test reads
  return deps;
}

/** A package manager that "installs" a binary printing `prints`; the staged copy answers the health gate. */
function installs(deps: () => FakeDeps, prints: string) {
  return (spec: RunSpec): RunResult => {
    const d = deps();
    if (spec.program === d.paths.hotfixPending && spec.args[0] === 'version') return ok(`${prints}\n`);
    if (spec.program === d.paths.hotfixPending) return ok('{"command":["/bin/bash","-c","x"],"env":{}}\n');
    if (spec.args.includes('install')) put(d.paths.packageBinary, `HOTFIX ${prints}`, 0o755);
    return ok();
  };
}

const event = (d: FakeDeps) => {
  assert.is(d.emitted.length, 1, 'exactly one event');
  assert.is(d.emitted[0]!.task, 'DownloadHotfix');
  return d.emitted[0]!;
};

async function skipCase(name: string, version: string, pointer: string | undefined, outcome: string) {
  test(name, async () => {
    const d = setup({ version, ...(pointer === undefined ? {} : { pointer }) });
    try {
      assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
      assert.is(d.runs.length, 0, 'no command run');
      assert.match(event(d).message, `outcome=${outcome} `);
      assert.is(d.fs.exists(d.paths.hotfixBinary), false);
    } finally {
      d.cleanup();
    }
  });
}

// TestDownloadHotfix_* (spec 12.2)
skipCase('NoHotfixFile', '202604.01.0', undefined, 'noHotfix');
skipCase('VersionMatch', '202604.01.1', '{"version":"202604.01.1"}', 'notTargeted');
skipCase('DifferentBaseSkips', '202605.01.0', '{"version":"202604.01.1"}', 'notTargeted');
skipCase('DevVersionSkips', 'dev', '{"version":"202604.01.1"}', 'invalidVersion');
skipCase('InvalidJSONFailsOpen', '202604.01.0', 'not json', 'pointerUnreadable');
skipCase('MapBaseNotPresentSkips', '202604.01.0', '{"hotfixes":{"202605.30":"202605.30.2"}}', 'noHotfix');
skipCase('MapPatchNotHigherSkips', '202604.01.2', '{"hotfixes":{"202604.01":"202604.01.1"}}', 'notTargeted');
skipCase('MapMisconfiguredValueBaseSkips', '202604.01.0', '{"hotfixes":{"202604.01":"202605.30.2"}}', 'notTargeted');
skipCase('injection attempt is never run', '202604.01.0', '{"version":"202604.01.1 --reinstall"}', 'invalidVersion');
skipCase('prerelease shape refused (D5)', '202604.01.0', '{"version":"202604.01.1-rc1"}', 'invalidVersion');

test('UnreadableFileFailsOpen', async () => {
  const d = setup();
  mkdirSync(d.paths.hotfixPointer, { recursive: true }); // reading a directory fails
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
    assert.is(d.runs.length, 0);
    assert.ok(d.logs.some((l) => l.level === 'WARN' && l.msg === 'failed to read hotfix config, skipping hotfix download'));
    assert.match(event(d).message, 'outcome=pointerUnreadable');
  } finally {
    d.cleanup();
  }
});

test('MatchingBaseUpgrades (apt): exact commands, sandbox env, verify fails without package binary', async () => {
  const d = setup({ pointer: '{"version":"202604.01.1"}', run: () => ok() });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1);
    assert.equal(
      d.runs.map((r) => [r.program, ...r.args].slice(0, 3)),
      [
        ['env', 'DEBIAN_FRONTEND=noninteractive', 'dpkg'],
        ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
        ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
      ],
    );
    assert.is(d.runs[1]!.args[6], `Dir::Etc::sourcelist=${d.paths.aptSourcesDir}/microsoft-prod.list`);
    assert.is(d.runs[2]!.args.at(-1), 'aks-node-controller=202604.01.1*');
    for (const r of d.runs) {
      assert.is(r.env.DPKG_ROOT, d.paths.root);
      assert.is(r.env.APT_CONFIG, d.paths.under('/etc/apt/apt.conf'));
      assert.is(r.timeoutMs, 60_000);
    }
    const e = event(d);
    assert.is(e.level, 'Error');
    assert.match(e.message, 'outcome=verifyFailed current=202604.01.0 target=202604.01.1');
    assert.is(d.fs.exists(d.paths.hotfixBinary), false);
  } finally {
    d.cleanup();
  }
});

test('MapMatchingBaseUpgrades (dnf): installs, verifies, stages with the baked mode', async () => {
  let d: FakeDeps;
  d = setup({
    pointer: '{"hotfixes":{"202604.01":" 202604.01.1-1 "}}',
    os: 'ID="azurelinux"\n',
    which: (name) => (name === 'dnf' ? '/usr/bin/dnf' : undefined),
    run: installs(() => d, '202604.01.1'),
  });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
    assert.equal(d.runs[0]!.args, [
      'install',
      '-y',
      '--refresh',
      '--allowerasing',
      'aks-node-controller-202604.01.1-1',
      `--installroot=${d.paths.root}`,
      `--setopt=reposdir=${d.paths.root}/etc/yum.repos.d`,
    ]);
    assert.is(d.runs[0]!.env.DPKG_ROOT, undefined);
    assert.equal([d.runs[1]!.program, ...d.runs[1]!.args], [d.paths.hotfixPending, 'version']);
    assert.is(d.runs[1]!.timeoutMs, 5_000);
    assert.equal(d.runs[2]!.args, ['provision', '--dry-run', `--provision-config=${d.paths.nodeConfig}`]);
    assert.is(d.runs[2]!.timeoutMs, 30_000);
    assert.is(d.fs.exists(d.paths.hotfixPending), false, 'promoted by rename');
    assert.is(readFileSync(d.paths.hotfixBinary, 'utf8'), 'HOTFIX 202604.01.1');
    assert.is(statSync(d.paths.hotfixBinary).mode & 0o777, 0o750);
    assert.is(readFileSync(d.paths.bakedBinary, 'utf8'), 'BAKED');
    assert.equal(
      readdirSync(dirname(d.paths.hotfixBinary)).filter((n) => n.startsWith('.aks-node-controller-update-')),
      [],
    );
    assert.match(event(d).message, 'outcome=staged current=202604.01.0 target=202604.01.1-1');
    assert.ok(d.logs.some((l) => l.msg === 'downloaded ANC hotfix'));
  } finally {
    d.cleanup();
  }
});

test('tdnf when dnf is not on PATH', async () => {
  const d = setup({ pointer: '{"version":"202604.01.1"}', os: 'ID=mariner\n', run: () => exit(1) });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1);
    assert.is(d.runs[0]!.program, 'tdnf');
    assert.is(d.runs.length, 5);
  } finally {
    d.cleanup();
  }
});

test('installed binary printing the wrong version is not staged', async () => {
  let d: FakeDeps;
  d = setup({ pointer: '{"version":"202604.01.1"}', run: installs(() => d, '202604.01.0') });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1);
    assert.is(d.fs.exists(d.paths.hotfixBinary), false);
    assert.match(event(d).message, 'reports version \\"202604.01.0\\", expected \\"202604.01.1\\"'.replace(/\\/g, ''));
  } finally {
    d.cleanup();
  }
});

test('AllAttemptsFail: 5 attempts, WARN each, apt-get exit code propagated', async () => {
  const sleeps: number[] = [];
  const d = setup({ pointer: '{"version":"202604.01.1"}', run: (s) => (s.args[2] === 'update' ? exit(100) : ok()) });
  d.clock.sleep = async (ms) => void sleeps.push(ms);
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 100);
    assert.is(d.runs.length, 6);
    const warns = d.logs.filter((l) => l.msg === 'command failed, retrying');
    assert.equal(
      warns.map((w) => w.attrs.attempt),
      [1, 2, 3, 4, 5],
    );
    assert.equal(warns[0]!.attrs, { command: 'env', args: d.runs[1]!.args, attempt: 1, maxRetries: 5, error: 'exit status 100' });
    assert.equal(sleeps, [3000, 3000, 3000, 3000]);
    assert.match(
      event(d).message,
      'install hotfix version 202604.01.1: apt-get update failed: command env failed after 5 attempts: exit status 100',
    );
  } finally {
    d.cleanup();
  }
});

test('SuccessAfterRetries and killed attempts map to 255', async () => {
  let calls = 0;
  const d = setup({ pointer: '{"version":"202604.01.1"}', os: 'ID=azurelinux\n', run: () => (++calls < 3 ? exit(1) : ok()) });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1); // install ok on 3rd, then verify fails
    assert.is(d.runs.filter((r) => r.program === 'tdnf').length, 3);
  } finally {
    d.cleanup();
  }
  const k = setup({
    pointer: '{"version":"202604.01.1"}',
    os: 'ID=azurelinux\n',
    run: () => ({ ...exit(0), exitCode: null, signal: 'SIGKILL', timedOut: true }),
  });
  try {
    assert.is(await downloadHotfix(k, { timeoutSeconds: 240 }), 255);
  } finally {
    k.cleanup();
  }
});

test('D4: one overall deadline bounds attempts and pauses', async () => {
  let now = 0;
  const d = setup({ pointer: '{"version":"202604.01.1"}', os: 'ID=azurelinux\n', now: () => new Date(now) });
  d.clock.sleep = async (ms) => void (now += ms);
  d.proc.run = async (spec) => {
    d.runs.push(spec);
    now += spec.timeoutMs ?? 0; // every attempt runs into its timeout
    return { exitCode: null, signal: 'SIGKILL', stdout: '', stderr: '', timedOut: true };
  };
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 100 }), 255);
    assert.equal(
      d.runs.map((r) => r.timeoutMs),
      [60_000, 37_000],
    );
    assert.match(event(d).message, 'stopped at the 100s download-hotfix deadline after 2 attempts: signal: killed');
  } finally {
    d.cleanup();
  }
});

test('install setup errors: unsupported OS, missing apt source, missing sandbox APT_CONFIG', async () => {
  for (const [prep, text] of [
    [(d: FakeDeps) => put(d.paths.osRelease, 'ID=debian\n'), 'install hotfix version 202604.01.1: unsupported OS: debian'],
    [(d: FakeDeps) => d.fs.unlink(`${d.paths.aptSourcesDir}/microsoft-prod.list`), 'neither '],
    [(d: FakeDeps) => d.fs.unlink(d.paths.under('/etc/apt/apt.conf')), 'needs an APT_CONFIG file'],
    [(d: FakeDeps) => d.fs.unlink(d.paths.osRelease), 'install hotfix version 202604.01.1: reading /etc/os-release: '],
  ] as const) {
    const d = setup({ pointer: '{"version":"202604.01.1"}' });
    try {
      prep(d);
      assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1);
      assert.is(d.runs.length, 0);
      assert.match(event(d).message, 'outcome=installFailed');
      assert.match(event(d).message, text);
    } finally {
      d.cleanup();
    }
  }
});

test('stage failure: baked binary missing -> stat error, exit 1, no temp left', async () => {
  let d: FakeDeps;
  d = setup({ pointer: '{"version":"202604.01.1"}', run: installs(() => d, '202604.01.1') });
  try {
    d.fs.unlink(d.paths.bakedBinary);
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 1);
    assert.match(event(d).message, `outcome=stageFailed`);
    assert.match(event(d).message, `stage hotfix binary: stat ${d.paths.bakedBinary}`);
    assert.equal(
      readdirSync(dirname(d.paths.hotfixBinary)).filter((n) => n.startsWith('.aks-')),
      [],
    );
  } finally {
    d.cleanup();
  }
});

test('fail-open: an unexpected TypeError gives exit 0 and outcome failed', async () => {
  const d = setup({
    pointer: '{"version":"202604.01.1"}',
    which: () => {
      throw new TypeError('boom');
    },
  });
  try {
    assert.is(await downloadHotfix(d, { timeoutSeconds: 240 }), 0);
    const e = event(d);
    assert.is(e.level, 'Error');
    assert.match(
      e.message,
      /^outcome=failed current=202604\.01\.0 target=202604\.01\.1 path=none fetchedBytes=0 .*error=unexpected error: boom$/,
    );
  } finally {
    d.cleanup();
  }
});

test('command: extra args are a usage error; bad --timeout refused; default matches D4', async () => {
  const d = setup();
  try {
    const err = await downloadHotfixCommand.run({ args: ['a', 'b'], options: {} }, d).catch((e) => e);
    assert.ok(err instanceof AgentError);
    assert.is(err.message, 'unexpected download-hotfix arguments: a b');
    assert.is(err.exitCode, 1);
    const bad = await downloadHotfixCommand.run({ args: [], options: { timeout: 'soon' } }, d).catch((e) => e);
    assert.match(bad.message, 'invalid --timeout');
    assert.match(downloadHotfixCommand.options[0]!.description, `default ${DEFAULT_TIMEOUT_SECONDS})`);
    assert.equal(await downloadHotfixCommand.run({ args: [], options: { timeout: 30 } }, d), { exitCode: 0 });
  } finally {
    d.cleanup();
  }
});

test.run();

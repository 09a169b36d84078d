// The provision flow in-process with fake deps: crash handling (D6), signalled and unstartable children,
// SIGTERM forwarding, dry-run of the NBC path, and the CLI wiring of both commands.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as runCli } from '../../../src/commands/cli.ts';
import { COMMANDS } from '../../../src/commands/index.ts';
import type { RunResult } from '../../../src/platform/proc.ts';
import { provision } from '../../../src/provision/run.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';

const ok = (over: Partial<RunResult> = {}): RunResult => ({ exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, ...over });

function withNbc(deps: FakeDeps): string {
  const file = deps.paths.under('/nbc.sh');
  writeFileSync(file, 'exit 0\n');
  mkdirSync(dirname(deps.paths.provisionComplete), { recursive: true });
  return file;
}

const status = (deps: FakeDeps) => JSON.parse(readFileSync(deps.paths.provisionJson, 'utf8'));
const events = (deps: FakeDeps) => deps.emitted.map((e) => `${e.task}|${e.level}|${e.message}`);

test('D6: an unexpected exception writes ExitCode 240 + provision.complete and exits 1', async () => {
  const deps = fakeDeps();
  try {
    const nbc = withNbc(deps);
    const boom = (): string => {
      throw new TypeError('boom');
    };
    deps.paths = Object.defineProperty({ ...deps.paths }, 'scriptsStartedMarker', { get: boom });
    const outcome = await provision({ nbcCmd: nbc, dryRun: false, showSecrets: false }, deps);
    assert.is(outcome.exitCode, 1);
    assert.is(status(deps).ExitCode, '240');
    assert.is(status(deps).Error, 'panic during provisioning: boom');
    assert.ok(existsSync(deps.paths.provisionComplete));
    assert.ok(deps.logs.some((l) => l.msg === 'panic recovered in runProvision'));
    assert.match(events(deps)[1]!, /^Provision\|Error\|aks-node-controller exited with error panic during provisioning: /);
    assert.ok(outcome.stderr?.includes('hint: This is a bug'));
  } finally {
    deps.cleanup();
  }
});

test('a signalled child -> ExitCode -1, exit 255; an unstartable one -> ExitCode -1, exit 1', async () => {
  for (const [result, exit, error] of [
    [ok({ exitCode: null, signal: 'SIGKILL' }), 255, 'signal: killed'],
    [
      ok({ exitCode: null, spawnError: Object.assign(new Error('spawn /bin/bash ENOENT'), { code: 'ENOENT' }) }),
      1,
      'fork/exec /bin/bash: no such file or directory',
    ],
  ] as const) {
    const deps = fakeDeps({ run: () => result });
    try {
      const outcome = await provision({ nbcCmd: withNbc(deps), dryRun: false, showSecrets: false }, deps);
      assert.is(outcome.exitCode, exit);
      assert.equal(status(deps), { ExitCode: '-1', Error: error, Output: '\n' });
    } finally {
      deps.cleanup();
    }
  }
});

test('a runner that throws (env with a NUL byte) -> ExitCode -1, exit 1', async () => {
  const deps = fakeDeps({
    run: () => Promise.reject(new TypeError("The argument 'options.env['X']' must be a string without null bytes")),
  });
  try {
    const outcome = await provision({ nbcCmd: withNbc(deps), dryRun: false, showSecrets: false }, deps);
    assert.is(outcome.exitCode, 1);
    assert.is(status(deps).ExitCode, '-1');
  } finally {
    deps.cleanup();
  }
});

test('the NBC run: argv, inherited env unchanged, passthrough, no timeout; SIGTERM aborts the child group', async () => {
  const deps = fakeDeps({
    env: { PATH: '/bin', KEEP: 'me' },
    run: (spec) =>
      new Promise((resolve) => {
        spec.signal!.addEventListener('abort', () => resolve(ok({ exitCode: null, signal: 'SIGTERM' })));
        setTimeout(() => process.emit('SIGTERM', 'SIGTERM'), 10);
      }),
  });
  try {
    const nbc = withNbc(deps);
    const outcome = await provision({ nbcCmd: nbc, dryRun: false, showSecrets: false }, deps);
    const spec = deps.runs[0]!;
    assert.equal([spec.program, ...spec.args], ['/bin/bash', '--', nbc]);
    assert.equal(spec.env, { PATH: '/bin', KEEP: 'me' });
    assert.is(spec.passthrough, true);
    assert.is(spec.timeoutMs, undefined);
    assert.is(outcome.exitCode, 255);
    assert.is(status(deps).Error, 'signal: terminated');
    assert.is(process.listenerCount('SIGTERM'), 0, 'the forwarding handler is removed afterwards');
  } finally {
    deps.cleanup();
  }
});

test('dry-run of the NBC path prints the command, runs and writes nothing', async () => {
  const deps = fakeDeps();
  try {
    const nbc = withNbc(deps);
    writeFileSync(deps.paths.nodeCustomData, 'write_files:\n- path: /should-not-exist\n  content: x\n');
    const outcome = await provision({ nbcCmd: nbc, dryRun: true, showSecrets: false }, deps);
    assert.is(outcome.exitCode, 0);
    assert.equal(JSON.parse(outcome.stdout!), { command: ['/bin/bash', '--', nbc], env: {} });
    assert.is(deps.runs.length, 0);
    assert.not.ok(existsSync(deps.paths.under('/should-not-exist')));
    assert.not.ok(existsSync(deps.paths.provisionJson));
  } finally {
    deps.cleanup();
  }
});

test('CLI: provision without flags -> exit 1 + fallback; value-less flag -> usage error; provision-wait fast path', async () => {
  const deps = fakeDeps();
  try {
    mkdirSync(dirname(deps.paths.provisionComplete), { recursive: true });
    assert.is(await runCli(['provision'], deps, COMMANDS), 1);
    assert.is(
      readFileSync(deps.paths.provisionJson, 'utf8'),
      '{"ExitCode":"240","Error":"--provision-config or --nbc-cmd is required","Output":""}',
    );
    assert.is(await runCli(['provision-wait'], deps, COMMANDS), 1);
    assert.is(deps.out.join(''), readFileSync(deps.paths.provisionJson, 'utf8') + '\n');
    const before = deps.emitted.length;
    assert.is(await runCli(['provision', '--nbc-cmd'], deps, COMMANDS), 1);
    assert.ok(deps.err.join('').includes('flag needs an argument: -nbc-cmd'));
    assert.is(deps.emitted.length, before, 'usage errors emit no events');
  } finally {
    deps.cleanup();
  }
});

test.run();

// A Deps for in-process tests. Everything real that touches the world is replaced: the file system is
// the real one but rooted in a temp sandbox (paths come from resolveNodePaths(root)), the process runner,
// clock, log and events are fakes that record what they see. A fake process runner throws unless the
// test configured it (STYLE 7: fakes fail loudly on unexpected calls).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/platform/clock.ts';
import type { Deps } from '../../src/platform/deps.ts';
import type { AgentEvent } from '../../src/platform/events.ts';
import { createRealFileSystem } from '../../src/platform/fs.ts';
import { createHttpClient } from '../../src/platform/http.ts';
import type { LogAttrs, Logger, LogLevel } from '../../src/platform/log.ts';
import { resolveNodePaths } from '../../src/platform/paths.ts';
import type { ProcessRunner, RunResult, RunSpec } from '../../src/platform/proc.ts';
import { forwardingTerminationSignals } from '../../src/platform/signals.ts';

export interface LogRecord {
  level: LogLevel;
  msg: string;
  attrs: LogAttrs;
}

export interface FakeDeps extends Deps {
  logs: LogRecord[];
  /** Lines said to a person at a terminal (Logger.say). */
  said: string[];
  emitted: AgentEvent[];
  out: string[];
  err: string[];
  runs: RunSpec[];
  cleanup(): void;
}

export interface FakeDepsOptions {
  version?: string;
  env?: Record<string, string>;
  /** Answers process runs; the default throws so an unexpected spawn fails the test. */
  run?: (spec: RunSpec) => Promise<RunResult> | RunResult;
  which?: ProcessRunner['which'];
  now?: () => Date;
  /** What the command reads from stdin. */
  stdin?: string;
  hostname?: string;
}

export function fakeDeps(options: FakeDepsOptions = {}): FakeDeps {
  const root = mkdtempSync(join(tmpdir(), 'anc-unit-'));
  const logs: LogRecord[] = [];
  const said: string[] = [];
  const emitted: AgentEvent[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const runs: RunSpec[] = [];
  const record =
    (level: LogLevel) =>
    (msg: string, attrs: LogAttrs = {}) =>
      void logs.push({ level, msg, attrs });
  const log: Logger = {
    file: '',
    info: record('INFO'),
    warn: record('WARN'),
    error: record('ERROR'),
    // What a person at a terminal would read.
    say: (line: string) => void said.push(line),
    close() {},
  };
  let nanos = 1_000_000_000_000_000_000n;
  const clock: Clock = {
    now: options.now ?? (() => new Date()),
    unixNanos: () => ++nanos,
    sleep: () => Promise.resolve(),
  };
  const proc: ProcessRunner = {
    async run(spec) {
      runs.push(spec);
      if (!options.run) throw new Error(`unexpected process run in test: ${spec.program} ${spec.args.join(' ')}`);
      return options.run(spec);
    },
    which: options.which ?? (() => undefined),
  };
  return {
    version: options.version ?? '202604.01.0',
    paths: resolveNodePaths(root),
    env: { PATH: '/usr/bin:/bin', ...(options.env ?? {}) },
    execPath: '/opt/azure/containers/aks-node-controller',
    cwd: root,
    fs: createRealFileSystem(),
    proc,
    http: createHttpClient(),
    clock,
    log,
    events: { emit: (e) => void emitted.push(e) },
    stdout: { write: (t) => void out.push(String(t)) },
    stderr: { write: (t) => void err.push(String(t)) },
    readStdin: () => Buffer.from(options.stdin ?? ''),
    hostname: () => options.hostname ?? 'aks-test-node',
    terminalColumns: () => undefined,
    withTerminationSignals: forwardingTerminationSignals,
    logs,
    said,
    emitted,
    out,
    err,
    runs,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

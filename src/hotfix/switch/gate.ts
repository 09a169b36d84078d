// The health-gated switch (docs/hotfix.md "safety model"): a candidate hotfix binary, however it was
// obtained (package manager, repository fast path, delta), is copied to a pending name and must pass two
// bounded checks before it takes the hotfix name: `<pending> version` prints the requested version, and
// `<pending> provision --dry-run` builds the provisioning command from the node's own configuration (or
// nbc command file) without side effects. Any failure removes the pending file: the baked binary stays
// and nothing is ever half-promoted.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';
import type { RunResult } from '../../platform/proc.ts';
import { describeRun, type Deadline } from '../retry.ts';
import { copyBinaryAlongside, VERIFY_TIMEOUT_MS } from '../stage.ts';
import { guardBaked } from './baked-guard.ts';
import { writeStagedRecord } from './staged-record.ts';

/** Bound of the dry-run self-test (it reads the configuration and renders the command: well under 1 s). */
export const SELF_TEST_TIMEOUT_MS = 30_000;

const healthCheckFailed = (message: string, cause?: unknown) =>
  new AgentError('ANC_HOTFIX', `health check: ${message}`, { step: 'healthCheckFailed', cause });

/**
 * Stages `candidatePath` as the pending binary, runs the health gate and promotes it to the hotfix name.
 * Throws AgentErrors with step `verifyFailed` (missing, or another version: D5), `healthCheckFailed`
 * (does not run, hangs, fails the self-test) or `stageFailed` (copy or rename failed).
 */
export async function promoteWithHealthGate(
  deps: Deps,
  candidatePath: string,
  expectedVersion: string,
  deadline: Deadline,
  options: {
    moveCandidate?: boolean;
    /** The candidate's fsync, running during the gate: awaited before the promoting rename. */
    durable?: Promise<void>;
  } = {},
): Promise<void> {
  const { hotfixPending: pending, hotfixBinary, bakedBinary } = deps.paths;
  if (!deps.fs.exists(candidatePath)) {
    throw new AgentError('ANC_HOTFIX', `verify hotfix binary: ${candidatePath} does not exist after the install`, { step: 'verifyFailed' });
  }
  // Staging copies the binary, which cannot be interrupted: it never starts after the deadline.
  if (deadline.remainingMs() <= 0) {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: the ${deadline.seconds}s deadline passed before staging`, {
      step: 'stageFailed',
    });
  }
  // A private candidate on the same file system (the fast path's scratch copy) is moved, not copied again.
  if (options.moveCandidate) moveAlongside(deps, candidatePath, pending, bakedBinary);
  else copyBinaryAlongside(deps, candidatePath, pending, bakedBinary);
  try {
    const started = deps.clock.now().getTime();
    const guard = guardBaked(deps);
    const failed = await checkVersion(deps, pending, expectedVersion, deadline)
      .then(() => selfTest(deps, pending, deadline))
      .then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    // The baked binary must be intact after the candidate's runs, whatever they returned.
    const harm = guard.settle();
    if (harm) throw healthCheckFailed(harm);
    if (failed) throw failed.error;
    deps.log.info('hotfix health check passed', { path: pending, durationMs: deps.clock.now().getTime() - started });
    await options.durable?.catch((error: unknown) => {
      throw new AgentError('ANC_HOTFIX', `stage hotfix binary: fsync of ${pending}: ${errorMessage(error)}`, {
        step: 'stageFailed',
        cause: error,
      });
    });
    promote(deps, pending, hotfixBinary, expectedVersion);
  } catch (error) {
    removePending(deps, pending);
    throw error;
  }
}

function moveAlongside(deps: Deps, from: string, to: string, ref: string): void {
  try {
    deps.fs.chmod(from, (deps.fs.stat(ref)?.mode ?? 0o755) & 0o777);
    deps.fs.rename(from, to);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: moving ${from} to ${to}: ${errorMessage(error)}`, {
      step: 'stageFailed',
      cause: error,
    });
  }
}

/** `<pending> version` must run within its bound and print exactly the requested version (D5). */
async function checkVersion(deps: Deps, pending: string, expected: string, deadline: Deadline): Promise<void> {
  const result = await bounded(deps, pending, ['version'], VERIFY_TIMEOUT_MS, deadline, 4096);
  const failure = describeFailure(result, pending, ['version']);
  if (failure) throw healthCheckFailed(failure);
  const printed = result.stdout.replace(/\r?\n$/, '');
  if (printed !== expected) {
    throw new AgentError(
      'ANC_HOTFIX',
      `verify hotfix binary: ${pending} reports version ${JSON.stringify(printed)}, expected ${JSON.stringify(expected)}`,
      { step: 'verifyFailed' },
    );
  }
}

/** The arguments of the self-test: the launcher's provision flags, `--dry-run` added. */
export function selfTestArgs(deps: Pick<Deps, 'fs' | 'paths'>): string[] | undefined {
  const args = ['provision', '--dry-run'];
  if (deps.fs.exists(deps.paths.nodeConfig)) args.push(`--provision-config=${deps.paths.nodeConfig}`);
  if (deps.fs.exists(deps.paths.nbcCmd)) args.push(`--nbc-cmd=${deps.paths.nbcCmd}`);
  return args.length > 2 ? args : undefined;
}

async function selfTest(deps: Deps, pending: string, deadline: Deadline): Promise<void> {
  const args = selfTestArgs(deps);
  if (!args) {
    const where = `${deps.paths.strip(deps.paths.nodeConfig)} or ${deps.paths.strip(deps.paths.nbcCmd)}`;
    throw healthCheckFailed(`no node configuration to self-test against (neither ${where} exists)`);
  }
  const result = await bounded(deps, pending, args, SELF_TEST_TIMEOUT_MS, deadline, 1024 * 1024);
  const failure = describeFailure(result, pending, args);
  if (failure) throw healthCheckFailed(failure);
  let view: unknown;
  try {
    view = JSON.parse(result.stdout);
  } catch {
    view = undefined;
  }
  if (!Array.isArray((view as { command?: unknown } | undefined)?.command)) {
    throw healthCheckFailed(`${pending} provision --dry-run printed no provisioning command`);
  }
}

async function bounded(
  deps: Deps,
  program: string,
  args: string[],
  boundMs: number,
  deadline: Deadline,
  captureLimit: number,
): Promise<RunResult & { boundMs: number }> {
  const timeoutMs = Math.min(boundMs, deadline.remainingMs());
  if (timeoutMs <= 0) throw healthCheckFailed(`no time left of the ${deadline.seconds}s deadline to run ${program} ${args[0]}`);
  const result = await deps.proc.run({ program, args, env: definedEnv(deps.env), timeoutMs, captureLimit });
  return { ...result, boundMs: timeoutMs };
}

/** What went wrong, with the last line the binary printed on stderr (the agent's own error message). */
function describeFailure(result: RunResult & { boundMs: number }, program: string, args: string[]): string | undefined {
  const failure = describeRun(result, program);
  if (!failure) return undefined;
  const what = `${program} ${args[0]}${args[1] === '--dry-run' ? ' --dry-run' : ''}`;
  // The bound actually applied: the command's deadline may have cut the run's own bound short.
  if (result.timedOut) return `${what}: no answer within ${formatSeconds(result.boundMs)} (${failure.message})`;
  const said = result.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('hint: '))
    .at(-1)
    ?.slice(0, 600);
  return `${what}: ${failure.message}${said ? ` (${said})` : ''}`;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function promote(deps: Deps, pending: string, hotfixBinary: string, version: string): void {
  try {
    // The version the gate verified, recorded first (R4-7): the recall reads it and never asks the binary.
    writeStagedRecord(deps, pending, version);
    deps.fs.rename(pending, hotfixBinary);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `stage hotfix binary: promoting ${pending}: ${errorMessage(error)}`, {
      step: 'stageFailed',
      cause: error,
    });
  }
}

function removePending(deps: Deps, pending: string): void {
  try {
    deps.fs.unlink(pending);
  } catch (error) {
    deps.log.error('failed to remove the pending hotfix binary', { path: pending, error: errorMessage(error) });
  }
}

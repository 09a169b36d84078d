// retryCommand (spec 6.4) inside one overall deadline (D4): up to 5 attempts, each bounded by 60 s (and by
// what is left of the deadline), 3 s pause between attempts, WARN `command failed, retrying` after every
// failed attempt. The last failure keeps the child's exit code so the process exit code propagates it
// (spec 1.4: exit status N -> N, killed -> 255).
import type { Deps } from '../platform/deps.ts';
import type { RunResult } from '../platform/proc.ts';

export interface RetryPolicy {
  attempts: number;
  attemptTimeoutMs: number;
  pauseMs: number;
}

export const REFERENCE_RETRY: RetryPolicy = { attempts: 5, attemptTimeoutMs: 60_000, pauseMs: 3_000 };

/** One deadline for the whole command, measured on deps.clock. */
export interface Deadline {
  readonly seconds: number;
  remainingMs(): number;
}

export function deadlineFrom(now: () => Date, seconds: number): Deadline {
  const end = now().getTime() + seconds * 1000;
  return { seconds, remainingMs: () => Math.max(0, end - now().getTime()) };
}

export interface CommandFailure {
  message: string;
  /** The exit code this failure maps to (spec 1.4). */
  exitCode: number;
}

/** Go exec error texts: `exit status N`, `signal: killed`, or the start error. */
export function describeRun(result: RunResult, program: string): CommandFailure | undefined {
  if (result.spawnError) {
    const notFound = (result.spawnError as { code?: string }).code === 'ENOENT';
    return {
      message: notFound ? `exec: "${program}": executable file not found in $PATH` : result.spawnError.message,
      exitCode: 1,
    };
  }
  if (result.timedOut) return { message: 'signal: killed', exitCode: 255 };
  if (result.signal) return { message: `signal: ${signalName(result.signal)}`, exitCode: 255 };
  if (result.exitCode !== 0) return { message: `exit status ${result.exitCode}`, exitCode: result.exitCode ?? 1 };
  return undefined;
}

function signalName(signal: string): string {
  const names: Record<string, string> = { SIGKILL: 'killed', SIGTERM: 'terminated', SIGINT: 'interrupt', SIGSEGV: 'segmentation fault' };
  return names[signal] ?? signal;
}

/** Runs the command with retries; returns undefined on success, else the final failure. */
export async function retryCommand(
  deps: Deps,
  command: { program: string; args: string[] },
  env: Record<string, string>,
  deadline: Deadline,
  policy: RetryPolicy = REFERENCE_RETRY,
): Promise<CommandFailure | undefined> {
  let last: CommandFailure | undefined;
  let made = 0;
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    const remaining = deadline.remainingMs();
    if (remaining <= 0) break;
    made = attempt;
    const result = await deps.proc.run({
      program: command.program,
      args: command.args,
      env,
      timeoutMs: Math.min(policy.attemptTimeoutMs, remaining),
      passthrough: true,
    });
    last = describeRun(result, command.program);
    if (!last) return undefined;
    deps.log.warn('command failed, retrying', {
      command: command.program,
      args: command.args,
      attempt,
      maxRetries: policy.attempts,
      error: last.message,
    });
    if (attempt < policy.attempts) {
      const pause = Math.min(policy.pauseMs, deadline.remainingMs());
      if (pause > 0) await deps.clock.sleep(pause);
    }
  }
  const message =
    made < policy.attempts
      ? `command ${command.program} stopped at the ${deadline.seconds}s download-hotfix deadline after ${made} attempts${last ? `: ${last.message}` : ''}`
      : `command ${command.program} failed after ${policy.attempts} attempts: ${last?.message ?? 'not run'}`;
  return { message, exitCode: last?.exitCode ?? 1 };
}

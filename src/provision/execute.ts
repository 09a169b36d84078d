// Runs the built command (spec 4.1 steps 6 and 8): /bin/bash with the given environment, child output
// passed through and captured, no timeout (the scripts own CSE_TIMEOUT), termination signals forwarded
// to the child's process group. Turns the outcome into the reference's result record and exit code.
import type { Deps } from '../platform/deps.ts';
import { MARSHAL_INVALID_BYTE } from '../platform/go/utf8.ts';
import type { RunResult } from '../platform/proc.ts';
import { redactText, type Secret } from '../platform/secret.ts';
import { GoExecError, goSpawnErrorText, preSpawnRefusal } from './go-exec.ts';
import type { ProvisionResult } from './status.ts';

/** Tail kept of each child stream for the log and provision.json (the live pass-through is complete). */
export const CAPTURE_LIMIT = 1024 * 1024;

export interface Execution {
  result: ProvisionResult;
  /** 0 on success, the script's status, 255 when signalled, 1 when it could not start. */
  exitCode: number;
  failed: boolean;
}

/** Go's exec.ExitError text for a signalled child (`signal: terminated`). */
const SIGNAL_TEXT: Record<string, string> = {
  SIGTERM: 'terminated',
  SIGKILL: 'killed',
  SIGINT: 'interrupt',
  SIGHUP: 'hangup',
  SIGQUIT: 'quit',
  SIGABRT: 'aborted',
  SIGSEGV: 'segmentation fault',
  SIGPIPE: 'broken pipe',
  SIGBUS: 'bus error',
};

export function toExecution(run: RunResult, secrets: readonly (string | Secret)[], program = '/bin/bash'): Execution {
  const output = redactText(`${run.stdout}\n${run.stderr}`, secrets);
  if (run.spawnError) {
    // N9: Go's words, which quote no value (the runtime's own text quotes the offending env value).
    const text = run.spawnError instanceof GoExecError ? run.spawnError.message : goSpawnErrorText(program, run.spawnError);
    return { failed: true, exitCode: 1, result: { ExitCode: '-1', Error: redactText(text, secrets), Output: output } };
  }
  if (run.exitCode === null) {
    const text = `signal: ${SIGNAL_TEXT[run.signal ?? ''] ?? run.signal ?? 'unknown'}`;
    return { failed: true, exitCode: 255, result: { ExitCode: '-1', Error: text, Output: output } };
  }
  if (run.exitCode !== 0) {
    return {
      failed: true,
      exitCode: run.exitCode,
      result: { ExitCode: String(run.exitCode), Error: `exit status ${run.exitCode}`, Output: output },
    };
  }
  return { failed: false, exitCode: 0, result: { ExitCode: '0', Error: '', Output: output } };
}

export interface ExecuteSpec {
  program: string;
  args: string[];
  env: Record<string, string>;
  /** Values to blank out of everything logged or written (D14). */
  secrets: readonly (string | Secret)[];
}

export async function execute(deps: Pick<Deps, 'proc' | 'log' | 'withTerminationSignals'>, spec: ExecuteSpec): Promise<Execution> {
  let run: RunResult;
  const refused = preSpawnRefusal(spec.program, spec.args, spec.env);
  try {
    if (refused !== undefined) throw new GoExecError(refused);
    run = await deps.withTerminationSignals(
      (signal) => deps.log.warn('received signal; stopping the provisioning scripts', { signal }),
      (abort) =>
        deps.proc.run({
          program: spec.program,
          args: spec.args,
          env: spec.env,
          passthrough: true,
          captureLimit: CAPTURE_LIMIT,
          goMarshalBytes: true,
          signal: abort,
        }),
    );
  } catch (error) {
    // A synchronous spawn failure (an environment entry with a NUL byte, for example): exit 1, ExitCode -1.
    run = { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: error as Error };
  }
  const execution = toExecution(run, spec.secrets, spec.program);
  // The log shows an invalid byte as U+FFFD (the marker is for provision.json's Go-style escape only).
  const redact = (text: string) => redactText(text, spec.secrets).replaceAll(MARSHAL_INVALID_BYTE, '\ufffd');
  deps.log.info('CSE finished', {
    exitCode: run.spawnError ? -1 : (run.exitCode ?? -1),
    stdout: redact(run.stdout),
    stderr: redact(run.stderr),
    error: execution.failed ? execution.result.Error : null,
  });
  return execution;
}

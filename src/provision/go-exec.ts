// The reference's exec errors (Go os/exec), as they reach provision.json, the event and the log (N9).
// Go refuses an environment entry with a NUL before it forks (`exec: environment variable contains NUL`)
// and reports a failed fork/exec as `fork/exec <program>: <errno text>`. Neither quotes a value, so no
// environment value (a bootstrap token, say) can land in a message. Node's own errors quote the value,
// so the check runs here, before the runtime ever sees the environment. Pure.

export const ENV_NUL = 'exec: environment variable contains NUL';

/** An exec error already in Go's words. */
export class GoExecError extends Error {}

/** Go's syscall.Errno text for the errors a fork/exec can report. */
const EXEC_ERRNO_TEXT: Record<string, string> = {
  E2BIG: 'argument list too long',
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EINVAL: 'invalid argument',
  ENOEXEC: 'exec format error',
  ENOTDIR: 'not a directory',
  ENOMEM: 'cannot allocate memory',
  ETXTBSY: 'text file busy',
  EAGAIN: 'resource temporarily unavailable',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EPERM: 'operation not permitted',
};

/** The error Go's exec would return before forking, or undefined when the child may be started. */
export function preSpawnRefusal(program: string, args: readonly string[], env: Readonly<Record<string, string>>): string | undefined {
  for (const [key, value] of Object.entries(env)) if (key.includes('\0') || value.includes('\0')) return ENV_NUL;
  // A NUL in the program or an argument: syscall.BytePtrFromString fails with EINVAL inside forkExec.
  if (program.includes('\0') || args.some((a) => a.includes('\0'))) return `fork/exec ${program}: ${EXEC_ERRNO_TEXT.EINVAL}`;
  return undefined;
}

/** A spawn failure in Go's words (`fork/exec /bin/bash: argument list too long`); never the runtime's text. */
export function goSpawnErrorText(program: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && Object.hasOwn(EXEC_ERRNO_TEXT, code)) return `fork/exec ${program}: ${EXEC_ERRNO_TEXT[code]}`;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return `fork/exec ${program}: ${code.toLowerCase()}`;
  return `fork/exec ${program}: could not start`;
}

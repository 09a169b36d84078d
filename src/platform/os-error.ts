// Go-style text for an OS error (`open <path>: no such file or directory`), so messages that the
// reference builds from Go's *PathError read the same here.
// Shared errno table: pathError / isNotFound (runtime modules via path-error.ts) and goOsErrorText.

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'file name too long',
  EIO: 'input/output error',
  EPERM: 'operation not permitted',
  EEXIST: 'file exists',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
};

function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isNotFound(error: unknown): boolean {
  return errnoCode(error) === 'ENOENT';
}

/** `<op> <path>: <reason>` like Go's *os.PathError. */
export function pathError(op: string, path: string, error: unknown): string {
  const code = errnoCode(error);
  if (code !== undefined && Object.hasOwn(ERRNO_TEXT, code)) return `${op} ${path}: ${ERRNO_TEXT[code]}`;
  const message = error instanceof Error ? error.message : String(error);
  return `${op} ${path}: ${message}`;
}

/** Same text as pathError with the error first (kept for callers of the earlier API). */
export function goOsErrorText(error: unknown, op: string, path: string): string {
  return pathError(op, path, error);
}

// Which boot and which process a log line came from, so `status` tells a live run from a dead one: the
// kernel's boot id (a new one every boot) and the process's pid with its start time (clock ticks since
// boot, field 22 of /proc/<pid>/stat), which together name one process even after its pid is reused.
// Both are read under AKS_NODE_ROOT like every node path (a test gives a sandbox its own boot id, or
// links <root>/proc to /proc); unreadable means unknown, never an error.
import type { FileSystem } from './fs.ts';
import type { NodePaths } from './paths.ts';

type BootDeps = { fs: Pick<FileSystem, 'readText'>; paths: Pick<NodePaths, 'bootId' | 'procDir'> };

function read(deps: BootDeps, path: string): string | undefined {
  try {
    return deps.fs.readText(path, 'status');
  } catch {
    return undefined;
  }
}

/** The kernel's boot id, or undefined when it cannot be read (a copy of a node's files, macOS). */
export function currentBootId(deps: BootDeps): string | undefined {
  const id = read(deps, deps.paths.bootId)?.trim();
  return id && /^[0-9a-f-]{8,64}$/i.test(id) ? id : undefined;
}

/** Field 22 (starttime) of a /proc/<pid>/stat text; the command name (field 2) may hold spaces and parens. */
export function statStartTime(stat: string): string | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at 3 (state): starttime (22) is the 20th of them.
  const value = fields[19];
  return value && /^\d+$/.test(value) ? value : undefined;
}

/** Field 3 (state): `Z` (zombie) and `X` (dead) are ended processes not yet reaped. */
export const statEnded = (stat: string) => /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));

/** The start time of a running process, or undefined when it does not exist, has ended, or /proc is not readable. */
export function processStartTime(deps: BootDeps, pid: number | 'self'): string | undefined {
  const stat = read(deps, `${deps.paths.procDir}/${pid}/stat`);
  return stat === undefined || statEnded(stat) ? undefined : statStartTime(stat);
}

/** What every command's start line records about its own process (status reads it back). */
export function processIdentity(deps: BootDeps, pid: number): Record<string, string> {
  const bootId = currentBootId(deps);
  const start = processStartTime(deps, pid);
  return { pid: String(pid), ...(bootId ? { bootId } : {}), ...(start ? { pidStart: start } : {}) };
}

export type Liveness = 'alive' | 'gone' | 'earlier-boot' | 'unknown';

/**
 * Whether the process a start line names still runs: another boot id means an earlier boot (every
 * process of it ended); the same boot and no /proc entry with the same start time means it is gone.
 */
export function liveness(deps: BootDeps, logged: { bootId?: string; pid?: string; pidStart?: string }): Liveness {
  const now = currentBootId(deps);
  if (now && logged.bootId && logged.bootId !== now) return 'earlier-boot';
  const sameBoot = Boolean(now && logged.bootId);
  const pid = Number(logged.pid);
  if (!Number.isInteger(pid) || pid <= 0) return 'unknown';
  // Without boot ids a readable /proc still answers: a pid that is not there runs in no boot (issue 40).
  if (!sameBoot && processStartTime(deps, 'self') === undefined) return 'unknown';
  const start = processStartTime(deps, pid);
  if (start === undefined) return 'gone';
  if (logged.pidStart !== undefined) return logged.pidStart === start ? 'alive' : 'gone';
  return sameBoot ? 'alive' : 'unknown';
}

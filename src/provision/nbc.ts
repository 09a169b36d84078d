// The --nbc-cmd path (spec 4.1 step 4): the NBC command file runs as `/bin/bash -- <cleaned path>` with
// the agent's own environment unchanged; `--` keeps a file name starting with `-` from being a flag.
import { posix } from 'node:path';
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { pathError } from '../platform/path-error.ts';

/** Upper bound for reading the NBC file for the env comparison (the run itself never reads it). */
export const MAX_NBC_BYTES = 4 * 1024 * 1024;

export interface NbcCommand {
  program: string;
  args: string[];
}

/** Go filepath.Clean for POSIX paths. */
export function cleanPath(path: string): string {
  if (path === '') return '.';
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** Checks the NBC file (a regular file, symlinks followed) and returns the command to run. */
export function nbcCommand(deps: Pick<Deps, 'fs'>, file: string): NbcCommand {
  let stat;
  try {
    stat = deps.fs.stat(file);
  } catch (error) {
    throw new AgentError('ANC_NBC_CMD', `read NBC command file ${file}: ${pathError('stat', file, error)}`);
  }
  if (stat === undefined) {
    throw new AgentError('ANC_NBC_CMD', `read NBC command file ${file}: stat ${file}: no such file or directory`);
  }
  if (!stat.isFile) throw new AgentError('ANC_NBC_CMD', `NBC command file ${file} must be a regular file`);
  return { program: '/bin/bash', args: ['--', cleanPath(file)] };
}

/** The NBC file's text for compareEnvs (size-capped; the run does not depend on it). */
export function readNbcText(deps: Pick<Deps, 'fs'>, file: string): string {
  const stat = deps.fs.stat(file);
  if (!stat?.isFile) throw new AgentError('ANC_NBC_CMD', `NBC command file ${file} must be a regular file`);
  if (stat.size > MAX_NBC_BYTES) {
    throw new AgentError('ANC_NBC_CMD', `NBC command file ${file} is too large to compare: ${stat.size} bytes (limit ${MAX_NBC_BYTES})`);
  }
  return deps.fs.readText(file, 'config');
}

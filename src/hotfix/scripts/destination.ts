// A destination file of a script payload, handled without ever following a symlink: every directory from
// the node root down to it is checked with lstat, the file is read with O_NOFOLLOW through the input
// guard, and a new version is staged beside it (exclusive create, fsync) and committed by rename.
import { basename, dirname } from 'node:path';
import type { Deps } from '../../platform/deps.ts';
import { sha256Hex } from '../../platform/hash.ts';
import { randomTempSuffix } from '../../platform/fs.ts';
import { STAGE_PREFIX } from './format.ts';

export { STAGE_PREFIX };

type FsDeps = Pick<Deps, 'fs' | 'paths'>;

export type DestinationState =
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string }
  | { kind: 'file'; data: Buffer; sha256: string; mode: number; uid: number; gid: number };

/** Looks at one on-node destination (`/opt/azure/containers/x.sh`) under the sandbox root. */
export function inspectDestination(deps: FsDeps, destination: string): DestinationState {
  const parts = destination.split('/').filter(Boolean);
  let onNode = '';
  for (const part of parts.slice(0, -1)) {
    onNode += `/${part}`;
    const s = deps.fs.lstat(deps.paths.under(onNode));
    if (!s) return { kind: 'missing' };
    if (s.isSymlink) return { kind: 'refused', reason: `directory ${onNode} is a symlink (never followed)` };
    if (!s.isDirectory) return { kind: 'refused', reason: `${onNode} is not a directory` };
  }
  const target = deps.paths.under(destination);
  const s = deps.fs.lstat(target);
  if (!s) return { kind: 'missing' };
  if (s.isSymlink) return { kind: 'refused', reason: `${destination} is a symlink (never followed)` };
  if (!s.isFile) return { kind: 'refused', reason: `${destination} is not a regular file` };
  const data = deps.fs.readFileNoFollow(target, 'script');
  return { kind: 'file', data, sha256: sha256Hex(data), mode: s.mode & 0o777, uid: s.uid, gid: s.gid };
}

/** Writes `data` to a new temp file beside `target` (same directory, so the rename is atomic). */
export function stageBeside(deps: FsDeps, target: string, data: Uint8Array, mode: number, owner?: { uid: number; gid: number }): string {
  const temp = `${dirname(target)}/${STAGE_PREFIX}${basename(target)}.${randomTempSuffix()}`;
  deps.fs.stageFile(temp, data, { mode, owner });
  return temp;
}

/** Replaces `target` with a staged file; the directory is synced so the rename survives a crash. */
export function commitStaged(deps: FsDeps, temp: string, target: string): void {
  deps.fs.rename(temp, target);
  deps.fs.syncDirectory(dirname(target));
}

/** Stage + commit in one (restores and rollbacks). */
export function replaceFile(deps: FsDeps, target: string, data: Uint8Array, mode: number, owner?: { uid: number; gid: number }): void {
  const temp = stageBeside(deps, target, data, mode, owner);
  try {
    commitStaged(deps, temp, target);
  } catch (error) {
    deps.fs.unlink(temp);
    throw error;
  }
}

// The script hotfix's state directory (paths.scriptHotfixState, 0700): record.json says what a payload
// replaced (destination, old and new sha256, mode, owner, the backup's name), backups/ keeps each
// original byte for byte, last-restore.json says what the last restore put back. The record is written
// before the first destination changes and marked `applied` after the last, so a crash anywhere in
// between leaves what a restore needs.
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';

export interface RecordEntry {
  /** The on-node path (without the sandbox root). */
  destination: string;
  backup: string;
  oldSha256: string;
  newSha256: string;
  oldMode: string;
  newMode: string;
  uid: number;
  gid: number;
}

export interface ScriptRecord {
  schemaVersion: 1;
  label: string;
  digest: string;
  platform: string;
  appliedBy: string;
  state: 'applying' | 'applied';
  updatedAt: string;
  entries: RecordEntry[];
}

export interface LastRestore {
  label: string;
  digest: string;
  reason: string;
  restoredAt: string;
  restored: string[];
  unchanged: string[];
  problems: string[];
}

type StateDeps = Pick<Deps, 'fs' | 'paths'>;

export const stateFiles = (deps: Pick<Deps, 'paths'>) => {
  const dir = deps.paths.scriptHotfixState;
  return { dir, record: `${dir}/record.json`, backups: `${dir}/backups`, lastRestore: `${dir}/last-restore.json` };
};

const stateError = (what: string, error: unknown) =>
  new AgentError('ANC_SCRIPT_HOTFIX', `script hotfix state: ${what}: ${errorMessage(error)}`, { cause: error });

function readJson<T>(deps: StateDeps, path: string, check: (v: Partial<T>) => boolean): T | undefined {
  let text: string;
  try {
    if (!deps.fs.lstat(path)) return undefined;
    text = deps.fs.readFileNoFollow(path, 'state').toString('utf8');
  } catch (error) {
    throw stateError(`reading ${path}`, error);
  }
  let value: Partial<T>;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw stateError(`${path} is not JSON`, error);
  }
  if (typeof value !== 'object' || value === null || !check(value)) throw stateError(path, 'unexpected content');
  return value as T;
}

export function readRecord(deps: StateDeps): ScriptRecord | undefined {
  return readJson<ScriptRecord>(deps, stateFiles(deps).record, (v) => v.schemaVersion === 1 && Array.isArray(v.entries));
}

export function readLastRestore(deps: StateDeps): LastRestore | undefined {
  return readJson<LastRestore>(deps, stateFiles(deps).lastRestore, (v) => Array.isArray(v.restored));
}

function writeJson(deps: StateDeps, path: string, value: unknown): void {
  const files = stateFiles(deps);
  try {
    deps.fs.mkdirp(files.backups, 0o700);
    deps.fs.atomicWrite(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    throw stateError(`writing ${path}`, error);
  }
}

export const writeRecord = (deps: StateDeps, record: ScriptRecord) => writeJson(deps, stateFiles(deps).record, record);
export const writeLastRestore = (deps: StateDeps, last: LastRestore) => writeJson(deps, stateFiles(deps).lastRestore, last);

/** Keeps one original under backups/<index>.orig (0600): the bytes a restore writes back. */
export function saveBackup(deps: StateDeps, index: number, data: Uint8Array): string {
  const name = `${String(index).padStart(3, '0')}.orig`;
  const path = `${stateFiles(deps).backups}/${name}`;
  try {
    deps.fs.mkdirp(stateFiles(deps).backups, 0o700);
    deps.fs.atomicWrite(path, data, { mode: 0o600 });
  } catch (error) {
    throw stateError(`backing up to ${path}`, error);
  }
  return name;
}

export function readBackup(deps: StateDeps, name: string): Buffer {
  return deps.fs.readFileNoFollow(`${stateFiles(deps).backups}/${name}`, 'script');
}

/** Removes the record and the backups (after a complete restore or rollback); last-restore.json stays. */
export function clearRecord(deps: StateDeps): void {
  const files = stateFiles(deps);
  try {
    deps.fs.unlink(files.record);
    deps.fs.removeTree(files.backups);
  } catch (error) {
    throw stateError(`removing ${files.record}`, error);
  }
}

// The script hotfix's state directory (paths.scriptHotfixState, 0700): record.json says what a payload
// replaced (destination, old and new sha256, mode, owner, the backup's name), backups/ keeps each
// original, last-restore.json says what the last restore put back. The record is written before the
// first destination changes and marked `applied` after the last, so a crash anywhere in between leaves
// what a restore needs.
//
// A backup is self-describing (issue 34): one file, `ANC-SCRIPT-BACKUP 1\n<header JSON>\n<bytes>`, whose
// header names the destination, the original's sha256 and mode and owner, and the payload's sha256 for
// it. A restore therefore works from the backups alone when the record is unreadable, and checks every
// byte against the digest. Nothing here follows a symlink: every directory from the node root to the
// backups is checked with lstat, files are opened with O_NOFOLLOW, backup names are confined to
// backups/ (`NNN.orig`).
import { readStateFile, parseStateJson } from '../../config/json-offset.ts';
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';
import { sha256Hex } from '../../platform/hash.ts';
import { SCRIPT_CAPS } from './format.ts';

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
  /** Destinations that still hold the hotfix's bytes: the image's could not be put back (never provisioned over). */
  unrestorable?: string[];
}

/** What travels with a backup's bytes. */
export interface BackupHeader {
  destination: string;
  /** The original's sha256 (the bytes after the header). */
  sha256: string;
  /** The payload's bytes for this destination: what a restore replaces. */
  newSha256: string;
  mode: string;
  uid: number;
  gid: number;
  label: string;
}

type StateDeps = Pick<Deps, 'fs' | 'paths'>;

export const stateFiles = (deps: Pick<Deps, 'paths'>) => {
  const dir = deps.paths.scriptHotfixState;
  return { dir, record: `${dir}/record.json`, backups: `${dir}/backups`, lastRestore: `${dir}/last-restore.json` };
};

export const stateError = (what: string, error: unknown) =>
  new AgentError('ANC_SCRIPT_HOTFIX', `script hotfix state: ${what}: ${errorMessage(error)}`, { cause: error });

const backupError = (message: string) => new AgentError('ANC_SCRIPT_HOTFIX', message);

const BACKUP_MAGIC = 'ANC-SCRIPT-BACKUP 1\n';
const BACKUP_NAME = /^[0-9]{3,5}\.orig$/;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Why the state directory (or its backups/) cannot be trusted: a symlink or a non-directory anywhere from
 * the node root down (never followed). undefined when sound or absent.
 */
export function stateDirProblem(deps: StateDeps): string | undefined {
  const onNode = deps.paths.strip(stateFiles(deps).backups);
  let at = '';
  for (const part of onNode.split('/').filter(Boolean)) {
    at += `/${part}`;
    const s = deps.fs.lstat(deps.paths.under(at));
    if (!s) return undefined;
    if (s.isSymlink) return `${at} is a symlink (never followed)`;
    if (!s.isDirectory) return `${at} is not a directory`;
  }
  return undefined;
}

function checkedStateDir(deps: StateDeps): void {
  const problem = stateDirProblem(deps);
  if (problem) throw stateError('state directory', problem);
}

function recordProblem(v: Partial<ScriptRecord>): string | undefined {
  if (v.schemaVersion !== 1 || !Array.isArray(v.entries)) return 'expected {"schemaVersion":1,"entries":[...]}';
  if (v.entries.length > SCRIPT_CAPS.entries) return `${v.entries.length} entries, over the cap of ${SCRIPT_CAPS.entries}`;
  for (const [i, e] of v.entries.entries()) {
    if (typeof e !== 'object' || e === null) return `entries[${i}] is not an object`;
    for (const k of ['destination', 'backup', 'oldSha256', 'newSha256', 'oldMode', 'newMode'] as const) {
      if (typeof e[k] !== 'string') return `entries[${i}].${k}: expected a string`;
    }
    if (!Number.isSafeInteger(e.uid) || !Number.isSafeInteger(e.gid)) return `entries[${i}]: uid and gid must be integers`;
  }
  return undefined;
}

function readState(deps: StateDeps, path: string, kind: 'state' | 'scriptRecord'): unknown {
  try {
    return readStateFile(deps.fs, path, { kind, noFollow: true });
  } catch (error) {
    throw stateError(path, error);
  }
}

/** The record, undefined when absent; throws (never quoting its content) when unreadable or malformed. */
export function readRecord(deps: StateDeps): ScriptRecord | undefined {
  checkedStateDir(deps);
  const path = stateFiles(deps).record;
  const value = readState(deps, path, 'scriptRecord') as Partial<ScriptRecord> | null | undefined;
  if (value === undefined) return undefined;
  const problem = typeof value === 'object' && value !== null ? recordProblem(value) : 'expected a JSON object';
  if (problem) throw stateError(path, problem);
  return value as ScriptRecord;
}

export function readLastRestore(deps: StateDeps): LastRestore | undefined {
  checkedStateDir(deps);
  const path = stateFiles(deps).lastRestore;
  const value = readState(deps, path, 'state') as Partial<LastRestore> | null | undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || !Array.isArray(value.restored)) throw stateError(path, 'expected {"restored":[...]}');
  return value as LastRestore;
}

function writeJson(deps: StateDeps, path: string, value: unknown): void {
  const files = stateFiles(deps);
  try {
    checkedStateDir(deps);
    deps.fs.mkdirp(files.backups, 0o700);
    checkedStateDir(deps);
    deps.fs.atomicWrite(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    throw stateError(`writing ${path}`, error);
  }
}

export const writeRecord = (deps: StateDeps, record: ScriptRecord) => writeJson(deps, stateFiles(deps).record, record);
export const writeLastRestore = (deps: StateDeps, last: LastRestore) => writeJson(deps, stateFiles(deps).lastRestore, last);

export const backupName = (index: number) => `${String(index).padStart(3, '0')}.orig`;

/** Keeps one original under backups/<NNN>.orig (0600), with its header: the bytes a restore writes back. */
export function saveBackup(deps: StateDeps, index: number, header: BackupHeader, data: Uint8Array): string {
  const name = backupName(index);
  const path = `${stateFiles(deps).backups}/${name}`;
  try {
    checkedStateDir(deps);
    deps.fs.mkdirp(stateFiles(deps).backups, 0o700);
    checkedStateDir(deps);
    const head = Buffer.from(`${BACKUP_MAGIC}${JSON.stringify(header)}\n`);
    deps.fs.atomicWrite(path, Buffer.concat([head, data]), { mode: 0o600 });
  } catch (error) {
    throw stateError(`backing up to ${path}`, error);
  }
  return name;
}

function headerProblem(h: Partial<BackupHeader> | null): string | undefined {
  if (typeof h !== 'object' || h === null) return 'header is not a JSON object';
  if (typeof h.destination !== 'string' || typeof h.label !== 'string') return 'header lacks destination or label';
  if (typeof h.sha256 !== 'string' || !HEX64.test(h.sha256) || typeof h.newSha256 !== 'string' || !HEX64.test(h.newSha256)) {
    return 'header lacks a sha256';
  }
  if (typeof h.mode !== 'string' || !Number.isSafeInteger(h.uid) || !Number.isSafeInteger(h.gid)) return 'header lacks mode or owner';
  return undefined;
}

/**
 * One backup by name, confined to backups/ and checked: its header parsed, its bytes against the
 * header's sha256. Throws with what is wrong (never the content).
 */
export function readBackup(deps: StateDeps, name: string): { header: BackupHeader; data: Buffer } {
  if (!BACKUP_NAME.test(name)) throw backupError(`backup name ${JSON.stringify(name.slice(0, 64))} is not NNN.orig inside backups/`);
  checkedStateDir(deps);
  const path = `${stateFiles(deps).backups}/${name}`;
  const raw = deps.fs.readFileNoFollow(path, 'scriptBackup');
  const magic = raw.subarray(0, BACKUP_MAGIC.length).toString('latin1');
  const end = raw.indexOf(0x0a, BACKUP_MAGIC.length);
  if (magic !== BACKUP_MAGIC || end < 0 || end - BACKUP_MAGIC.length > 4096) throw backupError(`backup ${name} has no header`);
  let header: Partial<BackupHeader> | null = null;
  try {
    header = parseStateJson(raw.subarray(BACKUP_MAGIC.length, end).toString('utf8')) as Partial<BackupHeader> | null;
  } catch (error) {
    throw backupError(`backup ${name} header: ${errorMessage(error)}`);
  }
  const problem = headerProblem(header);
  if (problem) throw backupError(`backup ${name}: ${problem}`);
  const checked = header as BackupHeader;
  const data = raw.subarray(end + 1);
  const digest = sha256Hex(data);
  if (digest !== checked.sha256) {
    throw backupError(`backup ${name} does not match its sha256 (${digest.slice(0, 12)} instead of ${checked.sha256.slice(0, 12)})`);
  }
  return { header: checked, data };
}

/** The names under backups/ (a restore without a readable record works from these). */
export function listBackups(deps: StateDeps): string[] {
  checkedStateDir(deps);
  const dir = stateFiles(deps).backups;
  if (!deps.fs.lstat(dir)) return [];
  return deps.fs
    .readdir(dir)
    .filter((n) => BACKUP_NAME.test(n))
    .sort();
}

/** Removes the record and the backups (after a complete restore or rollback); last-restore.json stays. */
export function clearRecord(deps: StateDeps): void {
  const files = stateFiles(deps);
  try {
    checkedStateDir(deps);
    const record = deps.fs.lstat(files.record);
    if (record?.isDirectory) deps.fs.removeTree(files.record);
    else if (record) deps.fs.unlink(files.record);
    deps.fs.removeTree(files.backups);
  } catch (error) {
    throw stateError(`removing ${files.record}`, error);
  }
}

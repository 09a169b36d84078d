// Which version the staged hotfix is (issue 41 R4-7), recorded at promotion instead of asked of the binary:
// a binary that answers slowly, or a truncated one, must never decide its own recall. The record names the
// version the health gate verified and the identity of the file it describes (device:inode, then size, mode
// and modification time). It is written (atomically) just before the rename that promotes the binary, and
// a rename keeps that identity, so the record matches the staged binary it was written for and nothing
// else: a kill between the two, a truncation, a rewrite or a different file all read as "cannot tell".
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage } from '../../platform/errors.ts';
import { readStateFile } from '../../config/json-offset.ts';
import { STAMPED_VERSION } from '../../pointer/version.ts';

type RecordDeps = Pick<Deps, 'fs' | 'paths' | 'clock'>;

export type StagedVersion = { known: true; version: string } | { known: false; why: string; recorded?: string };

/** Records `version` for the file now at `pending`, before it is renamed to the hotfix name. */
export function writeStagedRecord(deps: RecordDeps, pending: string, version: string): void {
  const id = deps.fs.identity(pending);
  if (!id) throw new AgentError('ANC_HOTFIX', `recording the staged version: ${pending} is gone`);
  const record = { version, file: id.file, content: id.content, promotedAt: deps.clock.now().toISOString() };
  deps.fs.atomicWrite(deps.paths.hotfixRecord, `${JSON.stringify(record)}\n`, { mode: 0o644 });
}

/** The staged binary's version by its record, or why it cannot be told. Never runs the binary. */
export function stagedVersionByRecord(deps: Pick<Deps, 'fs' | 'paths'>): StagedVersion {
  const path = deps.paths.hotfixRecord;
  let doc: unknown;
  try {
    doc = readStateFile(deps.fs, path, { noFollow: true });
  } catch (error) {
    return { known: false, why: `its record ${path} is unreadable: ${errorMessage(error)}` };
  }
  if (doc === undefined) return { known: false, why: `it has no record ${path} (staged before records, or the record was lost)` };
  const r = doc as { version?: unknown; file?: unknown; content?: unknown } | null;
  if (typeof r?.version !== 'string' || !STAMPED_VERSION.test(r.version) || typeof r.file !== 'string' || typeof r.content !== 'string') {
    return { known: false, why: `its record ${path} is not {"version","file","content"}` };
  }
  const id = deps.fs.identity(deps.paths.hotfixBinary);
  if (!id || id.file !== r.file || id.content !== r.content) {
    return {
      known: false,
      why: `the staged binary is not the file its record describes (changed, truncated or replaced since promotion)`,
      recorded: r.version,
    };
  }
  return { known: true, version: r.version };
}

/** Removes the record with the staged binary (never an error: a stale record matches no binary). */
export function removeStagedRecord(deps: Pick<Deps, 'fs' | 'paths'>): void {
  try {
    if (deps.fs.lstat(deps.paths.hotfixRecord)) deps.fs.unlink(deps.paths.hotfixRecord);
  } catch {}
}

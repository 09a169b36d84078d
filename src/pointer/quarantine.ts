// The local bad-version record (docs/hotfix.md "return to the baked agent"): hotfix versions that failed
// on this node by the agent's own fault. download-hotfix refuses to stage a recorded version (outcome
// `quarantined`); `hotfix explain` shows the record. One JSON file, written atomically:
// {"versions":[{"version":"202604.01.1","reason":"...","recordedAt":"2026-..."}]}.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { readStateFile } from '../config/json-offset.ts';

export interface QuarantineEntry {
  version: string;
  reason: string;
  recordedAt: string;
  /** Why (issue 34): failed before the scripts, provisioning failed under it, or recalled by the pointer. */
  cause?: 'beforeScripts' | 'provisionFailed' | 'recalled';
  /** provisionFailed: the exit code and its name. */
  exitCode?: number;
  exitName?: string;
}

type RecordDeps = Pick<Deps, 'fs' | 'paths'>;

/** The recorded versions; a missing file is an empty record, an unreadable or invalid one an error. */
export function readQuarantine(deps: RecordDeps): QuarantineEntry[] {
  const path = deps.paths.hotfixQuarantine;
  const fail = (detail: string, cause?: unknown): never => {
    throw new AgentError('ANC_HOTFIX', `reading hotfix quarantine record ${path}: ${detail}`, { step: 'quarantined', cause });
  };
  let doc: unknown;
  try {
    doc = readStateFile(deps.fs, path);
  } catch (error) {
    return fail(errorMessage(error), error);
  }
  if (doc === undefined) return [];
  const versions = (doc as { versions?: unknown } | null)?.versions;
  if (!Array.isArray(versions)) return fail('expected {"versions":[...]}');
  return versions.map((v, i) => {
    const e = v as Partial<QuarantineEntry> | null;
    if (typeof e?.version !== 'string') return fail(`versions[${i}].version: expected a string`);
    const extra = {
      ...(typeof e.cause === 'string' ? { cause: e.cause } : {}),
      ...(typeof e.exitCode === 'number' ? { exitCode: e.exitCode } : {}),
      ...(typeof e.exitName === 'string' ? { exitName: e.exitName } : {}),
    };
    return { version: e.version, reason: String(e.reason ?? ''), recordedAt: String(e.recordedAt ?? ''), ...extra };
  });
}

/** The entry for `version` (the binary's version, without a package revision), if recorded. */
export function quarantineEntryFor(entries: readonly QuarantineEntry[], version: string): QuarantineEntry | undefined {
  return entries.find((e) => e.version === version);
}

/** Adds (or refreshes) the entry for `entry.version`; an unusable old record is replaced. Mode 0644. */
export function recordQuarantine(deps: RecordDeps, entry: QuarantineEntry): void {
  let entries: QuarantineEntry[] = [];
  try {
    entries = readQuarantine(deps);
  } catch {
    entries = [];
  }
  const next = [...entries.filter((e) => e.version !== entry.version), entry];
  const path = deps.paths.hotfixQuarantine;
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  if (!deps.fs.exists(dir)) deps.fs.mkdirp(dir, 0o755);
  deps.fs.atomicWrite(path, `${JSON.stringify({ versions: next })}\n`, { mode: 0o644, tempPrefix: '.aks-node-controller-quarantine-' });
}

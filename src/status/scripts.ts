// Which provisioning scripts ran (issue 21): `baked`, or `hotfix <label>` with the files it replaced,
// from the script hotfix record; and the last restore of the baked scripts (after a fallback, before
// another payload). Unreadable state becomes a note, like every other source of `status`.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { QuarantineEntry } from '../pointer/quarantine.ts';
import type { LogLine } from './boots.ts';

export interface ScriptsStatus {
  ran: 'baked' | 'hotfix';
  label: string | null;
  /** The on-node files the payload replaced (empty for baked). */
  replaced: string[];
  /** `applying`: an apply was interrupted (the next provision or fallback restores the originals). */
  state: 'applied' | 'applying' | null;
  /**
   * When the hotfix's scripts ran in this provisioning and were restored after it (a failure under the
   * hotfix): `ran` says what ran, not what is installed now (issue 40).
   */
  restoredAt?: string;
  lastRestore: { label: string; reason: string; restoredAt: string; restored: string[]; problems: string[] } | null;
  /** Hotfix versions this node gave up (issue 34): failed before the scripts, failed provisioning, or recalled. */
  quarantined: QuarantineEntry[];
  /** This boot's payload listed the node's platform but changed nothing (only when that happened). */
  noop?: { label: string; verdict: string };
  /** What changed since the image was built (only when the image kept its manifest on the node). */
  image?: { manifest: string; changed: Array<{ path: string; by: string }>; removed: string[]; added: string[] };
}

/**
 * `noop`: this boot's no-op verdict from the agent log (collect.ts finds it); `provisionStartedAt`: when the
 * provisioning the verdict is about started (ms), so a restore after it means the hotfix's scripts ran in it.
 */
export async function scriptsStatus(
  deps: Deps,
  notes: string[],
  noop?: { label: string; verdict: string },
  provisionStartedAt?: number | null,
): Promise<ScriptsStatus> {
  const { readRecord, readLastRestore } = await import('../hotfix/scripts/backup.ts');
  const status: ScriptsStatus = {
    ran: 'baked',
    label: null,
    replaced: [],
    state: null,
    lastRestore: null,
    quarantined: [],
    ...(noop ? { noop } : {}),
  };
  try {
    const record = readRecord(deps);
    if (record) {
      Object.assign(status, {
        ran: 'hotfix',
        label: record.label,
        replaced: record.entries.map((e) => e.destination),
        state: record.state,
      });
    }
  } catch (error) {
    notes.push(errorMessage(error));
  }
  try {
    const last = readLastRestore(deps);
    if (last) {
      const { label, reason, restoredAt, restored, problems } = last;
      status.lastRestore = { label, reason, restoredAt, restored, problems };
      // Restored after this provisioning started: the payload's scripts were what ran in it.
      const at = Date.parse(restoredAt);
      if (status.ran === 'baked' && provisionStartedAt != null && Number.isFinite(at) && at >= provisionStartedAt) {
        Object.assign(status, { ran: 'hotfix', label, replaced: restored, state: 'applied', restoredAt });
      }
    }
  } catch (error) {
    notes.push(errorMessage(error));
  }
  try {
    const { readQuarantine } = await import('../pointer/quarantine.ts');
    status.quarantined = readQuarantine(deps);
  } catch (error) {
    notes.push(errorMessage(error));
  }
  const image = await imageChanges(deps, notes);
  if (image) status.image = image;
  return status;
}

/** Why a version was given up and what happened then (it already has), for people: the `hotfix:` block's lines. */
export function quarantineLines(quarantined: QuarantineEntry[]): string[] {
  return quarantined.map((q) => {
    const what =
      q.cause === 'provisionFailed'
        ? `provisioning failed under it with exit code ${q.exitCode} ${q.exitName ?? ''} after the scripts started; the image's scripts stay until a provision restores them (never under running scripts), and this node does not provision again (the unit runs only while provision.complete is absent): reimage it`.replace(
            '  ',
            ' ',
          )
        : q.cause === 'recalled'
          ? "recalled by the hotfix pointer; the image's scripts were restored and the baked agent runs since"
          : `${q.reason}; the baked agent provisioned instead`;
    return `  quarantined ${q.version} at ${q.recordedAt}: ${what}`;
  });
}

/** The node against the manifest its image kept (paths.imageManifest); a problem becomes a note. */
async function imageChanges(deps: Deps, notes: string[]): Promise<ScriptsStatus['image']> {
  const file = deps.paths.imageManifest;
  if (!deps.fs.exists(file)) return undefined;
  try {
    const [{ parseManifest }, { collectManifest }, { diffManifests }, { hotfixExplainer }] = await Promise.all([
      import('../image/manifest.ts'),
      import('../image/collect.ts'),
      import('../image/diff.ts'),
      import('../hotfix/scripts/written.ts'),
    ]);
    // Never through a symlink (R4-19): the image build writes a regular file here.
    if (deps.fs.lstat(file)?.isSymlink)
      throw new AgentError('ANC_IO', `${deps.paths.strip(file)} is a symbolic link; not read (the image build writes a regular file)`);
    const image = parseManifest(deps.fs.readFileNoFollow(file, 'config').toString('utf8'), deps.paths.strip(file));
    const now = await collectManifest(deps, deps.paths, { askVersion: false });
    const d = diffManifests(image, now, hotfixExplainer(deps));
    return {
      manifest: deps.paths.strip(file),
      changed: d.changed.map(({ path, by }) => ({ path, by })),
      removed: d.removed,
      added: d.added,
    };
  } catch (error) {
    notes.push(`image manifest: ${errorMessage(error)}`);
    return undefined;
  }
}

/** The `scripts:` block of the text screen. */
export function renderScripts(s: ScriptsStatus): string[] {
  const ran =
    s.ran === 'baked'
      ? "baked (the image's own provisioning scripts)"
      : `hotfix ${s.label}${s.state === 'applying' ? ' (INTERRUPTED apply: the next provision restores the originals)' : ''}, ${s.replaced.length} replaced${s.restoredAt ? ' (since restored)' : ''}`;
  const out = ['', 'scripts:', `  ran        ${ran}`, ...s.replaced.map((r) => `             ${r}`)];
  if (s.noop) {
    out.push(`  NO-OP      hotfix ${s.noop.label} changed nothing on this image: it is not a fix here`, `             ${s.noop.verdict}`);
  }
  if (s.image) {
    const changes = s.image.changed.length + s.image.removed.length;
    out.push(`  image      ${changes === 0 ? 'no script changed' : `${changes} changed`} since the image was built (${s.image.manifest})`);
    for (const c of s.image.changed) out.push(`             ${c.by === 'edited' ? 'edited by hand' : `replaced by ${c.by}`}: ${c.path}`);
    for (const r of s.image.removed) out.push(`             removed: ${r}`);
  }
  const last = s.lastRestore;
  if (last) {
    const problems = last.problems.length > 0 ? `; PROBLEMS: ${last.problems.join('; ')}` : '';
    out.push(
      `  restored   ${last.restored.length} baked scripts of hotfix ${last.label} at ${last.restoredAt} (${last.reason})${problems}`,
    );
  }
  return out;
}

/** A script payload that changed nothing, logged by the provision that `started` opened (apply.ts). */
export function noopOf(log: LogLine[], started: LogLine | undefined): { label: string; verdict: string } | undefined {
  const line = log.slice(started ? log.lastIndexOf(started) : 0).find((l) => l.msg === 'script hotfix changes nothing on this image');
  return line ? { label: String(line.label ?? 'unknown'), verdict: String(line.noop ?? '') } : undefined;
}

// `hotfix fallback` (run by the launcher with the BAKED binary when the staged hotfix failed by its own
// fault before the provisioning scripts started; docs/hotfix.md "fallback table"): find out which hotfix
// version failed, record it in the quarantine record, remove the staged hotfix binary so no later boot
// prefers it, and emit ONE `HotfixFallback` event whose message says `fallback` and the version. The
// launcher then runs the baked binary's `provision` once. Fail-open: always exit 0, problems are logged
// and carried in the event.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { startAttrs } from '../../platform/build-info.ts';
import { errorMessage } from '../../platform/errors.ts';
import { readPointerFile } from '../../pointer/file.ts';
import { resolveVersion } from '../../pointer/resolve.ts';
import { VERIFY_TIMEOUT_MS } from '../stage.ts';
import { expectedBinaryVersion, STAMPED_VERSION } from '../../pointer/version.ts';
import { recordQuarantine } from '../../pointer/quarantine.ts';
import { restoreForFallback, restoreScripts } from '../scripts/restore.ts';
import type { HotfixPointer } from '../../pointer/document.ts';
import { isRecalled } from '../../pointer/eligibility.ts';
import { currentBootId } from '../../platform/boot.ts';
import { withScriptsLock } from '../../platform/lock.ts';
import { removeStagedRecord, stagedVersionByRecord } from './staged-record.ts';

export interface FallbackOptions {
  /**
   * The hotfix failed provisioning AFTER the scripts started (issue 34): quarantine it, restore the
   * image's scripts, but the launcher does not provision again in this boot (the reference's scripts are
   * not built to run twice), and no later boot provisions (provision.complete): the node is reimaged.
   */
  afterScripts?: { exitCode: number; exitName: string };
}

export async function fallbackToBaked(deps: Deps, reason: string, options: FallbackOptions = {}): Promise<number> {
  const start = deps.clock.now();
  deps.log.info('aks-node-controller hotfix fallback started', startAttrs(deps, 'HotfixFallback'));
  const problems: string[] = [];
  const after = options.afterScripts;
  // Before the scripts: the baked scripts first, under the scripts lock (R4-8); the baked provision must
  // never run over a hotfix's scripts (issue 21). After the scripts started (R4-5): NO restore here. The
  // scripts run in their own process group and may still be running after the hotfix agent died (a kill,
  // an OOM); restoring now would change them under a running provision. The next provision restores the
  // image's scripts before its own start (it takes the lock, and the record is still there).
  let scripts: ReturnType<typeof restoreForFallback>;
  if (!after) {
    try {
      scripts = await withScriptsLock(deps, 'hotfix fallback', () => restoreForFallback(deps));
    } catch (error) {
      problems.push(`restoring scripts: ${errorMessage(error)}`);
    }
  }
  if (scripts && scripts.problems.length > 0) problems.push(`restoring scripts: ${scripts.problems.join('; ')}`);
  const version = await failedHotfixVersion(deps, problems);
  const cause = after
    ? { cause: 'provisionFailed' as const, exitCode: after.exitCode, exitName: after.exitName }
    : { cause: 'beforeScripts' as const };
  quarantineAndUnstage(deps, { version, reason, recordedAt: start.toISOString(), ...cause }, problems);
  const restored = scripts ? `; baked scripts restored: ${scripts.restored.length} of hotfix ${scripts.label}` : '';
  // Only when a script hotfix left its state: then there is something for the next provision to restore.
  const later =
    after && deps.fs.lstat(deps.paths.scriptHotfixState)
      ? "; the image's scripts are restored by the next provision, never under running scripts"
      : '';
  const message = after
    ? `hotfix ${version} failed provisioning with exit code ${after.exitCode} (${after.exitName}) after the provisioning scripts started; version ${version} quarantined on this node${later}; this node does not provision again (the unit runs only while provision.complete is absent, and the scripts never run twice): reimage it, and the new node provisions with the baked agent ${deps.version}`
    : `fallback to the baked agent ${deps.version}: hotfix ${version} ${reason}; version ${version} quarantined on this node${restored}`;
  // Which boot fell back: `status` on a later boot shows it with that boot, not as this one's.
  const boot = currentBootId(deps) ? { bootId: currentBootId(deps) } : {};
  if (after) {
    deps.log.error('provisioning failed under a hotfix; quarantined, reimage the node (it does not provision again)', {
      hotfix: version,
      reason,
      exitCode: after.exitCode,
      exitName: after.exitName,
      problems,
      ...boot,
    });
  } else {
    deps.log.error('hotfix failed before the provisioning scripts started; falling back to the baked agent', {
      hotfix: version,
      reason,
      problems,
      ...boot,
    });
  }
  const suffix = problems.length === 0 ? '' : ` (problems: ${problems.join('; ')})`;
  deps.events.emit({ task: 'HotfixFallback', message: message + suffix, level: 'Error', start, end: deps.clock.now() });
  return 0;
}

/**
 * The pointer's recall (issue 34), run by download-hotfix (the baked binary) before it decides: a staged
 * hotfix whose version the recall list names is given up on this node exactly like a failed one: the
 * image's scripts restored, the version quarantined, the staged binary removed, one `HotfixFallback`
 * event. The version comes from the record written at promotion, never from running the binary (R4-7);
 * when it cannot be told (no record, a binary changed or truncated since), a non-empty recall recalls it.
 * Returns the recalled version, or undefined when the staged hotfix (if any) is not recalled.
 */
export async function recallStaged(deps: Deps, pointer: Pick<HotfixPointer, 'recall'>): Promise<string | undefined> {
  if ((pointer.recall ?? []).length === 0 || !deps.fs.lstat(deps.paths.hotfixBinary)) return undefined;
  const start = deps.clock.now();
  const problems: string[] = [];
  const staged = stagedVersionByRecord(deps);
  if (staged.known && !isRecalled(pointer, staged.version)) return undefined;
  const version = staged.known ? staged.version : (staged.recorded ?? 'unknown');
  const reason = staged.known
    ? 'recalled by the hotfix pointer'
    : `recalled by the hotfix pointer: its version cannot be told (${staged.why}), so it is given up`;
  let scripts: ReturnType<typeof restoreScripts>;
  try {
    scripts = await withScriptsLock(deps, 'recall', () => restoreScripts(deps, 'recall'));
  } catch (error) {
    problems.push(`restoring scripts: ${errorMessage(error)}`);
  }
  if (scripts && scripts.problems.length > 0) problems.push(`restoring scripts: ${scripts.problems.join('; ')}`);
  quarantineAndUnstage(deps, { version, reason, recordedAt: start.toISOString(), cause: 'recalled' }, problems);
  const restored = scripts ? `; baked scripts restored: ${scripts.restored.length} of hotfix ${scripts.label}` : '';
  const suffix = problems.length === 0 ? '' : ` (problems: ${problems.join('; ')})`;
  deps.log.error('staged hotfix recalled by the pointer; the baked agent provisions from now on', { hotfix: version, reason, problems });
  deps.events.emit({
    task: 'HotfixFallback',
    message: `recall: hotfix ${version} ${reason}; version ${version} quarantined on this node${restored}; the baked agent ${deps.version} provisions${suffix}`,
    level: 'Error',
    start,
    end: deps.clock.now(),
  });
  return version;
}

/** Quarantine the version and remove the staged hotfix; what fails is added to `problems`, never thrown. */
function quarantineAndUnstage(deps: Deps, entry: Parameters<typeof recordQuarantine>[1], problems: string[]): void {
  try {
    recordQuarantine(deps, entry);
  } catch (error) {
    problems.push(`recording quarantine: ${errorMessage(error)}`);
  }
  try {
    deps.fs.unlink(deps.paths.hotfixBinary);
  } catch (error) {
    problems.push(`removing ${deps.paths.hotfixBinary}: ${errorMessage(error)}`);
  }
  removeStagedRecord(deps);
}

/** The staged binary's own `version` (bounded), or undefined with the problem noted; never for a recall. */
async function stagedVersion(deps: Deps, problems: string[]): Promise<string | undefined> {
  const binary = deps.paths.hotfixBinary;
  try {
    const run = await deps.proc.run({
      program: binary,
      args: ['version'],
      env: definedEnv(deps.env),
      timeoutMs: VERIFY_TIMEOUT_MS,
      captureLimit: 4096,
    });
    const printed = run.stdout.trim();
    if (run.exitCode === 0 && STAMPED_VERSION.test(printed)) return printed;
    problems.push(`${binary} version did not print a version`);
  } catch (error) {
    problems.push(`${binary} version: ${errorMessage(error)}`);
  }
  return undefined;
}

/** The staged binary's record, else its own `version` (bounded), else the version the pointer resolves for our base. */
async function failedHotfixVersion(deps: Deps, problems: string[]): Promise<string> {
  const recorded = stagedVersionByRecord(deps);
  if (recorded.known) return recorded.version;
  const asked = await stagedVersion(deps, problems);
  if (asked !== undefined) return asked;
  try {
    const { resolved } = resolveVersion(readPointerFile(deps.fs, deps.paths.hotfixPointer), deps.version);
    if (resolved !== '') return expectedBinaryVersion(resolved);
  } catch (error) {
    problems.push(errorMessage(error));
  }
  return 'unknown';
}

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
import { restoreForFallback } from '../scripts/restore.ts';
import { currentBootId } from '../../platform/boot.ts';

export async function fallbackToBaked(deps: Deps, reason: string): Promise<number> {
  const start = deps.clock.now();
  deps.log.info('aks-node-controller hotfix fallback started', startAttrs(deps, 'HotfixFallback'));
  const problems: string[] = [];
  // First the baked scripts: the baked provision must never run over a hotfix's scripts (issue 21).
  const scripts = restoreForFallback(deps);
  if (scripts && scripts.problems.length > 0) problems.push(`restoring scripts: ${scripts.problems.join('; ')}`);
  const version = await failedHotfixVersion(deps, problems);
  try {
    recordQuarantine(deps, { version, reason, recordedAt: start.toISOString() });
  } catch (error) {
    problems.push(`recording quarantine: ${errorMessage(error)}`);
  }
  try {
    deps.fs.unlink(deps.paths.hotfixBinary);
  } catch (error) {
    problems.push(`removing ${deps.paths.hotfixBinary}: ${errorMessage(error)}`);
  }
  const restored = scripts ? `; baked scripts restored: ${scripts.restored.length} of hotfix ${scripts.label}` : '';
  const message = `fallback to the baked agent ${deps.version}: hotfix ${version} ${reason}; version ${version} quarantined on this node${restored}`;
  deps.log.error('hotfix failed before the provisioning scripts started; falling back to the baked agent', {
    hotfix: version,
    reason,
    problems,
    // Which boot fell back: `status` on a later boot shows it with that boot, not as this one's.
    ...(currentBootId(deps) ? { bootId: currentBootId(deps) } : {}),
  });
  const suffix = problems.length === 0 ? '' : ` (problems: ${problems.join('; ')})`;
  deps.events.emit({ task: 'HotfixFallback', message: message + suffix, level: 'Error', start, end: deps.clock.now() });
  return 0;
}

/** The staged binary's own `version` (bounded), else the version the pointer resolves for our base. */
async function failedHotfixVersion(deps: Deps, problems: string[]): Promise<string> {
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
  try {
    const { resolved } = resolveVersion(readPointerFile(deps.fs, deps.paths.hotfixPointer), deps.version);
    if (resolved !== '') return expectedBinaryVersion(resolved);
  } catch (error) {
    problems.push(errorMessage(error));
  }
  return 'unknown';
}

// download-hotfix (spec 6.3-6.5, D4, D5): read the pointer, decide, refuse what this node must not take
// (quarantine record, staged wave), install the package, promote the binary through the health gate.
// Every step throws normally; ONE catch-all in downloadHotfix turns whatever happened into an outcome
// from a closed set, one log line, one `DownloadHotfix` guest-agent event and the exit code (spec 1.4).
import type { Deps } from '../platform/deps.ts';
import { basename, dirname } from 'node:path';
import { definedEnv } from '../platform/deps.ts';
import { ownPeakRssKiB } from '../platform/proc.ts';
import { removeLeftoverTemps, TEMP_PREFIX } from '../platform/temp-files.ts';
import { AgentError, clipEchoes, errorMessage, isAgentError } from '../platform/errors.ts';
import { chooseAptSource, installPlan, packageManagerFor, sandboxEnv } from './install.ts';
import type { Trace } from './repository/fetcher.ts';
import { decideFromPointerFile } from '../pointer/decide.ts';
import type { HotfixDecision, HotfixReason } from '../pointer/resolve.ts';
import { deadlineFrom, retryCommand, type Deadline } from './retry.ts';
import { settleLeftoverGuard } from './switch/baked-guard.ts';
import { expectedBinaryVersion } from '../pointer/version.ts';
import { startAttrs } from '../platform/build-info.ts';

/** Closed outcome set. `exit` null = the failing package manager's exit code (spec 1.4). */
export const DOWNLOAD_OUTCOMES = {
  staged: { exit: 0, failure: false, doc: 'hotfix installed, verified and staged' },
  noHotfix: { exit: 0, failure: false, doc: 'no pointer, or it requests nothing for this base' },
  notTargeted: { exit: 0, failure: false, doc: 'requested version is not a higher patch of our base' },
  invalidVersion: { exit: 0, failure: false, doc: 'requested version unparseable or not YYYYMM.DD.PATCH[-REV]' },
  pointerUnreadable: { exit: 0, failure: false, doc: 'pointer file unreadable or not valid JSON' },
  installFailed: { exit: null, failure: true, doc: 'OS detection, apt source or package manager failed' },
  verifyFailed: { exit: 1, failure: true, doc: 'installed binary missing or prints another version (D5)' },
  integrityFailed: {
    exit: 1,
    failure: true,
    doc: 'repository fast path: signature, digest, freshness, identity or version check failed (final, no fallback)',
  },
  stageFailed: { exit: 1, failure: true, doc: 'copying the binary to the pending name or promoting it failed' },
  healthCheckFailed: { exit: 1, failure: true, doc: 'the new binary hung, crashed or failed its dry-run self-test: not promoted' },
  imageBased: {
    exit: 0,
    failure: false,
    doc: 'self-update is not supported on image-based OS (Azure Linux container or OS Guard image): nothing installed',
  },
  quarantined: { exit: 0, failure: false, doc: 'the requested version failed on this node before (quarantine record)' },
  recalled: { exit: 0, failure: false, doc: "the pointer's recall list names the requested version" },
  notInWave: { exit: 0, failure: false, doc: 'the node is outside the staged wave for its base' },
  awaitingEvidence: {
    exit: 0,
    failure: false,
    doc: 'the schedule reached a gated step that would take the node, and no fresh signed evidence opens it',
  },
  failed: { exit: 0, failure: true, doc: 'unexpected error (fail-open: baked binary stays)' },
} as const;

export type DownloadOutcome = keyof typeof DOWNLOAD_OUTCOMES;

export const DEFAULT_TIMEOUT_SECONDS = 240;

/** `auto`: the repository fast path, else the package manager; the other two force one path. */
export type DownloadMethod = 'auto' | 'repository' | 'package-manager';

export interface DownloadOptions {
  timeoutSeconds: number;
  method?: DownloadMethod;
}

interface Report {
  outcome: DownloadOutcome;
  exitCode: number;
  error?: string;
  /** Why a node-local refusal (quarantined, notInWave) happened. */
  reason?: string;
}

const OUTCOME_FOR_REASON: Record<HotfixReason, DownloadOutcome> = {
  'no-request': 'noHotfix',
  'not-listed': 'noHotfix',
  'base-unknown': 'noHotfix',
  'compare-failed': 'invalidVersion',
  'unsafe-version': 'invalidVersion',
  'not-newer': 'notTargeted',
  upgrade: 'staged',
};

export async function downloadHotfix(deps: Deps, options: DownloadOptions): Promise<number> {
  const start = deps.clock.now();
  const seen: Seen = { target: '', trace: { path: 'none', fetchedBytes: 0, stages: {} } };
  deps.log.info('aks-node-controller hotfix download started', startAttrs(deps, 'DownloadHotfix'));
  removeLeftoverTemps(deps, dirname(deps.paths.hotfixBinary), TEMP_PREFIX.hotfixBinary, start);
  removeLeftoverTemps(deps, deps.paths.containersDir, TEMP_PREFIX.fetchScratch, start);
  // A run killed inside the health gate leaves the whole candidate under the pending name, and perhaps the guard.
  removeLeftoverTemps(deps, dirname(deps.paths.hotfixPending), basename(deps.paths.hotfixPending), start);
  settleLeftoverGuard(deps);
  let report: Report;
  const progress = reportProgress(deps, seen.trace, start);
  try {
    report = await download(deps, options, seen);
  } catch (error) {
    // The one catch-all: expected failures carry their outcome in `step`, anything else is `failed`.
    report = reportFor(error);
  } finally {
    clearInterval(progress);
  }
  finish(deps, report, seen, start);
  return report.exitCode;
}

/** How often a running download says how far it got (log lines, not a bar: the journal keeps them). */
export const PROGRESS_INTERVAL_MS = 10_000;

/** The heartbeat's phase: the path once decided, and before and during it what is being fetched now (InRelease). */
export function heartbeatPhase(trace: Trace): string {
  const now = trace.fetching ? `fetching ${trace.fetching}` : undefined;
  if (trace.path === 'none') return now ? `repository: ${now}` : 'preparing';
  return `via ${trace.path}${now ? `: ${now}` : ''}`;
}

function reportProgress(deps: Deps, trace: Trace, start: Date): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    const seconds = Math.round((deps.clock.now().getTime() - start.getTime()) / 1000);
    deps.log.info('hotfix download in progress', {
      path: trace.path,
      fetchedBytes: trace.fetchedBytes,
      seconds,
      ...(trace.fetching ? { fetching: trace.fetching } : {}),
    });
    const how = heartbeatPhase(trace);
    deps.log.say(`download-hotfix: still working (${how}): ${trace.fetchedBytes} bytes fetched so far, ${seconds} s`);
  }, PROGRESS_INTERVAL_MS);
  timer.unref?.();
  return timer;
}

interface Seen {
  target: string;
  trace: Trace;
}

async function download(deps: Deps, options: DownloadOptions, seen: Seen): Promise<Report> {
  const deadline = deadlineFrom(() => deps.clock.now(), options.timeoutSeconds);
  const { resolve: decision, refusal, pointer } = decideFromPointerFile(deps, deps.paths.hotfixPointer, deps.version);
  // Spec 11.2 (D19): the image's nodecustomdata.yml first, when scripts_version is a higher patch; fail-open.
  await (await import('./node-custom-data.ts')).applyNodeCustomDataStep(deps, pointer);
  if ((pointer.recall ?? []).length > 0) {
    const { recallStaged } = await import('./switch/fallback.ts');
    await recallStaged(deps, pointer);
  }
  seen.target = decision.resolved;
  logDecision(deps, decision);
  if (!decision.upgrade) return { outcome: OUTCOME_FOR_REASON[decision.reason], exitCode: 0 };
  if (refusal) {
    deps.log.info('hotfix not taken by this node, skipping download', {
      target: decision.resolved,
      reason: refusal.outcome,
      detail: refusal.detail,
    });
    return { outcome: refusal.outcome, exitCode: 0, reason: refusal.detail };
  }
  const method = options.method ?? 'auto';
  const { packageBinary, hotfixBinary } = deps.paths;
  // The download machinery (repository, delta, health gate; node:crypto, node:zlib) loads only when a
  // hotfix is to be taken: every node boot runs this command, almost always with nothing to do.
  const { tryRepositoryFastPath } = await import('./repository/fast-path.ts');
  const { promoteWithHealthGate } = await import('./switch/gate.ts');
  const fast = method === 'package-manager' ? undefined : await tryRepositoryFastPath(deps, decision.resolved, deadline, seen.trace);
  if (fast && !fast.staged) {
    if (method === 'repository') throw new AgentError('ANC_HOTFIX', fast.reason, { step: 'installFailed' });
    deps.log.warn('repository fast path unavailable, falling back to the package manager', { reason: fast.reason });
  }
  if (!fast?.staged) {
    const timed = stageTimer(deps, seen.trace);
    await timed('installMs', () => installHotfix(deps, decision.resolved, deadline, seen.trace));
    await timed('verifyMs', () => promoteWithHealthGate(deps, packageBinary, expectedBinaryVersion(decision.resolved), deadline));
  }
  deps.log.info('downloaded ANC hotfix', { target: decision.resolved, path: hotfixBinary });
  return { outcome: 'staged', exitCode: 0 };
}

function stageTimer(deps: Deps, trace: Trace) {
  return async (stage: string, step: () => unknown): Promise<void> => {
    const started = deps.clock.now().getTime();
    try {
      await step();
    } finally {
      trace.stages[stage] = deps.clock.now().getTime() - started;
    }
  };
}

async function installHotfix(deps: Deps, version: string, deadline: Deadline, trace: Trace): Promise<void> {
  const wrap = (message: string, exitCode = 1, cause?: unknown) =>
    new AgentError('ANC_HOTFIX', `install hotfix version ${version}: ${message}`, { exitCode, step: 'installFailed', cause });
  let osRelease: string;
  try {
    osRelease = deps.fs.readText(deps.paths.osRelease, 'osRelease');
  } catch (error) {
    throw wrap(`reading ${deps.paths.strip(deps.paths.osRelease)}: ${errorMessage(error)}`, 1, error);
  }
  const hasDnf = deps.proc.which('dnf', deps.env.PATH) !== undefined;
  const pm = guard(() => packageManagerFor(osRelease, hasDnf), wrap);
  trace.path = pm;
  const source = pm === 'apt-get' ? guard(() => chooseAptSource(deps.paths.aptSourcesDir, (p) => deps.fs.stat(p) !== undefined), wrap) : '';
  const extra = sandboxEnv(pm, deps.paths, deps.env.APT_CONFIG);
  if (extra.APT_CONFIG !== undefined && !deps.fs.exists(extra.APT_CONFIG)) {
    throw wrap(`sandboxed apt (AKS_NODE_ROOT=${deps.paths.root}) needs an APT_CONFIG file; ${extra.APT_CONFIG} does not exist`);
  }
  const env = { ...definedEnv(deps.env), ...extra };
  for (const command of installPlan(pm, version, source, deps.paths)) {
    const failure = await retryCommand(deps, command, env, deadline);
    if (failure) throw wrap(command.step ? `${command.step}: ${failure.message}` : failure.message, failure.exitCode);
  }
}

/** Re-labels the install step's own AgentErrors with the `install hotfix version <v>:` prefix. */
function guard<T>(step: () => T, wrap: (message: string) => AgentError): T {
  try {
    return step();
  } catch (error) {
    if (!isAgentError(error) || error.step !== 'installFailed') throw error;
    throw wrap(error.message);
  }
}

function logDecision(deps: Deps, d: HotfixDecision): void {
  const attrs = { current: d.current, target: d.resolved };
  switch (d.reason) {
    case 'base-unknown':
      deps.log.warn('cannot derive hotfix base from current version, skipping hotfix', { version: d.current, error: d.detail });
      deps.log.info('hotfix config does not request a version for this base, skipping download', { current: d.current });
      return;
    case 'no-request':
    case 'not-listed':
      deps.log.info('hotfix config does not request a version for this base, skipping download', { current: d.current, base: d.base });
      return;
    case 'compare-failed':
      deps.log.warn('failed to compare versions, skipping hotfix download', { ...attrs, error: d.detail });
      return;
    case 'unsafe-version':
      deps.log.warn('hotfix version is not YYYYMM.DD.PATCH[-REV], skipping hotfix download', attrs);
      return;
    case 'not-newer':
      deps.log.info('ANC version not targeted by hotfix, skipping download', attrs);
      return;
    case 'upgrade':
      deps.log.info('downloading ANC hotfix', attrs);
  }
}

function reportFor(error: unknown): Report {
  const step = isAgentError(error) ? error.step : undefined;
  if (step !== undefined && Object.hasOwn(DOWNLOAD_OUTCOMES, step)) {
    const outcome = step as DownloadOutcome;
    const exit = DOWNLOAD_OUTCOMES[outcome].exit;
    return { outcome, exitCode: exit ?? (error as AgentError).exitCode, error: clipEchoes(errorMessage(error)) };
  }
  return { outcome: 'failed', exitCode: 0, error: `unexpected error: ${errorMessage(error)}` };
}

function finish(deps: Deps, report: Report, seen: Seen, start: Date): void {
  const { outcome, error } = report;
  const { target, trace } = seen;
  // The same path/bytes/stage tokens in the event message and as attributes of the final log line.
  const telemetry: Record<string, string | number> = { path: trace.path, fetchedBytes: trace.fetchedBytes, ...trace.stages };
  if (trace.packageBytes !== undefined) telemetry.packageBytes = trace.packageBytes;
  if (outcome === 'pointerUnreadable') {
    deps.log.warn('failed to read hotfix config, skipping hotfix download', { path: deps.paths.hotfixPointer, error });
  }
  // The agent's own peak memory (its children not counted) goes to the log only, not to the event.
  const peakRssKiB = ownPeakRssKiB();
  if (DOWNLOAD_OUTCOMES[outcome].failure) {
    deps.log.error('aks-node-controller hotfix download failed', { outcome, ...telemetry, peakRssKiB, error });
  } else {
    deps.log.info('aks-node-controller hotfix download finished', { outcome, ...telemetry, peakRssKiB });
  }
  const parts = [`outcome=${outcome}`, `current=${deps.version}`, `target=${target}`];
  if (report.reason !== undefined) parts.push(`reason=${report.reason}`);
  for (const [key, value] of Object.entries(telemetry)) parts.push(`${key}=${value}`);
  if (error !== undefined) parts.push(`error=${error}`);
  const detail = error ?? report.reason;
  const after = DOWNLOAD_OUTCOMES[outcome].failure ? '; the baked agent stays' : outcome === 'staged' ? '; it runs from the next boot' : '';
  deps.log.say(
    `download-hotfix: ${outcome}${target ? ` (${target})` : ''}: ${DOWNLOAD_OUTCOMES[outcome].doc}${detail ? `: ${detail}` : ''}${after}`,
  );
  deps.events.emit({
    task: 'DownloadHotfix',
    message: parts.join(' '),
    level: DOWNLOAD_OUTCOMES[outcome].failure ? 'Error' : 'Informational',
    start,
    end: deps.clock.now(),
  });
}

// Gathers what `status` shows from the node's files: provision.json + provision.complete, the events,
// the agent log, the hotfix pointer and the node configuration. Every source may be missing, partial
// or unreadable (a boot still running, a non-root user): that becomes a note, never an error.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { InputKind } from '../platform/input.ts';
import { readConfigurationFile } from '../config/read.ts';
import type { NamedExitCode } from './exit-codes.ts';
import { agoText, type BootCheck, bootChecks, notStartedSummary, spanText } from './checks.ts';
import { currentBootId, type Liveness, liveness } from '../platform/boot.ts';
import { stagedHotfixVerdict } from '../pointer/staged.ts';
import { noopOf, type ScriptsStatus, scriptsStatus } from './scripts.ts';
import { failedText, failedUnderHotfix, REBOOT, recallText, untellableText } from './hotfix-headline.ts';
import { nodeCustomDataOf, type NodeCustomDataStatus } from './node-custom-data.ts';
import { buildTimeline, type RawEvent, type TimelineRow } from './timeline.ts';
import { type BootGroup, groupByBoot, lineInstant, type LogLine, utcText } from './boots.ts';
import { type ProvisionFile, parseProvisionJson } from './provision-json.ts';
import { eventWriter, startLines } from './writers.ts';

/**
 * `interrupted`: provisioning started and its process is gone without a result (killed, OOM, power loss,
 * or an earlier boot); `stalled`: it still runs (or cannot be told) beyond the extension's 15 minutes.
 */
export type BootState = 'succeeded' | 'failed' | 'in-progress' | 'stalled' | 'interrupted' | 'not-started';

/** How long the CustomScript extension waits for provisioning (`provision-wait --timeout 900`). */
export const EXTENSION_BUDGET_MS = 15 * 60_000;

export interface StatusReport {
  state: BootState;
  /** One line for people. */
  summary: string;
  /** The sandbox root the files were read under ('' on a node). */
  root: string;
  provision: ProvisionFile;
  failingStep: { task: string; message: string; exitCode: NamedExitCode | null } | null;
  /** Which agent binary ran provision, from its start log line (or the Provision row's writer, status/writers.ts). */
  binary: { kind: 'baked' | 'hotfix' | 'unknown'; version: string } | null;
  hotfix: {
    pointer: 'present' | 'absent' | 'unreadable';
    /** The one node decision (pointer/decide.ts) for the baked version, as download-hotfix and `hotfix explain` take it. */
    decision: { current: string; resolved: string; upgrade: boolean; reason: string; detail?: string } | null;
    staged: boolean;
    /** The launcher's verdict on the staged binary (pointer/staged.ts): null when none is staged. */
    stagedAccepted: boolean | null;
    /** Why the launcher refuses the staged binary, when it does. */
    stagedRefusal: string | null;
    checkHotfix: string | null;
    downloadHotfix: string | null;
    nodeCustomData: NodeCustomDataStatus | null; // download-hotfix's scripts_version step (spec 11.2)
  };
  /** What the boot needs before provisioning (node configuration, features file, hostname, scripts started). */
  checks: BootCheck[];
  /** The hotfix that failed before the scripts, when the launcher fell back to the baked agent this boot. */
  fallback: { hotfix: string; reason: string } | null;
  /** Which provisioning scripts ran: baked, or a script hotfix's (and the last restore). */
  scripts: ScriptsStatus;
  timeline: TimelineRow[];
  /** The timeline by boot, the current boot first (one group without boot ids in the log). */
  boots: BootGroup[];
  /** The provisioning run the verdict is about: when it started, its process and whether that lives. */
  run: { startedAt: string | null; pid: number | null; bootId: string | null; liveness: Liveness; elapsedMs: number | null } | null;
  /** The last report on the Node object (report-status's ReportStatus event), or null when none ran. */
  report: { outcome: 'ok' | 'error' | 'running'; message: string; start: string } | null;
  configWarnings: string[];
  notes: string[];
  /** Where to read more. */
  files: { agentLog: string; provisionLog: string; events: string; provisionJson: string };
}

export type { BootGroup } from './boots.ts';
export { utcText } from './boots.ts';
const LOG_TAIL_BYTES = 4 * 1024 * 1024;

function readOptional(deps: Deps, path: string, kind: InputKind, notes: string[]): string | undefined {
  try {
    return deps.fs.exists(path) ? deps.fs.readText(path, kind) : undefined;
  } catch (error) {
    notes.push(`cannot read ${deps.paths.strip(path)}: ${errorMessage(error)}`);
    return undefined;
  }
}

function readEvents(deps: Deps, notes: string[]): RawEvent[] {
  const dir = deps.paths.eventsDir;
  let names: string[];
  try {
    names = deps.fs.exists(dir) ? deps.fs.readdir(dir).filter((n) => n.endsWith('.json')) : [];
  } catch (error) {
    notes.push(`cannot list ${deps.paths.strip(dir)}: ${errorMessage(error)}`);
    return [];
  }
  const events: RawEvent[] = [];
  for (const file of names) {
    const text = readOptional(deps, `${dir}/${file}`, 'status', notes);
    if (text === undefined) continue;
    try {
      events.push({ ...(JSON.parse(text) as object), file });
    } catch {
      notes.push(`event ${file} is not JSON (written while the node stopped?); skipped`);
    }
  }
  return events;
}

function readLog(deps: Deps, notes: string[]): LogLine[] {
  let tail: string;
  try {
    if (!deps.fs.exists(deps.paths.logFile)) return [];
    // A log of any size: only its end says which binary ran last.
    const read = deps.fs.readTail(deps.paths.logFile, LOG_TAIL_BYTES);
    tail = read.data.toString('utf8');
    // Started mid-line (and perhaps mid-character): the first line is not whole.
    if (read.truncated) tail = tail.slice(tail.indexOf('\n') + 1);
  } catch (error) {
    notes.push(`cannot read ${deps.paths.strip(deps.paths.logFile)}: ${errorMessage(error)}`);
    return [];
  }
  return tail.split('\n').flatMap((line) => {
    try {
      return line.startsWith('{') ? [JSON.parse(line) as LogLine] : [];
    } catch {
      return [];
    }
  });
}

const last = <T>(items: T[], match: (item: T) => boolean): T | undefined => items.filter(match).pop();

/** Agent tasks that observe or record rather than provision. */
const OBSERVERS = ['ProvisionWait', 'HotfixFallback', 'CheckHotfix', 'DownloadHotfix', 'ReportStatus'];

function reportOf(timeline: TimelineRow[]): StatusReport['report'] {
  const row = last(timeline, (r) => r.agent && r.task === 'ReportStatus');
  return row ? { outcome: row.outcome, message: row.message, start: row.start } : null;
}

async function hotfixDecision(
  deps: Deps,
  bakedVersion: string | undefined,
  notes: string[],
): Promise<StatusReport['hotfix']['decision'] | 'unreadable' | null> {
  if (!deps.fs.exists(deps.paths.hotfixPointer)) return null;
  try {
    // The one decision download-hotfix acts on: fleet-wide rules, then quarantine and the staged wave.
    const { decideFromPointerFile } = await import('../pointer/decide.ts');
    const decision = decideFromPointerFile(deps, deps.paths.hotfixPointer, bakedVersion ?? deps.version);
    const d = decision.resolve;
    const detail = decision.reason === 'imageBased' && decision.detail ? { detail: decision.detail } : {}; // spec 11.3
    return { current: d.current, resolved: d.resolved, upgrade: decision.take, reason: decision.reason, ...detail };
  } catch (error) {
    notes.push(`hotfix pointer: ${errorMessage(error)}`);
    return 'unreadable';
  }
}

async function configWarnings(deps: Deps, notes: string[]): Promise<string[]> {
  let text: string;
  try {
    if (!deps.fs.exists(deps.paths.nodeConfig)) return [];
    text = readConfigurationFile(deps.fs, deps.paths.nodeConfig, deps.paths.strip(deps.paths.nodeConfig));
  } catch (error) {
    notes.push(`cannot read ${deps.paths.strip(deps.paths.nodeConfig)}: ${errorMessage(error)}`);
    return [];
  }
  const { loadConfiguration } = await import('../config/load.ts');
  return loadConfiguration(text).issues.map((i) => `${i.severity}: ${i.path}: ${i.message}`);
}

export async function collectStatus(deps: Deps): Promise<StatusReport> {
  const notes: string[] = [];
  const complete = deps.fs.exists(deps.paths.provisionComplete);
  const provision = parseProvisionJson(readOptional(deps, deps.paths.provisionJson, 'status', notes), complete, notes);
  const events = readEvents(deps, notes);
  const log = readLog(deps, notes);
  const starts = startLines(log);
  const timeline = buildTimeline(events, (task, file) => eventWriter(starts, task, file));

  const started = last(log, (l) => l.msg === 'aks-node-controller started' && l.task === 'Provision');
  const provisionEvent = last(timeline, (r) => r.task === 'Provision');
  const binary: StatusReport['binary'] = started
    ? {
        kind: started.binary === 'hotfix' || started.binary === 'baked' ? started.binary : 'unknown',
        version: String(started.version ?? 'unknown'),
      }
    : provisionEvent?.version
      ? { kind: provisionEvent.binary ?? 'unknown', version: provisionEvent.version }
      : null;
  const bakedStart = last(
    log,
    (l) => typeof l.msg === 'string' && /check-hotfix started|hotfix download started/.test(l.msg) && l.binary === 'baked',
  );
  const decision = await hotfixDecision(deps, bakedStart ? String(bakedStart.version) : undefined, notes);
  const check = last(log, (l) => typeof l.msg === 'string' && l.msg.startsWith('check-hotfix completed'));
  const download = last(log, (l) => typeof l.msg === 'string' && /^aks-node-controller hotfix download (finished|failed)/.test(l.msg));
  const exitCode = provision?.exitCode ?? null;
  const failed = provision !== null && exitCode !== null && exitCode.code !== 0 && (complete || exitCode.code === 240);
  const boot = bootChecks(deps);
  const thisBoot = currentBootId(deps);
  const boots = groupByBoot(timeline, log, thisBoot);
  // This boot's fallback only: an earlier boot's is shown with that boot.
  const fallback = boots.find((g) => g.current)?.fallback ?? null;
  // Rows that only observe or report (provision-wait, the fallback record) are never the step that failed or runs.
  const steps = timeline.filter((r) => !(r.agent && OBSERVERS.includes(r.task)));
  const provisionStarted = started !== undefined || provision !== null || boot.scriptsStarted || steps.some((r) => r.task === 'Provision');
  const settled = failed || (complete && exitCode?.code === 0);
  const running = last(steps, (r) => r.outcome === 'running');
  const now = deps.clock.now().getTime();
  // The run without a result: when it started (its start line, else its running row) and whether it lives.
  const runAt = lineInstant(started) ?? running?.at ?? null;
  const alive: Liveness = started ? liveness(deps, started as { bootId?: string; pid?: string; pidStart?: string }) : 'unknown';
  const elapsedMs = runAt === null ? null : Math.max(0, now - runAt);
  const unsettled = !settled && (complete || provisionStarted);
  const state: BootState = failed
    ? 'failed'
    : complete && exitCode?.code === 0
      ? 'succeeded'
      : !unsettled
        ? 'not-started'
        : complete
          ? 'in-progress'
          : alive === 'earlier-boot' || alive === 'gone'
            ? 'interrupted'
            : elapsedMs !== null && elapsedMs > EXTENSION_BUDGET_MS
              ? 'stalled'
              : 'in-progress';
  if (complete && !provision) notes.push('provision.complete exists but provision.json does not');
  // The scripts' last step says more than the agent's own "exited with error" row.
  const failingRow = failed
    ? (last(steps, (r) => !r.agent && r.outcome === 'error') ?? last(steps, (r) => !r.agent) ?? last(steps, (r) => r.outcome === 'error'))
    : undefined;
  const onBaked = fallback ? ` on the baked agent: hotfix ${fallback.hotfix} failed before the scripts (quarantined)` : '';
  const pid = started?.pid === undefined ? null : Number(started.pid);
  const startedText = runAt === null ? 'an unknown time' : `${utcText(runAt)} (${agoText(runAt, deps.clock.now())})`;
  const lastStep = last(steps, (r) => !r.agent);
  const reached = lastStep ? `; the last step it reached: ${lastStep.task}` : '';
  const scripts = await scriptsStatus(deps, notes, noopOf(log, started), lineInstant(started));
  const staged = stagedHotfixVerdict(deps);
  const summary =
    state === 'failed'
      ? failedText(exitCode!, failedUnderHotfix(binary, scripts, lineInstant(started)), fallback ? ` (ran${onBaked})` : '')
      : state === 'succeeded'
        ? `provisioning succeeded${onBaked}${provision?.execDuration ? ` in ${provision.execDuration} s` : ''}${recallText(binary, scripts, decision === 'unreadable' ? null : decision, staged.staged && staged.accepted)}`
        : state === 'interrupted'
          ? alive === 'earlier-boot'
            ? `provisioning started at ${startedText} in an earlier boot and never finished${reached}; this boot has not started it again (journalctl -u aks-node-controller -b)${REBOOT}`
            : `provisioning started at ${startedText}${started?.bootId && thisBoot ? ' in this boot' : ''} and never finished: its process (pid ${pid}) is gone without writing a result (killed? journalctl -k | grep -i oom)${reached}${REBOOT}`
          : state === 'stalled'
            ? `provisioning ${running ? `step ${running.task} ` : ''}started at ${startedText}, running ${spanText(elapsedMs!)}, beyond the ${EXTENSION_BUDGET_MS / 60_000} min the extension waits${alive === 'alive' ? ` (pid ${pid} still runs)` : ' (whether its process still runs cannot be told: no boot id to compare)'}`
            : state === 'in-progress' && alive === 'unknown' && !complete && started
              ? untellableText(startedText, running?.task, pid)
              : state === 'in-progress'
                ? `provisioning in progress${running ? ` (running: ${running.task} since ${running.start}, ${agoText(running.at, deps.clock.now())})` : ''}`
                : notStartedSummary(boot, timeline.length > 0 || log.length > 0);
  return {
    state,
    summary,
    root: deps.paths.root,
    provision,
    failingStep: failed ? { task: failingRow?.task ?? 'unknown', message: failingRow?.message || provision!.error, exitCode } : null,
    binary,
    checks: boot.checks,
    fallback,
    hotfix: {
      pointer: decision === 'unreadable' ? 'unreadable' : decision ? 'present' : 'absent',
      decision: decision === 'unreadable' ? null : decision,
      staged: staged.staged,
      stagedAccepted: staged.staged ? staged.accepted : null,
      stagedRefusal: staged.staged && !staged.accepted ? staged.reason : null,
      checkHotfix: check ? String(check.outcome ?? check.msg) : null,
      downloadHotfix: download ? `${String(download.outcome ?? '')}${download.error ? `: ${String(download.error)}` : ''}` || null : null,
      nodeCustomData: nodeCustomDataOf(log),
    },
    scripts,
    timeline,
    boots,
    run: unsettled
      ? {
          startedAt: runAt === null ? null : new Date(runAt).toISOString(),
          pid,
          bootId: started?.bootId ? String(started.bootId) : null,
          liveness: alive,
          elapsedMs,
        }
      : null,
    report: reportOf(timeline),
    configWarnings: await configWarnings(deps, notes),
    notes,
    files: {
      agentLog: deps.paths.logFile,
      provisionLog: deps.paths.clusterProvisionLog,
      events: deps.paths.eventsDir,
      provisionJson: deps.paths.provisionJson,
    },
  };
}

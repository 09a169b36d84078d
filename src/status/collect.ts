// Gathers what `status` shows from the node's files: provision.json + provision.complete, the events,
// the agent log, the hotfix pointer and the node configuration. Every source may be missing, partial
// or unreadable (a boot still running, a non-root user): that becomes a note, never an error.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { InputKind } from '../platform/input.ts';
import { goLookupField, parseGoJson } from '../platform/json.ts';
import { decodeProvisionJson } from '../provision/status.ts';
import { readConfigurationFile } from '../config/read.ts';
import { type NamedExitCode, nameExitCode } from './exit-codes.ts';
import { agoText, type BootCheck, bootChecks } from './checks.ts';
import { type ScriptsStatus, scriptsStatus } from './scripts.ts';
import { buildTimeline, type RawEvent, type TimelineRow } from './timeline.ts';
import { eventWriter, startLines } from './writers.ts';

export type BootState = 'succeeded' | 'failed' | 'in-progress' | 'not-started';

export interface StatusReport {
  state: BootState;
  /** One line for people. */
  summary: string;
  /** The sandbox root the files were read under ('' on a node). */
  root: string;
  provision: { exitCode: NamedExitCode | null; error: string; output: string; execDuration: string; complete: boolean } | null;
  failingStep: { task: string; message: string; exitCode: NamedExitCode | null } | null;
  /** Which agent binary ran provision, from its start log line (or the Provision row's writer, status/writers.ts). */
  binary: { kind: 'baked' | 'hotfix' | 'unknown'; version: string } | null;
  hotfix: {
    pointer: 'present' | 'absent' | 'unreadable';
    /** The one node decision (pointer/decide.ts) for the baked version, as download-hotfix and `hotfix explain` take it. */
    decision: { current: string; resolved: string; upgrade: boolean; reason: string } | null;
    staged: boolean;
    checkHotfix: string | null;
    downloadHotfix: string | null;
  };
  /** What the boot needs before provisioning (node configuration, features file, hostname, scripts started). */
  checks: BootCheck[];
  /** The hotfix that failed before the scripts, when the launcher fell back to the baked agent this boot. */
  fallback: { hotfix: string; reason: string } | null;
  /** Which provisioning scripts ran: baked, or a script hotfix's (and the last restore). */
  scripts: ScriptsStatus;
  timeline: TimelineRow[];
  configWarnings: string[];
  notes: string[];
  /** Where to read more. */
  files: { agentLog: string; provisionLog: string; events: string; provisionJson: string };
}

type LogLine = Record<string, unknown> & { msg?: string };
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
const OBSERVERS = ['ProvisionWait', 'HotfixFallback', 'CheckHotfix', 'DownloadHotfix'];

/** The baked agent's fallback record of this boot (launcher: hotfix failed before the scripts). */
function fallbackOf(log: LogLine[]): StatusReport['fallback'] {
  const line = last(log, (l) => typeof l.msg === 'string' && l.msg.startsWith('hotfix failed before the provisioning scripts started'));
  return line ? { hotfix: String(line.hotfix ?? 'unknown'), reason: String(line.reason ?? '') } : null;
}

/** Why nothing provisioned yet, from the first missing prerequisite. */
function notStartedSummary(boot: ReturnType<typeof bootChecks>, anything: boolean): string {
  if (!boot.configArrived) return 'provisioning has not started: the custom data never arrived (no node configuration)';
  if (!boot.hostnameMatches) return `provisioning has not started: the launcher waits for the hostname (${boot.hostnameDetail})`;
  return anything
    ? 'provisioning has not started: the configuration is there but the agent did not run provision (journalctl -u aks-node-controller)'
    : 'provisioning has not started (no status files, events or log)';
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
    return { current: d.current, resolved: d.resolved, upgrade: decision.take, reason: decision.reason };
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

/** provision.json through the one decoder provision-wait uses, so status reads what the extension will. */
function parseProvisionJson(text: string | undefined, complete: boolean, notes: string[]): StatusReport['provision'] {
  if (text === undefined) return null;
  const decoded = decodeProvisionJson(text);
  if ('error' in decoded) {
    notes.push(`provision.json is not JSON provision-wait can read (still being written?): ${decoded.error}`);
    return { exitCode: null, error: '', output: '', execDuration: '', complete };
  }
  const { ExitCode, Error: error, Output: output } = decoded.result;
  // ExecDuration is the scripts' own field (not in the reference struct): shown when it is a string.
  const doc = parseGoJson(text) as Record<string, unknown> | null;
  const execDuration = doc === null ? undefined : goLookupField(doc, 'ExecDuration');
  return {
    exitCode: ExitCode === '' ? null : (nameExitCode(ExitCode) ?? null),
    error,
    output: output.length > 2000 ? `...${output.slice(-2000)}` : output,
    execDuration: typeof execDuration === 'string' ? execDuration : '',
    complete,
  };
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
  const fallback = fallbackOf(log);
  // Rows that only observe or report (provision-wait, the fallback record) are never the step that failed or runs.
  const steps = timeline.filter((r) => !(r.agent && OBSERVERS.includes(r.task)));
  const provisionStarted = started !== undefined || provision !== null || boot.scriptsStarted || steps.some((r) => r.task === 'Provision');
  const state: BootState = failed
    ? 'failed'
    : complete && exitCode?.code === 0
      ? 'succeeded'
      : complete || provisionStarted
        ? 'in-progress'
        : 'not-started';
  if (complete && !provision) notes.push('provision.complete exists but provision.json does not');
  // The scripts' last step says more than the agent's own "exited with error" row.
  const failingRow = failed
    ? (last(steps, (r) => !r.agent && r.outcome === 'error') ?? last(steps, (r) => !r.agent) ?? last(steps, (r) => r.outcome === 'error'))
    : undefined;
  const running = last(steps, (r) => r.outcome === 'running');
  const onBaked = fallback ? ` on the baked agent: hotfix ${fallback.hotfix} failed before the scripts (quarantined)` : '';
  const summary =
    state === 'failed'
      ? `provisioning FAILED with exit code ${exitCode!.code} ${exitCode!.name}: ${exitCode!.meaning}${fallback ? ` (ran${onBaked})` : ''}`
      : state === 'succeeded'
        ? `provisioning succeeded${onBaked}${provision?.execDuration ? ` in ${provision.execDuration} s` : ''}`
        : state === 'in-progress'
          ? `provisioning in progress${running ? ` (running: ${running.task} since ${running.start}, ${agoText(running.start, deps.clock.now())})` : ''}`
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
      staged: deps.fs.exists(deps.paths.hotfixBinary),
      checkHotfix: check ? String(check.outcome ?? check.msg) : null,
      downloadHotfix: download ? `${String(download.outcome ?? '')}${download.error ? `: ${String(download.error)}` : ''}` || null : null,
    },
    scripts: await scriptsStatus(deps, notes),
    timeline,
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

// `report-status`: after provisioning, write this boot's report on the node's own Node object with the
// kubelet's own credentials (its kubeconfig and client certificate: under NodeRestriction they may patch
// only this node, and only labels outside the reserved domains). Fail-open and bounded: it waits at most
// ANC_REPORT_WAIT_SECONDS (default 600) for kubelet's kubeconfig and the Node object, each request at
// most ANC_REPORT_REQUEST_TIMEOUT_MS (default 10 s); it never changes provisioning, logs why it could not
// report, emits its own ReportStatus event and always exits 0.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { parseOsReleaseField } from '../platform/os-release.ts';
import {
  buildReport,
  renderReport,
  STATE_LABEL,
  STATUS_ANNOTATION,
  stateLabelValue,
  VERSION_LABEL,
  versionLabelValue,
  type NodeReport,
} from './report.ts';

const TASK = 'ReportStatus';

export interface ReportBounds {
  waitMs: number;
  requestMs: number;
  pollMs: number;
}

/** The bounds from the environment (tests shorten them); anything unusable is the default. */
export function reportBounds(env: Readonly<Record<string, string | undefined>>): ReportBounds {
  const number = (name: string, fallback: number, scale: number) => {
    const text = env[name];
    return text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) * scale : fallback;
  };
  const waitMs = number('ANC_REPORT_WAIT_SECONDS', 600_000, 1000);
  return {
    waitMs,
    requestMs: Math.max(1, number('ANC_REPORT_REQUEST_TIMEOUT_MS', 10_000, 1)),
    pollMs: Math.max(50, number('ANC_REPORT_POLL_MS', 5_000, 1)),
  };
}

/**
 * The node name as kubelet registers it (R4-10): /etc/default/kubelet read as systemd reads an
 * EnvironmentFile (KEY=VALUE lines, comments and blank lines skipped, quotes removed, the last assignment
 * wins), then the last --hostname-override in KUBELET_FLAGS, as kubelet's flag parser keeps the last one;
 * else the hostname. Lowercased.
 */
export function nodeName(deps: Pick<Deps, 'fs' | 'paths' | 'hostname'>): { name: string; source: string } {
  try {
    if (deps.fs.exists(deps.paths.kubeletDefaults)) {
      const name = hostnameOverride(deps.fs.readText(deps.paths.kubeletDefaults, 'config'));
      if (name !== undefined) return { name: name.toLowerCase(), source: '--hostname-override' };
    }
  } catch {
    // kubelet then uses the hostname too
  }
  return { name: deps.hostname().trim().toLowerCase(), source: 'hostname' };
}

/** The last --hostname-override in the last KUBELET_FLAGS assignment of an environment file's text. */
export function hostnameOverride(text: string): string | undefined {
  let flags: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (m?.[1] !== 'KUBELET_FLAGS') continue;
    let value = m[2]!.trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) value = value.slice(1, -1);
    flags = value;
  }
  if (flags === undefined) return undefined;
  const words = flags.split(/\s+/).filter(Boolean);
  let found: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith('--hostname-override=')) found = w.slice('--hostname-override='.length);
    else if (w === '--hostname-override' && i + 1 < words.length) found = words[++i];
  }
  return found === undefined || found.trim() === '' ? undefined : found.trim();
}

function readTrimmed(deps: Pick<Deps, 'fs'>, path: string): string {
  try {
    return deps.fs.exists(path) ? deps.fs.readText(path, 'state').trim() : '';
  } catch {
    return '';
  }
}

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** `status` plus the facts the report adds, as the report object. */
export async function makeReport(deps: Deps): Promise<NodeReport> {
  const { collectStatus } = await import('../status/collect.ts');
  const status = await collectStatus(deps);
  const osRelease = readTrimmed(deps, deps.paths.osRelease);
  const platform = `${parseOsReleaseField(osRelease, 'ID') ?? 'unknown'}-${parseOsReleaseField(osRelease, 'VERSION_ID') ?? ''}/${ARCH[process.arch] ?? process.arch}`;
  const { bakedAgentVersion } = await import('../pointer/explain-context.ts');
  const baked = (await bakedAgentVersion(deps)).version;
  const { hotfixBaseFromVersion, expectedBinaryVersion } = await import('../pointer/version.ts');
  const base = hotfixBaseFromVersion(baked);
  let wave: NodeReport['hotfix']['wave'] = null;
  let quarantine: NodeReport['hotfix']['quarantine'] = null;
  try {
    const { decideFromPointerFile } = await import('../pointer/decide.ts');
    if (deps.fs.exists(deps.paths.hotfixPointer)) {
      const d = decideFromPointerFile(deps, deps.paths.hotfixPointer, baked);
      const w = d.eligibility.wave;
      wave = { percent: w.percent, ...(w.joinsAt === undefined ? {} : { joinsAt: w.joinsAt }) };
    }
  } catch {
    // an unreadable pointer: status has the note; the report says no wave
  }
  try {
    const { readQuarantine } = await import('../pointer/quarantine.ts');
    const requested = status.hotfix.decision?.resolved ?? '';
    const entries = readQuarantine(deps);
    const found =
      entries.find((e) => requested !== '' && e.version === expectedBinaryVersion(requested)) ??
      (status.fallback ? entries[entries.length - 1] : undefined) ??
      // A recall the pointer no longer offers: the node gave it up (the readers count it as recalled).
      [...entries].reverse().find((e) => e.cause === 'recalled' && status.binary?.kind !== 'hotfix');
    if (found) {
      const { recordedAt: _, ...entry } = found;
      quarantine = entry;
    }
  } catch {
    // unreadable record: nothing to report
  }
  return buildReport(status, {
    bootId: readTrimmed(deps, deps.paths.bootId),
    now: deps.clock.now(),
    platform,
    baked,
    base: base.ok ? base.value : null,
    wave,
    quarantine,
    pointer: pointerState(deps),
  });
}

/** The serial this node accepted and whether the last pointer check-hotfix accepted was signed (its log). */
function pointerState(deps: Deps): NodeReport['pointer'] {
  let signed = false;
  try {
    const tail = deps.fs.readTail(deps.paths.logFile, 1024 * 1024).data.toString('utf8');
    const verified = tail.lastIndexOf('"msg":"hotfix pointer signature verified"');
    const unsigned = tail.lastIndexOf('"msg":"hotfix pointer is unsigned');
    signed = verified > unsigned;
  } catch {}
  let serial: number | null = null;
  if (signed) {
    try {
      const doc = JSON.parse(readTrimmed(deps, deps.paths.hotfixPointerSerial) || 'null') as { serial?: unknown } | null;
      if (typeof doc?.serial === 'number') serial = doc.serial;
    } catch {}
  }
  return { serial, signed };
}

export async function runReportStatus(deps: Deps): Promise<number> {
  const start = deps.clock.now();
  const bounds = reportBounds(deps.env);
  const emit = (ok: boolean, message: string) =>
    deps.events.emit({ task: TASK, message, level: ok ? 'Informational' : 'Error', start, end: deps.clock.now() });
  const { name, source } = nodeName(deps);
  let report: NodeReport;
  try {
    report = await makeReport(deps);
  } catch (error) {
    const why = `could not collect this boot's status: ${errorMessage(error)}`;
    deps.log.error(`report-status: ${why}`);
    emit(false, `not reported: ${why}`);
    return 0;
  }
  const summary = `binary=${report.binary} running=${report.running} path=${report.hotfix.path} exit=${report.provision.exitCode ?? '-'}${report.provision.name ? ` ${report.provision.name}` : ''}`;
  deps.log.info('report-status started', { node: name, nameSource: source, waitMs: bounds.waitMs, requestMs: bounds.requestMs });
  try {
    await patchWhenReady(deps, name, report, bounds, start.getTime());
    deps.log.info('report-status completed: reported on the Node object', { node: name, outcome: 'reported', summary });
    emit(true, `reported on node ${name}: ${summary}`);
  } catch (error) {
    const why = errorMessage(error);
    deps.log.warn(`report-status completed: not reported (fail-open): ${why}`, { node: name, outcome: 'notReported', error: why });
    emit(false, `not reported on node ${name}: ${why}`);
  }
  return 0;
}

/** Waits (bounded) for kubelet's kubeconfig and the Node object, then merge-patches the report onto it. */
async function patchWhenReady(deps: Deps, name: string, report: NodeReport, bounds: ReportBounds, startedMs: number): Promise<void> {
  const { kubeconfigCredentials } = await import('../kube/credentials.ts');
  const { getNode, patchNodeMetadata, NODE_NAME } = await import('../kube/nodes.ts');
  if (!NODE_NAME.test(name))
    throw new AgentError('ANC_KUBE', `the node name ${JSON.stringify(name.slice(0, 64))} is not a valid Node name`);
  const deadline = startedMs + bounds.waitMs;
  const options = () => ({
    timeoutMs: Math.max(1, Math.min(bounds.requestMs, deadline - Date.now())),
    userAgent: `aks-node-controller/${deps.version}`,
  });
  let last = 'nothing tried yet';
  // The most informative fault met (R4-21): an apiserver's answer over a failed connection over a request
  // the deadline cut; the last attempt is often just the one the bound cut short.
  let best = { text: last, rank: -1 };
  let attempts = 0;
  let refusals = 0;
  while (true) {
    attempts++;
    try {
      // Kubelet's credentials exist only once it joined (TLS bootstrap writes the kubeconfig).
      const creds = await kubeconfigCredentials(deps, deps.paths.kubeconfig);
      await getNode(creds, name, options());
      const metadata = {
        labels: { [VERSION_LABEL]: versionLabelValue(report.running), [STATE_LABEL]: stateLabelValue(report) },
        annotations: { [STATUS_ANNOTATION]: renderReport(report) },
      };
      await patchNodeMetadata(creds, name, metadata, options());
      await (await import('./recall-condition.ts')).syncRecallCondition(deps, creds, name, report.running, options());
      return;
    } catch (error) {
      last = errorMessage(error);
      const rank = faultRank(last);
      if (rank >= best.rank) best = { text: last, rank };
      // A refusal (403: NodeRestriction) will not change by waiting, but an authorizer may lag a fresh
      // registration (R4-14): a few tries within the bound, then final.
      if (/returned status 403/.test(last) && ++refusals >= REFUSALS_FINAL) throw new AgentError('ANC_KUBE', last);
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    if (attempts === 1) deps.log.info('report-status: waiting for kubelet credentials and the Node object', { node: name, reason: last });
    await deps.clock.sleep(Math.min(bounds.pollMs, left));
  }
  const waited = Math.round((Date.now() - startedMs) / 100) / 10;
  const also = best.text === last ? '' : ` (last attempt: ${last})`;
  throw new AgentError(
    'ANC_KUBE',
    `gave up after ${waited} s (bound ${bounds.waitMs / 1000} s, ${attempts} attempts): ${best.text}${also}`,
  );
}

/** How many 403 answers make a refusal final (R4-14). */
const REFUSALS_FINAL = 4;

/** 3: the apiserver answered (a status); 1: a request the deadline cut; 2: anything else (connection, TLS, files). */
function faultRank(message: string): number {
  if (/returned status \d+/.test(message)) return 3;
  if (/no complete answer within|deadline reached|timed out/i.test(message)) return 1;
  return 2;
}

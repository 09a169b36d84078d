// The report a node writes on its own Node object (docs/operators.md "Watching a rollout"): what `status`
// collected, cut to what the fleet needs, as compact JSON of at most 4 KiB in the annotation
// `kubernetes.azure.com/aks-node-controller-status`, plus the running version as a label for selectors.
// One parser for readers (rollout status, the watch). Nothing secret goes in: no provisioning output or
// error text, no configuration values. Pure.
import type { StatusReport } from '../status/collect.ts';

export const REPORT_SCHEMA_VERSION = 1;
export const STATUS_ANNOTATION = 'kubernetes.azure.com/aks-node-controller-status';
export const VERSION_LABEL = 'kubernetes.azure.com/aks-node-controller-version';
/** Where provisioning went this boot, for `kubectl get nodes -l ...-state=failed` (docs/operators.md). */
export const STATE_LABEL = 'kubernetes.azure.com/aks-node-controller-state';
export type NodeState = 'hotfix' | 'baked' | 'fellback' | 'failed' | 'recalled';
export const MAX_REPORT_BYTES = 4096;

export interface NodeReport {
  schemaVersion: number;
  bootId: string;
  /** When the report was made (RFC 3339 UTC). */
  time: string;
  /** `<os id>-<version id>/<arch>`, e.g. ubuntu-22.04/amd64. */
  platform: string;
  /** The image's agent version, and the version of the binary that ran provision. */
  baked: string;
  running: string;
  binary: 'baked' | 'hotfix' | 'unknown';
  hotfix: {
    base: string | null;
    /** The version the pointer requests for this base ('' = none). */
    requested: string;
    /** The node decision's reason: upgrade, notInWave, quarantined, not-listed, no-request, ... */
    decision: string;
    /** Which way provisioning went: on the hotfix, on the baked agent, or back to baked after the hotfix failed. */
    path: 'hotfix' | 'baked' | 'fallback';
    /** The quarantine entry for this node's hotfix, with its cause (recalled, provisionFailed + exit, ...). */
    quarantine: ReportQuarantine | null;
    /** The base's wave as decided at boot; with a schedule, when this node joins (null: never). */
    wave: { percent: number; joinsAt?: string | null } | null;
  };
  scripts: {
    ran: 'baked' | 'hotfix';
    label: string | null;
    replaced: number;
    /** download-hotfix's scripts_version step (spec 11.2), when it ran: applied, skipped or failed. */
    nodeCustomData?: { outcome: 'applied' | 'skipped' | 'failed'; scriptsVersion: string };
  };
  pointer: { serial: number | null; signed: boolean };
  provision: { state: string; exitCode: number | null; name: string | null };
}

export interface ReportQuarantine {
  version: string;
  reason: string;
  cause?: string;
  exitCode?: number;
  exitName?: string;
}

/** What the report adds to `status`: facts status does not collect. */
export interface ReportFacts {
  bootId: string;
  now: Date;
  platform: string;
  baked: string;
  base: string | null;
  wave: { percent: number; joinsAt?: string | null } | null;
  quarantine: ReportQuarantine | null;
  pointer: { serial: number | null; signed: boolean };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function buildReport(status: StatusReport, facts: ReportFacts): NodeReport {
  const decision = status.hotfix.decision;
  const binary = status.binary?.kind ?? 'unknown';
  const path = status.fallback ? 'fallback' : binary === 'hotfix' ? 'hotfix' : 'baked';
  const code = status.provision?.exitCode ?? null;
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    bootId: clip(facts.bootId, 64),
    time: facts.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    platform: clip(facts.platform, 64),
    baked: clip(facts.baked, 64),
    running: clip(status.binary?.version ?? facts.baked, 64),
    binary,
    hotfix: {
      base: facts.base,
      requested: clip(decision?.resolved ?? '', 64),
      decision: decision ? (decision.upgrade ? 'upgrade' : clip(decision.reason, 64)) : 'no-request',
      path,
      quarantine: facts.quarantine ? reportQuarantine(facts.quarantine) : null,
      wave: facts.wave,
    },
    scripts: {
      ran: status.scripts.ran,
      label: status.scripts.label ? clip(status.scripts.label, 64) : null,
      replaced: status.scripts.replaced.length,
      ...(status.hotfix.nodeCustomData
        ? {
            nodeCustomData: {
              outcome: status.hotfix.nodeCustomData.outcome,
              scriptsVersion: clip(status.hotfix.nodeCustomData.scriptsVersion, 64),
            },
          }
        : {}),
    },
    pointer: facts.pointer,
    provision: { state: status.state, exitCode: code?.code ?? null, name: code?.name ?? null },
  };
}

function reportQuarantine(q: ReportQuarantine): ReportQuarantine {
  return {
    version: clip(q.version, 64),
    reason: clip(q.reason, 300),
    ...(q.cause === undefined ? {} : { cause: clip(q.cause, 32) }),
    ...(q.exitCode === undefined ? {} : { exitCode: q.exitCode }),
    ...(q.exitName === undefined ? {} : { exitName: clip(q.exitName, 64) }),
  };
}

/** Compact JSON; a quarantine reason is cut further if the whole would pass 4 KiB (it cannot otherwise). */
export function renderReport(report: NodeReport): string {
  let text = JSON.stringify(report);
  if (Buffer.byteLength(text) > MAX_REPORT_BYTES && report.hotfix.quarantine)
    text = JSON.stringify({ ...report, hotfix: { ...report.hotfix, quarantine: { ...report.hotfix.quarantine, reason: '' } } });
  return text;
}

/** A label value (63 characters of [A-Za-z0-9._-], alphanumeric at both ends) for a version string. */
export function versionLabelValue(version: string): string {
  const value = version
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return value || 'unknown';
}

/**
 * The state label's value: failed (provisioning failed, whatever ran it), recalled (gave up a version the
 * pointer recalls), fellback (the hotfix failed and the node went back to, or stays on, the baked agent),
 * hotfix (runs it), baked (no hotfix for it, or not yet in its wave).
 */
export function stateLabelValue(report: NodeReport): NodeState {
  if (report.provision.state === 'failed' || (report.provision.exitCode !== null && report.provision.exitCode !== 0)) return 'failed';
  const recalled = report.hotfix.quarantine?.cause === 'recalled' || report.hotfix.decision === 'recalled';
  if (recalled && report.hotfix.path !== 'hotfix') return 'recalled';
  if (report.hotfix.path === 'fallback' || report.hotfix.decision === 'quarantined') return 'fellback';
  return report.hotfix.path === 'hotfix' ? 'hotfix' : 'baked';
}

/** The annotation text -> a report, or undefined when it is missing or not one this reader knows. */
export function parseReport(text: string | undefined): NodeReport | undefined {
  if (text === undefined || text.length > 4 * MAX_REPORT_BYTES) return undefined;
  try {
    const doc = JSON.parse(text) as Partial<NodeReport> | null;
    if (!doc || doc.schemaVersion !== REPORT_SCHEMA_VERSION || typeof doc.hotfix !== 'object' || doc.hotfix === null) return undefined;
    if (typeof doc.provision !== 'object' || doc.provision === null) return undefined;
    return doc as NodeReport;
  } catch {
    return undefined;
  }
}

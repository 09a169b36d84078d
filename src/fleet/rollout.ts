// The fleet view of a hotfix rollout (`hotfix rollout status`, the watch): the nodes' reports grouped by
// image base and platform, each node in one bucket. Reads reports only; what a node runs is decided on
// the node (pointer/). The schedule arithmetic comes from pointer/schedule.ts. Pure.
import type { NodeObject } from '../kube/nodes.ts';
import type { LiveEvidence } from '../pointer/evidence-gate.ts';
import type { RolloutWave } from '../pointer/payload.ts';
import { nextStep, percentAt } from '../pointer/schedule.ts';
import { expectedBinaryVersion } from '../pointer/version.ts';
import { STATUS_ANNOTATION } from './report.ts';
import { checkReport } from './report-check.ts';
import { openedAt, type Silence, seenKey, untargeted } from './targets.ts';

// recalled: gave up a version the pointer recalls (an operator's undo, not a failure); quarantined: provisioning
// failed under the hotfix and the node quarantined it; stillOnRecalled: runs a recalled version this boot;
// unreadable: the report fails the checks (report-check.ts); untargeted: a base the live pointer does not
// target, or a version it never offered (listed apart, never halts); timedOut: silent past --report-timeout.
export type Bucket =
  | 'unreadable'
  | 'untargeted'
  | 'timedOut'
  | 'onHotfix'
  | 'notInWave'
  | 'fellBack'
  | 'quarantined'
  | 'recalled'
  | 'stillOnRecalled'
  | 'failed'
  | 'notReported'
  | 'baked';

export interface NodeRow {
  name: string;
  base: string;
  platform: string;
  bucket: Bucket;
  /** The node took the hotfix this boot (ran it, or fell back from it). */
  tookHotfix: boolean;
  running: string;
  /** Provisioning exit code and its name, when it failed. */
  exit?: { code: number | null; name: string | null };
  /** The quarantine entry's cause as the node reported it (recalled, provisionFailed, beforeScripts, ...). */
  cause?: string;
  /** notReported: `none` (no report) or `olderBoot` (the report is from an earlier boot). */
  why?: 'none' | 'olderBoot';
  joinsAt?: string | null;
  /** unreadable: which check the report failed; untargeted: why it is not counted. */
  problem?: string;
}

export interface GroupRow {
  base: string;
  platform: string;
  /** The percent in force now for this base (null: the pointer has no wave for it, i.e. 100%, or unknown). */
  percent: number | null;
  nodes: number;
  onHotfix: number;
  notInWave: number;
  /** When the next wave starts (the live schedule's next step, else the earliest node's joinsAt). */
  nextWaveAt: string | null;
  fellBack: number;
  /** Provisioning failed under the hotfix and the node quarantined it (an earlier boot's failure). */
  quarantined: number;
  /** Exit-code name -> count, for the quarantined nodes. */
  quarantinedBy: Record<string, number>;
  recalled: number;
  stillOnRecalled: number;
  /** The live pointer's recalled versions of this base. */
  recall: string[];
  failed: number;
  /** Exit-code name -> count, for the failed nodes. */
  failedBy: Record<string, number>;
  notReported: number;
  baked: number;
  unreadable: number;
  untargeted: number;
  timedOut: number;
}

export interface RolloutView {
  time: string;
  serial: number | null;
  /** Set when the live pointer's envelope does not verify with the fleet's keys: why (R4-12). */
  liveUnverified?: string;
  groups: GroupRow[];
  nodes: NodeRow[];
  /** The live pointer's recall list (every base). */
  recall: string[];
  /** Nodes still running a recalled version: provisioned under it, they need a reimage (flagged AKSNodeControllerRecalled). */
  toReimage: string[];
  totals: {
    nodes: number;
    reported: number;
    tookHotfix: number;
    failed: number;
    fellBack: number;
    quarantined: number;
    recalled: number;
    stillOnRecalled: number;
    failedAmongTook: number;
    unreadable: number;
    untargeted: number;
    /** Silent past the report timeout: registered without a report this boot, plus the Nodes missing from --expect. */
    timedOut: number;
    /** Of timedOut: Nodes expected (--expect) that never registered. */
    missing: number;
  };
}

/** A node with no report from this boot whose wave opened more than the timeout ago counts as timedOut. */
function timedOut(row: NodeRow, bootId: string, live: LiveView | undefined, now: Date, silence: Silence | undefined): NodeRow {
  if (row.bucket !== 'notReported' || !silence) return row;
  const opened = openedAt(row.base, live, silence.since);
  if (opened === undefined) return row;
  const from = Math.max(opened, silence.since ?? opened, silence.firstSeen?.get(seenKey(row.name, bootId)) ?? opened);
  return now.getTime() - from > silence.reportTimeoutMs ? { ...row, bucket: 'timedOut' } : row;
}

export interface LiveView {
  /** The live envelope does not verify with the fleet's keys (why): nothing else here is set (R4-12). */
  unverified?: string;
  serial?: number;
  /** What the live pointer offers per base (absent: an older pointer read without it; nothing is untargeted). */
  hotfixes?: Record<string, string>;
  /** Set on a halting pointer (render --halt): when it was rendered. */
  halted?: string;
  /** The live evidence per base (pointer/evidence.ts), as read; stale or other-serial evidence opens nothing. */
  evidence?: Record<string, LiveEvidence>;
  rollout?: Record<string, RolloutWave>;
  recall?: string[];
}

/** The versions of `recall` whose base (YYYYMM.DD) is `base`. */
export function recallFor(recall: readonly string[], base: string): string[] {
  return recall.filter((v) => v.startsWith(`${base}.`));
}

export function classify(node: NodeObject, recall: readonly string[] = [], live?: LiveView): NodeRow {
  const checked = checkReport(node.annotations[STATUS_ANNOTATION]);
  const fallbackPlatform = `${node.osImage || 'unknown'}/${node.architecture || 'unknown'}`;
  if (checked && 'unreadable' in checked)
    return {
      name: node.name,
      base: '(unreadable)',
      platform: fallbackPlatform,
      bucket: 'unreadable',
      tookHotfix: false,
      running: '',
      problem: checked.unreadable,
    };
  const report = checked?.report;
  if (!report)
    return {
      name: node.name,
      base: '(unknown)',
      platform: fallbackPlatform,
      bucket: 'notReported',
      tookHotfix: false,
      running: '',
      why: 'none',
    };
  const row: NodeRow = {
    name: node.name,
    base: report.hotfix.base ?? '(unknown)',
    platform: report.platform,
    bucket: 'baked',
    // Quarantined: the hotfix failed here (this boot's fallback, or an earlier boot's failure recorded).
    tookHotfix: report.hotfix.path !== 'baked' || report.hotfix.decision === 'quarantined',
    running: report.running,
    ...(typeof report.hotfix.quarantine?.cause === 'string' ? { cause: report.hotfix.quarantine.cause } : {}),
  };
  if (node.bootId !== '' && report.bootId !== '' && node.bootId !== report.bootId)
    return { ...row, bucket: 'notReported', why: 'olderBoot' };
  const apart = untargeted(report.hotfix.base, report.running, live, recall);
  if (apart) return { ...row, bucket: 'untargeted', tookHotfix: false, problem: apart };
  const exitCode = report.provision.exitCode;
  if (report.provision.state === 'failed' || (exitCode !== null && exitCode !== 0))
    return { ...row, bucket: 'failed', exit: { code: exitCode, name: report.provision.name } };
  // Reported this boot and still running a version the pointer recalls: the recall has not reached it.
  if (recall.some((v) => expectedBinaryVersion(v) === expectedBinaryVersion(report.running)))
    return { ...row, bucket: 'stillOnRecalled', tookHotfix: true };
  // Gave up a recalled version (this boot or an earlier one): the recall worked here.
  if ((row.cause === 'recalled' || report.hotfix.decision === 'recalled') && report.hotfix.path !== 'hotfix')
    return { ...row, bucket: 'recalled', tookHotfix: true };
  if (report.hotfix.path === 'fallback' || report.hotfix.decision === 'quarantined') {
    if (row.cause === 'provisionFailed') {
      const q = report.hotfix.quarantine;
      return { ...row, bucket: 'quarantined', exit: { code: q?.exitCode ?? null, name: q?.exitName ?? null } };
    }
    return { ...row, bucket: 'fellBack' };
  }
  if (report.hotfix.path === 'hotfix') return { ...row, bucket: 'onHotfix' };
  if (report.hotfix.decision === 'notInWave' || report.hotfix.decision === 'awaitingEvidence')
    return { ...row, bucket: 'notInWave', joinsAt: report.hotfix.wave?.joinsAt ?? null };
  return row;
}

/** The view of `nodes` under the live pointer's waves (undefined when the cluster has none) at `now`. */
export function rolloutView(nodes: readonly NodeObject[], live: LiveView | undefined, now: Date, silence?: Silence): RolloutView {
  const recall = [...(live?.recall ?? [])].sort();
  const rows = nodes
    .map((n) => timedOut(classify(n, recall, live), n.bootId, live, now, silence))
    .sort((a, b) => a.name.localeCompare(b.name));
  const groups = new Map<string, GroupRow>();
  for (const row of rows) {
    const key = `${row.base}\u0000${row.platform}`;
    let group = groups.get(key);
    if (!group) {
      const wave = live?.rollout && Object.hasOwn(live.rollout, row.base) ? live.rollout[row.base] : undefined;
      const percent = wave ? (wave.schedule ? percentAt(wave.schedule, now) : wave.percent) : null;
      const next = wave?.schedule ? (nextStep(wave.schedule, now)?.at ?? null) : null;
      group = {
        base: row.base,
        platform: row.platform,
        percent,
        nodes: 0,
        onHotfix: 0,
        notInWave: 0,
        nextWaveAt: next,
        fellBack: 0,
        quarantined: 0,
        quarantinedBy: {},
        recalled: 0,
        stillOnRecalled: 0,
        recall: recallFor(recall, row.base),
        failed: 0,
        failedBy: {},
        notReported: 0,
        baked: 0,
        unreadable: 0,
        untargeted: 0,
        timedOut: 0,
      };
      groups.set(key, group);
    }
    group.nodes++;
    group[row.bucket]++;
    if (row.bucket === 'failed') {
      const name = row.exit?.name ?? String(row.exit?.code ?? 'unknown');
      group.failedBy[name] = (group.failedBy[name] ?? 0) + 1;
    }
    if (row.bucket === 'quarantined') {
      const name = row.exit?.name ?? (row.exit?.code == null ? 'unknown' : String(row.exit.code));
      group.quarantinedBy[name] = (group.quarantinedBy[name] ?? 0) + 1;
    }
    // Without the live pointer, the nodes' own view of their schedule; with it (after a halt too), only its schedule counts.
    if (row.bucket === 'notInWave' && row.joinsAt && live === undefined && (group.nextWaveAt === null || row.joinsAt < group.nextWaveAt))
      group.nextWaveAt = row.joinsAt;
  }
  const took = rows.filter((r) => r.tookHotfix);
  const expectedBy = silence?.since === undefined ? undefined : silence.since + silence.reportTimeoutMs;
  const missing =
    silence?.expect !== undefined && expectedBy !== undefined && now.getTime() > expectedBy ? Math.max(0, silence.expect - rows.length) : 0;
  return {
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    serial: live?.serial ?? null,
    ...(live?.unverified === undefined ? {} : { liveUnverified: live.unverified }),
    groups: [...groups.values()].sort((a, b) => `${a.base} ${a.platform}`.localeCompare(`${b.base} ${b.platform}`)),
    nodes: rows,
    recall,
    toReimage: rows.filter((r) => r.bucket === 'stillOnRecalled').map((r) => r.name),
    totals: {
      nodes: rows.length,
      reported: rows.filter((r) => r.bucket !== 'notReported' && r.bucket !== 'timedOut').length,
      tookHotfix: took.length,
      failed: rows.filter((r) => r.bucket === 'failed').length,
      fellBack: rows.filter((r) => r.bucket === 'fellBack').length,
      quarantined: rows.filter((r) => r.bucket === 'quarantined').length,
      recalled: rows.filter((r) => r.bucket === 'recalled').length,
      stillOnRecalled: rows.filter((r) => r.bucket === 'stillOnRecalled').length,
      // A recall is the operator's undo, not a failure of the hotfix; a node still on a recalled version is
      // counted apart (rollout status exits non-zero for it) so the watch does not halt over a recall.
      failedAmongTook: took.filter((r) => r.bucket === 'failed' || r.bucket === 'fellBack' || r.bucket === 'quarantined').length,
      unreadable: rows.filter((r) => r.bucket === 'unreadable').length,
      untargeted: rows.filter((r) => r.bucket === 'untargeted').length,
      timedOut: rows.filter((r) => r.bucket === 'timedOut').length + missing,
      missing,
    },
  };
}

/** Non-zero (with ROLLOUT_FAILED) when a node that took the hotfix failed or a node still runs a recalled version. */
export function rolloutFailed(view: RolloutView): boolean {
  return view.totals.failedAmongTook > 0 || view.totals.stillOnRecalled > 0 || view.totals.timedOut > 0;
}

/** Failures among the nodes that took the hotfix, plus the silent ones (silence is failure). */
export function crossesThreshold(view: RolloutView, max: { count: number } | { percent: number }): boolean {
  const failed = view.totals.failedAmongTook + view.totals.timedOut;
  const took = view.totals.tookHotfix + view.totals.timedOut;
  if ('count' in max) return failed > max.count;
  return took > 0 && (failed * 100) / took > max.percent;
}

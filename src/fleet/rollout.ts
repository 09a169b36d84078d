// The fleet view of a hotfix rollout (`hotfix rollout status`, the watch): the nodes' reports grouped by
// image base and platform, each node in one bucket. Reads reports only; what a node runs is decided on
// the node (pointer/). The schedule arithmetic comes from pointer/schedule.ts. Pure.
import type { NodeObject } from '../kube/nodes.ts';
import type { RolloutWave } from '../pointer/payload.ts';
import { nextStep, percentAt } from '../pointer/schedule.ts';
import { parseReport, STATUS_ANNOTATION } from './report.ts';

export type Bucket = 'onHotfix' | 'notInWave' | 'fellBack' | 'failed' | 'notReported' | 'baked';

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
  /** notReported: `none` (no report) or `olderBoot` (the report is from an earlier boot). */
  why?: 'none' | 'olderBoot';
  joinsAt?: string | null;
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
  failed: number;
  /** Exit-code name -> count, for the failed nodes. */
  failedBy: Record<string, number>;
  notReported: number;
  baked: number;
}

export interface RolloutView {
  time: string;
  serial: number | null;
  groups: GroupRow[];
  nodes: NodeRow[];
  totals: { nodes: number; reported: number; tookHotfix: number; failed: number; fellBack: number; failedAmongTook: number };
}

function classify(node: NodeObject): NodeRow {
  const report = parseReport(node.annotations[STATUS_ANNOTATION]);
  const fallbackPlatform = `${node.osImage || 'unknown'}/${node.architecture || 'unknown'}`;
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
  };
  if (node.bootId !== '' && report.bootId !== '' && node.bootId !== report.bootId)
    return { ...row, bucket: 'notReported', why: 'olderBoot' };
  const exitCode = report.provision.exitCode;
  if (report.provision.state === 'failed' || (exitCode !== null && exitCode !== 0))
    return { ...row, bucket: 'failed', exit: { code: exitCode, name: report.provision.name } };
  if (report.hotfix.path === 'fallback' || report.hotfix.decision === 'quarantined') return { ...row, bucket: 'fellBack' };
  if (report.hotfix.path === 'hotfix') return { ...row, bucket: 'onHotfix' };
  if (report.hotfix.decision === 'notInWave') return { ...row, bucket: 'notInWave', joinsAt: report.hotfix.wave?.joinsAt ?? null };
  return row;
}

/** The view of `nodes` under the live pointer's waves (undefined when the cluster has none) at `now`. */
export function rolloutView(
  nodes: readonly NodeObject[],
  live: { serial?: number; rollout?: Record<string, RolloutWave> } | undefined,
  now: Date,
): RolloutView {
  const rows = nodes.map(classify).sort((a, b) => a.name.localeCompare(b.name));
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
        failed: 0,
        failedBy: {},
        notReported: 0,
        baked: 0,
      };
      groups.set(key, group);
    }
    group.nodes++;
    group[row.bucket]++;
    if (row.bucket === 'failed') {
      const name = row.exit?.name ?? String(row.exit?.code ?? 'unknown');
      group.failedBy[name] = (group.failedBy[name] ?? 0) + 1;
    }
    // Without the live pointer, the nodes' own view of their schedule; with it (after a halt too), only its schedule counts.
    if (row.bucket === 'notInWave' && row.joinsAt && live === undefined && (group.nextWaveAt === null || row.joinsAt < group.nextWaveAt))
      group.nextWaveAt = row.joinsAt;
  }
  const took = rows.filter((r) => r.tookHotfix);
  return {
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    serial: live?.serial ?? null,
    groups: [...groups.values()].sort((a, b) => `${a.base} ${a.platform}`.localeCompare(`${b.base} ${b.platform}`)),
    nodes: rows,
    totals: {
      nodes: rows.length,
      reported: rows.filter((r) => r.bucket !== 'notReported').length,
      tookHotfix: took.length,
      failed: rows.filter((r) => r.bucket === 'failed').length,
      fellBack: rows.filter((r) => r.bucket === 'fellBack').length,
      failedAmongTook: took.filter((r) => r.bucket === 'failed' || r.bucket === 'fellBack').length,
    },
  };
}

/** The table for people: one line per image base and platform, then the totals. */
export function rolloutText(view: RolloutView): string {
  const header = [
    'IMAGE BASE',
    'PLATFORM',
    'WAVE',
    'NODES',
    'ON HOTFIX',
    'NOT YET IN WAVE',
    'FELL BACK',
    'FAILED',
    'NOT REPORTED',
    'BAKED',
  ];
  const lines = view.groups.map((g) => [
    g.base,
    g.platform,
    g.percent === null ? '-' : `${g.percent}%`,
    String(g.nodes),
    String(g.onHotfix),
    g.notInWave === 0 ? '0' : `${g.notInWave}${g.nextWaveAt ? ` (next ${g.nextWaveAt})` : ''}`,
    String(g.fellBack),
    g.failed === 0
      ? '0'
      : `${g.failed} (${Object.entries(g.failedBy)
          .map(([n, c]) => `${n} x${c}`)
          .join(', ')})`,
    String(g.notReported),
    String(g.baked),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const t = view.totals;
  return [
    `rollout at ${view.time}${view.serial === null ? '' : `, pointer serial ${view.serial}`}`,
    fmt(header),
    ...lines.map(fmt),
    `${t.nodes} nodes, ${t.reported} reported this boot, ${t.tookHotfix} took the hotfix, ${t.failedAmongTook} of them failed`,
    '',
  ].join('\n');
}

/** --max-failed N or P%: halt when failures among the nodes that took the hotfix exceed it. */
export function parseMaxFailed(text: string): { count: number } | { percent: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]);
  if (m[2] === '%') return value <= 100 ? { percent: value } : undefined;
  return Number.isInteger(value) ? { count: value } : undefined;
}

export function crossesThreshold(view: RolloutView, max: { count: number } | { percent: number }): boolean {
  const { failedAmongTook: failed, tookHotfix: took } = view.totals;
  if ('count' in max) return failed > max.count;
  return took > 0 && (failed * 100) / took > max.percent;
}

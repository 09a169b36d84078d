// The rollout table for people (`hotfix rollout status`, the watch): one line per image base and platform,
// the recall lines, then the totals. Pure.
import type { RolloutView } from './rollout.ts';
import { type StatedView, stateLines } from './rollout-state.ts';

/** The table for people: one line per image base and platform (`wide`: each followed by its nodes), then the totals. */
export function rolloutText(view: RolloutView | StatedView, wide = false): string {
  const stated = 'state' in view ? view : undefined;
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
    'TIMED OUT',
    'BAKED',
    ...(stated ? ['STATE'] : []),
  ];
  const lines = view.groups.map((g) => [
    g.base,
    g.platform,
    g.percent === null ? '-' : `${g.percent}%`,
    String(g.nodes),
    String(g.onHotfix),
    g.notInWave === 0 ? '0' : `${g.notInWave}${g.nextWaveAt ? ` (next ${g.nextWaveAt})` : ''}`,
    String(g.fellBack),
    g.failed === 0 ? '0' : `${g.failed} (${counted(g.failedBy)})`,
    String(g.notReported),
    String(g.timedOut),
    String(g.baked),
    ...(stated ? [String((g as StatedView['groups'][number]).state)] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const t = view.totals;
  return [
    `rollout at ${view.time}${view.serial === null ? '' : `, pointer serial ${view.serial}`}${stated ? `: ${stated.state}` : ''}`,
    ...(view.liveUnverified === undefined
      ? []
      : [
          `live pointer UNVERIFIED: its signature does not verify with the fleet's keys (${view.liveUnverified}); nodes refuse it, so its serial, waves and recall are not shown as live`,
        ]),
    fmt(header),
    ...lines.flatMap((l, i) => [fmt(l), ...(wide ? nodeLines(view, view.groups[i]!) : [])]),
    ...recallLines(view),
    ...(stated ? stateLines(stated) : []),
    ...apart(view),
    `${t.nodes} nodes, ${t.reported} reported this boot, ${t.tookHotfix} took the hotfix, ${t.failedAmongTook} of them failed${t.timedOut === 0 ? '' : `; ${t.timedOut} timed out (silent past the report timeout${t.missing ? `, ${t.missing} never registered` : ''}: counted as failed)`}`,
    ...(t.stillOnRecalled === 0
      ? []
      : [
          `${t.stillOnRecalled} node(s) still on a recalled version this boot: they provisioned under it and a provisioned node never provisions again, so reimage them to return to the image's agent and scripts (a node whose provisioning never completed gives it up at its next boot; -o json names them)`,
          `to reimage (${view.toReimage.length}): ${view.toReimage.slice(0, 20).join(', ')}${view.toReimage.length > 20 ? `, and ${view.toReimage.length - 20} more (-o json names them all)` : ''}`,
        ]),
    '',
  ].join('\n');
}

/** `-o wide`: the row's nodes by where they are, each with its exit name or join time when it has one. */
function nodeLines(view: RolloutView, g: RolloutView['groups'][number]): string[] {
  const mine = view.nodes.filter((n) => n.base === g.base && n.platform === g.platform);
  const by = new Map<string, string[]>();
  for (const n of mine) {
    const extra = n.exit?.name ? ` (${n.exit.name})` : n.joinsAt ? ` (joins ${n.joinsAt})` : '';
    by.set(n.bucket, [...(by.get(n.bucket) ?? []), `${n.name}${extra}`]);
  }
  const word: Record<string, string> = {
    onHotfix: 'on hotfix',
    notInWave: 'not yet in wave',
    fellBack: 'fell back',
    stillOnRecalled: 'still on recalled',
    notReported: 'not reported',
  };
  return [...by].map(([bucket, names]) => `  ${word[bucket] ?? bucket}: ${names.join(', ')}`);
}

/** Nodes whose reports do not count: unreadable ones and those of bases or versions the pointer never offered. */
function apart(view: RolloutView): string[] {
  const rows = view.nodes.filter((n) => n.bucket === 'unreadable' || n.bucket === 'untargeted');
  if (rows.length === 0) return [];
  const shown = rows.slice(0, 10).map((n) => `  ${n.name}: ${n.bucket} (${n.problem ?? ''})`);
  return [
    `${rows.length} node(s) not counted toward any rollout (they never halt one):`,
    ...shown,
    ...(rows.length > 10 ? [`  ... ${rows.length - 10} more (-o json names them)`] : []),
  ];
}

const counted = (by: Record<string, number>) =>
  Object.entries(by)
    .map(([n, c]) => `${n} x${c}`)
    .join(', ');

/** Per group with a recall or with nodes that gave up the hotfix by quarantine: the recall and its counts. */
function recallLines(view: RolloutView): string[] {
  const out: string[] = [];
  for (const g of view.groups) {
    if (g.recall.length === 0 && g.recalled === 0 && g.quarantined === 0 && g.stillOnRecalled === 0) continue;
    const parts = [
      `recalled: ${g.recall.length === 0 ? '-' : g.recall.join(', ')}`,
      `gave it up (recalled): ${g.recalled}`,
      `failed → quarantined: ${g.quarantined}${g.quarantined === 0 ? '' : ` (${counted(g.quarantinedBy)})`}`,
      `still on recalled: ${g.stillOnRecalled}`,
    ];
    out.push(`${g.base} ${g.platform}  ${parts.join('  ')}`);
  }
  return out;
}

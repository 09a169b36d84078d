// `status` as one screen for people: the verdict first, then the failing step, which binary ran, the
// hotfix decision, configuration warnings, the timeline and where to look next.
import type { CheckState } from './checks.ts';
import { type BootGroup, type StatusReport, utcText } from './collect.ts';
import { quarantineLines, renderScripts } from './scripts.ts';

const duration = (ms: number | null) => (ms === null ? 'running' : ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${ms} ms`);

/** Marks a table row: on a terminal it is cut to the width (unless --wide); every other line wraps. */
const TABLE = '\u0000';

/** Problems in capitals, the rest in lower case: one word per state that is true of it. */
const CHECK_WORD: Record<CheckState, string> = {
  ok: 'ok',
  missing: 'MISSING',
  waiting: 'WAITING',
  'not yet': 'not yet',
  'not needed': 'not needed',
};

/** Whether download-hotfix applied the image's nodecustomdata.yml (scripts_version, spec 11.2). */
function nodeCustomDataLines(n: StatusReport['hotfix']['nodeCustomData']): string[] {
  if (!n) return [];
  const sv = n.scriptsVersion ? `scripts_version ${n.scriptsVersion}` : 'no scripts_version';
  const text =
    n.outcome === 'applied'
      ? `applied (${sv}, ${n.files ?? 0} files)`
      : n.outcome === 'failed'
        ? `failed (${sv}): ${n.error ?? 'unknown error'}`
        : `not applied (${sv}: ${n.reason})`;
  return [`  nodecustomdata  ${text}`];
}

function stagedLine(h: StatusReport['hotfix']): string {
  if (!h.staged) return 'none staged';
  if (h.stagedAccepted === false) return `staged, but the launcher refuses it: ${h.stagedRefusal}; the baked agent runs instead`;
  return 'staged; the launcher runs it (after its `version` answers within 10 s)';
}

function bootHeader(g: BootGroup, only: boolean): string {
  if (only && g.bootId === null) return 'timeline:';
  const id = g.bootId ? `boot id ${g.bootId.slice(0, 8)}` : 'no boot id';
  const since = g.firstSeen === null ? '' : `, first logged ${utcText(g.firstSeen)}`;
  if (g.current) return `timeline, this boot (${id}${since}):`;
  return g.bootId === null ? 'timeline, before any logged boot:' : `timeline, an earlier boot (${id}${since}):`;
}

function timelineLines(r: StatusReport): string[] {
  const groups = r.boots.filter((g) => g.rows.length > 0 || g.fallback || (g.current && r.boots.length > 1));
  if (groups.length === 0) return [];
  const width = Math.max(4, ...r.timeline.map((t) => t.task.length));
  const out: string[] = [];
  for (const g of groups) {
    out.push('', bootHeader(g, groups.length === 1));
    if (!g.current && g.fallback)
      out.push(`  fallback in that boot: hotfix ${g.fallback.hotfix} ${g.fallback.reason}; the baked agent ran (hotfix quarantined)`);
    if (g.rows.length === 0) {
      out.push('  (no events yet)');
      continue;
    }
    out.push(`${TABLE}  ${'step'.padEnd(width)}  ${'start'.padEnd(23)}  ${'duration'.padStart(8)}  outcome`);
    // A step of an ended run (an earlier boot, a killed process) never finished; only a live one runs.
    const ended = !g.current || r.state === 'interrupted';
    for (const t of g.rows) {
      const unfinished = ended ? 'never finished' : 'running';
      const said = t.task === 'HotfixFallback' && t.message ? ` ${t.message}` : '';
      const outcome = t.outcome === 'ok' ? `ok${said}` : t.outcome === 'error' ? `ERROR ${t.message}` : unfinished;
      const took = t.durationMs === null && ended ? '-' : duration(t.durationMs);
      out.push(`${TABLE}  ${t.task.padEnd(width)}  ${t.start.padEnd(23)}  ${took.padStart(8)}  ${outcome}`);
    }
  }
  return out;
}

const VERDICT: Record<StatusReport['state'], string> = {
  failed: 'FAILED',
  succeeded: 'succeeded',
  'in-progress': 'in-progress',
  'not-started': 'not-started',
  interrupted: 'INTERRUPTED',
  stalled: 'STALLED',
};

/**
 * Text for people. With `columns` (a terminal) table rows are cut to fit unless `wide`; every other line
 * (the verdict, paths, notes) wraps and is never cut. `-o json` keeps everything.
 */
export function renderStatusText(r: StatusReport, columns?: number, wide = false): string {
  const out: string[] = [`${VERDICT[r.state]}: ${r.summary}`];
  if (r.root) out.push(`(sandbox root ${r.root})`);
  if (r.failingStep) {
    const code = r.failingStep.exitCode;
    out.push('', 'failing step:', `  step       ${r.failingStep.task}`, `  message    ${r.failingStep.message || '-'}`);
    if (code) out.push(`  exit code  ${code.code} ${code.name} (${code.meaning})`);
    if (r.provision?.error) out.push(`  error      ${r.provision.error}`);
  }
  if (r.state !== 'succeeded')
    out.push('', 'boot checks:', ...r.checks.map((c) => `  ${CHECK_WORD[c.state].padEnd(10)}  ${c.name}: ${c.detail}`));
  if (r.fallback)
    out.push('', 'fallback:', `  hotfix ${r.fallback.hotfix} ${r.fallback.reason}; the baked agent ran provisioning (hotfix quarantined)`);
  out.push(
    '',
    'agent:',
    `  ran        ${r.binary ? `${r.binary.kind} binary, version ${r.binary.version}` : 'unknown (no start line in the log, no Provision event)'}`,
  );
  const d = r.hotfix.decision;
  out.push(
    '',
    'hotfix:',
    `  pointer    ${r.hotfix.pointer}`,
    ...(d
      ? [
          `  decision   ${d.upgrade ? `upgrade ${d.current} -> ${d.resolved}` : `stay on ${d.current}`} (${d.reason}${d.detail ? `: ${d.detail}` : ''})`,
        ]
      : []),
    `  staged     ${stagedLine(r.hotfix)}`,
    ...(r.hotfix.checkHotfix ? [`  check      ${r.hotfix.checkHotfix}`] : []),
    ...(r.hotfix.downloadHotfix ? [`  download   ${r.hotfix.downloadHotfix}`] : []),
    ...quarantineLines(r.scripts.quarantined),
    ...nodeCustomDataLines(r.hotfix.nodeCustomData),
  );
  out.push(...renderScripts(r.scripts));
  if (r.report) out.push('', `report: ${r.report.outcome === 'ok' ? '' : 'FAILED '}${r.report.message} (${r.report.start})`);
  if (r.configWarnings.length > 0)
    out.push('', `configuration warnings (${r.configWarnings.length}):`, ...r.configWarnings.map((w) => `  ${w}`));
  out.push(...timelineLines(r));
  if (r.provision?.output && r.state === 'failed')
    out.push(
      '',
      'provisioning output (end):',
      ...r.provision.output
        .trimEnd()
        .split('\n')
        .slice(-10)
        .map((l) => `  ${l}`),
    );
  if (r.notes.length > 0) out.push('', 'notes:', ...r.notes.map((n) => `  ${n}`));
  if (r.state !== 'succeeded') {
    out.push(
      '',
      'where to look next:',
      `  provisioning log  ${r.files.provisionLog}`,
      `  agent log         ${r.files.agentLog} (journalctl -u aks-node-controller for the launcher)`,
      `  events            ${r.files.events}`,
    );
  }
  const lines = out.join('\n').split('\n');
  const fitted = lines.flatMap((l) =>
    l.startsWith(TABLE)
      ? [columns && columns > 20 && !wide ? fit(l.slice(1), columns) : l.slice(1)]
      : columns && columns > 20
        ? wrap(l, columns)
        : [l],
  );
  return `${fitted.join('\n')}\n`;
}

/** A table row cut to the terminal's width, with an ellipsis; `--wide` and `-o json` have the whole text. */
const fit = (line: string, columns: number) => (line.length <= columns ? line : `${line.slice(0, columns - 1)}…`);

/** A line wrapped at spaces to the width, continued under its own indent plus two; a longer word is split, never cut. */
export function wrap(line: string, columns: number): string[] {
  if (line.length <= columns) return [line];
  const indent = ' '.repeat(Math.min((/^ */.exec(line)?.[0].length ?? 0) + 2, Math.floor(columns / 2)));
  const out: string[] = [];
  let rest = line;
  let prefix = '';
  while (prefix.length + rest.length > columns) {
    const room = columns - prefix.length;
    const lead = /^ */.exec(rest)![0].length;
    const space = rest.lastIndexOf(' ', room);
    const cut = space > lead ? space : room;
    out.push(prefix + rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
    prefix = indent;
  }
  if (rest.length > 0) out.push(prefix + rest);
  return out;
}

// `status` as one screen for people: the verdict first, then the failing step, which binary ran, the
// hotfix decision, configuration warnings, the timeline and where to look next.
import type { StatusReport } from './collect.ts';
import { renderScripts } from './scripts.ts';

const duration = (ms: number | null) => (ms === null ? 'running' : ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${ms} ms`);

/** Text for people; with `columns` (a terminal) every line is cut to fit, `-o json` keeps everything. */
export function renderStatusText(r: StatusReport, columns?: number): string {
  const out: string[] = [`${r.state === 'failed' ? 'FAILED' : r.state}: ${r.summary}`];
  if (r.root) out.push(`(sandbox root ${r.root})`);
  if (r.failingStep) {
    const code = r.failingStep.exitCode;
    out.push('', 'failing step:', `  step       ${r.failingStep.task}`, `  message    ${r.failingStep.message || '-'}`);
    if (code) out.push(`  exit code  ${code.code} ${code.name} (${code.meaning})`);
    if (r.provision?.error) out.push(`  error      ${r.provision.error}`);
  }
  if (r.state !== 'succeeded')
    out.push('', 'boot checks:', ...r.checks.map((c) => `  ${c.ok ? 'ok     ' : 'MISSING'}  ${c.name}: ${c.detail}`));
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
    ...(d ? [`  decision   ${d.upgrade ? `upgrade ${d.current} -> ${d.resolved}` : `stay on ${d.current}`} (${d.reason})`] : []),
    `  staged     ${r.hotfix.staged ? 'yes (the launcher runs the hotfix binary)' : 'no'}`,
    ...(r.hotfix.checkHotfix ? [`  check      ${r.hotfix.checkHotfix}`] : []),
    ...(r.hotfix.downloadHotfix ? [`  download   ${r.hotfix.downloadHotfix}`] : []),
  );
  out.push(...renderScripts(r.scripts));
  if (r.report) out.push('', `report: ${r.report.outcome === 'ok' ? '' : 'FAILED '}${r.report.message} (${r.report.start})`);
  if (r.configWarnings.length > 0)
    out.push('', `configuration warnings (${r.configWarnings.length}):`, ...r.configWarnings.map((w) => `  ${w}`));
  if (r.timeline.length > 0) {
    const width = Math.max(4, ...r.timeline.map((t) => t.task.length));
    out.push('', 'timeline:', `  ${'step'.padEnd(width)}  ${'start'.padEnd(23)}  ${'duration'.padStart(8)}  outcome`);
    for (const t of r.timeline) {
      const outcome = t.outcome === 'ok' ? 'ok' : t.outcome === 'error' ? `ERROR ${t.message}` : 'running';
      out.push(`  ${t.task.padEnd(width)}  ${t.start.padEnd(23)}  ${duration(t.durationMs).padStart(8)}  ${outcome}`);
    }
  }
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
  return `${(columns && columns > 20 ? lines.map((l) => fit(l, columns)) : lines).join('\n')}\n`;
}

/** A line cut to the terminal's width, with an ellipsis; `-o json` has the whole text. */
const fit = (line: string, columns: number) => (line.length <= columns ? line : `${line.slice(0, columns - 1)}…`);

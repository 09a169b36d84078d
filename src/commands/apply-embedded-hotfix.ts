// apply-embedded-hotfix: what the reference's launcher runs with a selected hotfix binary before `provision`
// (issue 32, §3). It applies this binary's embedded script payload through the SAME step `provision` runs
// first (hotfix/scripts/step.ts -> apply.ts): idempotent, all or nothing, backups and the record, so a later
// `provision` finds it already applied. Exit 0 when applied or when there is nothing to apply; a refused
// payload is an ANC_SCRIPT_HOTFIX error (exit 1) saying why, and nothing stays half-applied.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';
import { startAttrs } from '../platform/build-info.ts';
import { withScriptsLock } from '../platform/lock.ts';

type Report = {
  scripts: 'baked' | 'hotfix';
  label?: string;
  replaced: string[];
  alreadyApplied?: boolean;
  skipped?: string;
  noop?: string;
};

function describe(r: Report): string {
  if (r.skipped) return `nothing to apply: ${r.skipped}`;
  // A payload for this platform that changes nothing here is not a fix (issue 29): said, never "applied".
  if (r.noop) return `NO-OP: this binary's script payload changes nothing on this image (${r.noop}); the image's own scripts run`;
  if (r.scripts === 'baked') return "nothing to apply: this binary carries no script payload (the image's own scripts are in place)";
  if (r.alreadyApplied) return `script hotfix ${r.label} already applied (${r.replaced.length} file(s) replaced earlier); nothing changed`;
  return `script hotfix ${r.label} applied: ${r.replaced.length} file(s) replaced${r.replaced.length > 0 ? `: ${r.replaced.join(', ')}` : ''}`;
}

export const applyEmbeddedHotfixCommand = {
  name: 'apply-embedded-hotfix',
  description: "Apply this binary's embedded script payload, as provision does first (idempotent, all or nothing)",
  options: [],
  output: true,
  details:
    "Run by a launcher with the selected hotfix binary before provision. The rules and records are provision's own: backups of the originals, one record, a later provision sees the payload as already applied.",
  examples: [['apply-embedded-hotfix', 'apply the script payload this binary carries (exit 0 when there is nothing to apply)']],
  exitCodes: [[1, 'the payload was refused on this node (nothing was changed; the reason is printed)']],
  async run({ options }, deps) {
    deps.log.info('aks-node-controller apply-embedded-hotfix started', startAttrs(deps, 'ApplyEmbeddedHotfix'));
    const { scriptStep } = await import('../hotfix/scripts/step.ts');
    // One writer at a time (R4-8); like provision, files a killed earlier apply staged go first (R3-11).
    const report: Report = await withScriptsLock(deps, 'apply-embedded-hotfix', () => {
      scriptStep.cleanup(deps, deps.clock.now());
      return scriptStep.apply(deps);
    });
    const value = { applied: report.scripts === 'hotfix', ...report, summary: describe(report) };
    return { exitCode: 0, stdout: await render(options.output, value, () => `${value.summary}\n`) };
  },
} satisfies Command<{ output?: OutputFormat }>;

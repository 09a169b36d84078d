// `config diff [-o text|json|yaml] <old> <new>` (D12): does the change roll nodes (`rollout`, naming the
// customer fields), only drift the managed payload (`management-drift` + the ConfigUpdatePending
// condition), or change nothing (`none`)? Old -> new values for every field that is not a credential;
// the exit code is the decision, for CI gates. `-` reads a file from stdin.
import type { ChangedValue } from '../config/diff-values.ts';
import type { ConfigDiff } from '../config/rollout.ts';
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';
import { loadConfigFile } from './config-input.ts';
import { type OutputFormat, render } from '../cli/output.ts';

/** The exit code of each decision (documented in --help, docs/config.md and the man page). */
export const DIFF_EXIT_CODES = { none: 0, 'management-drift': 2, rollout: 3 } as const;

const SUMMARY: Record<ConfigDiff['decision'], string> = {
  rollout: 'rollout: customer intent changed; nodes must be rolled to the new configuration.',
  'management-drift':
    'management-drift: only platform-managed fields changed; new nodes get the new payload, existing nodes are NOT rolled.\n' +
    'condition: ConfigUpdatePending (reason ManagementConfigDrift)',
  none: 'none: both configurations provision the same node; nothing to do.',
};

type Report = ConfigDiff & { changes: ChangedValue[] };

/** One side as text: JSON text, `-` when absent, `<redacted>` for a credential. */
const changeText = (change: ChangedValue, side: 'before' | 'after') =>
  change.redacted ? '<redacted>' : side in change ? JSON.stringify(change[side]) : '-';

function text(report: Report): string {
  const lines = [`decision: ${SUMMARY[report.decision]}`];
  const list = (title: string, fields: string[]) => {
    if (fields.length === 0) return;
    lines.push(`${title} (${fields.length}):`);
    for (const field of fields) {
      const change = report.changes.find((c) => c.path === field);
      lines.push(change ? `  ${field}: ${changeText(change, 'before')} -> ${changeText(change, 'after')}` : `  ${field}`);
    }
  };
  list('rollout fields (customer intent)', report.rolloutFields);
  list('payload-only fields (platform-managed)', report.payloadFields);
  return `${lines.join('\n')}\n`;
}

export const configDiffCommand = {
  name: 'config diff',
  args: '<old> <new>',
  description: 'Classify a configuration change as rollout, management-drift or none (the exit code says which)',
  options: [],
  output: true,
  readOnly: true,
  details:
    'Credentials and fields that may embed one are listed by path only, their values shown as <redacted>.\nEither file may be `-` for stdin.',
  examples: [
    ['config diff old.json new.json', 'what changed, old -> new, and what it means for the fleet'],
    ['config diff -o json old.json new.json', 'the same as JSON, for a CI gate'],
    ['config diff old.json - < new.json', 'compare against stdin'],
  ],
  exitCodes: [
    [DIFF_EXIT_CODES.none, 'none: both configurations provision the same node'],
    [1, 'error: usage, or a file unreadable or not a configuration'],
    [DIFF_EXIT_CODES['management-drift'], 'management-drift: only platform-managed fields changed'],
    [DIFF_EXIT_CODES.rollout, 'rollout: customer intent changed; nodes roll'],
  ],
  async run({ args, options }, deps) {
    const [oldFile, newFile] = args;
    if (!oldFile || !newFile) throw new AgentError('ANC_USAGE', 'config diff needs two configuration files: config diff <old> <new>');
    if (oldFile === '-' && newFile === '-') throw new AgentError('ANC_USAGE', 'config diff: only one of the two files can be - (stdin)');
    const before = await loadConfigFile(deps, oldFile);
    const after = await loadConfigFile(deps, newFile);
    const [{ diffConfigurations }, { changedValues }] = await Promise.all([
      import('../config/rollout.ts'),
      import('../config/diff-values.ts'),
    ]);
    const diff = diffConfigurations(before.config, after.config);
    const changes = changedValues(before.config, after.config, [...diff.rolloutFields, ...diff.payloadFields]);
    const stdout = await render(options.output, { ...diff, changes }, text);
    const stderr = before.warnings + after.warnings;
    return { exitCode: DIFF_EXIT_CODES[diff.decision], stdout, ...(stderr ? { stderr } : {}) };
  },
} satisfies Command<{ output?: OutputFormat }>;

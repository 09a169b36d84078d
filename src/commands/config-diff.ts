// `config diff <old> <new> [--human]` (D12): does the change roll nodes (`rollout`, naming the customer
// fields), only drift the managed payload (`management-drift` + the ConfigUpdatePending condition), or
// change nothing (`none`)? Paths only, never values: a rotated token must not be printed.
import type { ConfigDiff } from '../config/rollout.ts';
import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';
import { loadConfigFile } from './config-input.ts';

interface DiffOptions {
  human?: boolean;
}

const SUMMARY: Record<ConfigDiff['decision'], string> = {
  rollout: 'rollout: customer intent changed; nodes must be rolled to the new configuration.',
  'management-drift':
    'management-drift: only platform-managed fields changed; new nodes get the new payload, existing nodes are NOT rolled.\n' +
    'condition: ConfigUpdatePending (reason ManagementConfigDrift)',
  none: 'none: both configurations provision the same node; nothing to do.',
};

function human(diff: ConfigDiff): string {
  const lines = [`decision: ${SUMMARY[diff.decision]}`];
  const list = (title: string, fields: string[]) => {
    if (fields.length === 0) return;
    lines.push(`${title} (${fields.length}):`, ...fields.map((f) => `  ${f}`));
  };
  list('rollout fields (customer intent)', diff.rolloutFields);
  list('payload-only fields (platform-managed)', diff.payloadFields);
  return `${lines.join('\n')}\n`;
}

export const configDiffCommand = {
  name: 'config diff',
  args: '<old> <new>',
  description: 'Classify a configuration change as rollout, management-drift or none',
  options: [{ flag: '--human', description: 'Print a readable summary instead of JSON', boolean: true }],
  async run({ args, options }, deps) {
    const [oldFile, newFile] = args;
    if (!oldFile || !newFile) throw new AgentError('ANC_USAGE', 'config diff needs two configuration files: config diff <old> <new>');
    const before = await loadConfigFile(deps, oldFile);
    const after = await loadConfigFile(deps, newFile);
    const { diffConfigurations } = await import('../config/rollout.ts');
    const diff = diffConfigurations(before.config, after.config);
    const stdout = options.human === true ? human(diff) : `${JSON.stringify(diff, null, 2)}\n`;
    const stderr = before.warnings + after.warnings;
    return { exitCode: 0, stdout, ...(stderr ? { stderr } : {}) };
  },
} satisfies Command<DiffOptions>;

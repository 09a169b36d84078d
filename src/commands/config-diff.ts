// `config diff <old> <new> [--human]` (D12): does the change roll nodes (`rollout`, naming the customer
// fields), only drift the managed payload (`management-drift` + the ConfigUpdatePending condition), or
// change nothing (`none`)? Paths only, never values: a rotated token must not be printed.
import type { ConfigDiff } from '../config/rollout.ts';
import type { ConfigIssue } from '../config/load.ts';
import type { Configuration } from '../config/types.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { Command } from './command.ts';

interface DiffOptions {
  human?: boolean;
}

interface Loaded {
  config: Configuration;
  warnings: string;
}

/** Reads and parses one configuration file; unreadable or not JSON -> an error naming the file. */
async function loadFile(deps: Deps, file: string): Promise<Loaded> {
  let text: string;
  try {
    text = deps.fs.readText(file);
  } catch (error) {
    throw new AgentError('ANC_CONFIG_UNREADABLE', `cannot read configuration file ${file}: ${errorMessage(error)}`, { cause: error });
  }
  const { loadConfiguration } = await import('../config/load.ts');
  const { config, issues } = loadConfiguration(text);
  const fatal = issues.find((i: ConfigIssue) => i.severity === 'error' && (i.kind === 'syntax' || i.path === '$'));
  if (fatal) throw new AgentError('ANC_CONFIG_INVALID', `${file} is not a usable configuration: ${fatal.message}`);
  const warnings = issues.map((i) => `warning: ${file}: ${i.path}: ${i.message}\n`).join('');
  return { config, warnings };
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
    const before = await loadFile(deps, oldFile);
    const after = await loadFile(deps, newFile);
    const { diffConfigurations } = await import('../config/rollout.ts');
    const diff = diffConfigurations(before.config, after.config);
    const stdout = options.human === true ? human(diff) : `${JSON.stringify(diff, null, 2)}\n`;
    const stderr = before.warnings + after.warnings;
    return { exitCode: 0, stdout, ...(stderr ? { stderr } : {}) };
  },
} satisfies Command<DiffOptions>;

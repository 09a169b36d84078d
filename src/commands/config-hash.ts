// `config hash <file>` (D12): the rollout hash (customer intent) and the payload hash (everything the
// node receives) of a node configuration, as JSON. Same logic as the rollout library (config/rollout).
import type { ConfigIssue } from '../config/load.ts';
import type { Configuration } from '../config/types.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { Command } from './command.ts';

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

export const configHashCommand = {
  name: 'config hash',
  args: '<file>',
  description: 'Print the rollout hash (customer intent) and payload hash (everything) of a node configuration',
  options: [],
  async run({ args }, deps) {
    const file = args[0];
    if (!file) throw new AgentError('ANC_USAGE', 'config hash needs the configuration file: config hash <file>');
    const loaded = await loadFile(deps, file);
    const { configHashes } = await import('../config/rollout.ts');
    const hashes = configHashes(loaded.config);
    const stdout = `${JSON.stringify({ rolloutHash: hashes.rolloutHash, payloadHash: hashes.payloadHash }, null, 2)}\n`;
    return { exitCode: 0, stdout, ...(loaded.warnings ? { stderr: loaded.warnings } : {}) };
  },
} satisfies Command<{}>;

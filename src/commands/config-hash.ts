// `config hash <file>` (D12): the rollout hash (customer intent) and the payload hash (everything the
// node receives) of a node configuration, as JSON. Same logic as the rollout library (config/rollout).
import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';
import { loadConfigFile } from './config-input.ts';

export const configHashCommand = {
  name: 'config hash',
  args: '<file>',
  description: 'Print the rollout hash (customer intent) and payload hash (everything) of a node configuration',
  options: [],
  async run({ args }, deps) {
    const file = args[0];
    if (!file) throw new AgentError('ANC_USAGE', 'config hash needs the configuration file: config hash <file>');
    const loaded = await loadConfigFile(deps, file);
    const { configHashes } = await import('../config/rollout.ts');
    const hashes = configHashes(loaded.config);
    const stdout = `${JSON.stringify({ rolloutHash: hashes.rolloutHash, payloadHash: hashes.payloadHash }, null, 2)}\n`;
    return { exitCode: 0, stdout, ...(loaded.warnings ? { stderr: loaded.warnings } : {}) };
  },
} satisfies Command<{}>;

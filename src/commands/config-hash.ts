// `config hash [-o text|json|yaml] <file>` (D12): the rollout hash (customer intent) and the payload hash
// (everything the node receives) of a node configuration. Same logic as the rollout library (config/rollout).
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';
import { loadConfigFile } from './config-input.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const configHashCommand = {
  name: 'config hash',
  args: '<file>',
  description: 'Print the rollout hash (customer intent) and payload hash (everything) of a node configuration',
  options: [],
  output: true,
  readOnly: true,
  details: 'The file may be `-` for stdin.',
  examples: [
    ['config hash node.json', 'rolloutHash and payloadHash, one per line'],
    ['config hash -o json node.json', 'the same as JSON'],
  ],
  async run({ args, options }, deps) {
    const file = args[0];
    if (!file) throw new AgentError('ANC_USAGE', 'config hash needs the configuration file: config hash <file>');
    const loaded = await loadConfigFile(deps, file);
    const { configHashes } = await import('../config/rollout.ts');
    const hashes = configHashes(loaded.config);
    const stdout = await render(options.output, { rolloutHash: hashes.rolloutHash, payloadHash: hashes.payloadHash });
    return { exitCode: 0, stdout, ...(loaded.warnings ? { stderr: loaded.warnings } : {}) };
  },
} satisfies Command<{ output?: OutputFormat }>;

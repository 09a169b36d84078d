import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';

export const provisionCommand = {
  name: 'provision',
  args: '[...args]',
  description: 'Run node provisioning',
  options: [],
  async run() {
    throw new AgentError('ANC_NOT_BUILT', 'provision is not built yet');
  },
} satisfies Command<{}>;

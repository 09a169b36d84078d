import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';

export const provisionWaitCommand = {
  name: 'provision-wait',
  args: '[...args]',
  description: 'Wait for provisioning to complete',
  options: [],
  async run() {
    throw new AgentError('ANC_NOT_BUILT', 'provision-wait is not built yet');
  },
} satisfies Command<{}>;

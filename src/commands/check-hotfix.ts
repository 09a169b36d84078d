import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';

export const checkHotfixCommand = {
  name: 'check-hotfix',
  args: '[...args]',
  description: 'Read the hotfix pointer from the cluster ConfigMap and stage it (fail-open)',
  options: [],
  async run() {
    throw new AgentError('ANC_NOT_BUILT', 'check-hotfix is not built yet');
  },
} satisfies Command<{}>;

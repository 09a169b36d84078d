import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';

export const downloadHotfixCommand = {
  name: 'download-hotfix',
  args: '[...args]',
  description: 'Download the requested hotfix binary',
  options: [],
  async run() {
    throw new AgentError('ANC_NOT_BUILT', 'download-hotfix is not built yet');
  },
} satisfies Command<{}>;

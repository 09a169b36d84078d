import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

// Run by the launcher with the BAKED binary (docs/hotfix.md "fallback table"); hidden from the help.
export const hotfixFallbackCommand = {
  name: 'hotfix fallback',
  description: 'Quarantine the staged hotfix that failed before the provisioning scripts started (launcher only)',
  hidden: true,
  options: [{ flag: '--reason <text>', description: 'How the hotfix failed (goes into the record and the event)' }],
  async run({ options }, deps) {
    if (typeof options.reason !== 'string' || options.reason.trim() === '') {
      throw new AgentError('ANC_USAGE', 'hotfix fallback needs --reason <text>');
    }
    const { fallbackToBaked } = await import('../hotfix/switch/fallback.ts');
    return { exitCode: await fallbackToBaked(deps, options.reason.trim()) };
  },
} satisfies Command<{ reason?: string }>;

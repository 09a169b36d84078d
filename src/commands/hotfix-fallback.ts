import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

// Run by the launcher with the BAKED binary (docs/hotfix.md "fallback table"); hidden from the help.
export const hotfixFallbackCommand = {
  name: 'hotfix fallback',
  description: 'Quarantine the staged hotfix that failed before the provisioning scripts started (launcher only)',
  hidden: true,
  options: [
    { flag: '--reason <text>', description: 'How the hotfix failed (goes into the record and the event)' },
    {
      flag: '--after-scripts <exit-code>',
      description: 'The hotfix failed provisioning after the scripts started, with this exit code: quarantine it for the next boot',
    },
  ],
  async run({ options }, deps) {
    if (typeof options.reason !== 'string' || options.reason.trim() === '') {
      throw new AgentError('ANC_USAGE', 'hotfix fallback needs --reason <text>');
    }
    let afterScripts: { exitCode: number; exitName: string } | undefined;
    if (options.afterScripts !== undefined) {
      const code = Number(options.afterScripts);
      if (!/^[0-9]{1,3}$/.test(String(options.afterScripts)) || code < 1 || code > 255) {
        throw new AgentError('ANC_USAGE', '--after-scripts needs the exit code (1-255)');
      }
      const { nameExitCode } = await import('../status/exit-codes.ts');
      const exitName = code > 128 && code <= 192 ? `killed by signal ${code - 128}` : (nameExitCode(code)?.name ?? 'UNKNOWN');
      afterScripts = { exitCode: code, exitName };
    }
    const { fallbackToBaked } = await import('../hotfix/switch/fallback.ts');
    return { exitCode: await fallbackToBaked(deps, options.reason.trim(), { afterScripts }) };
  },
} satisfies Command<{ reason?: string; afterScripts?: string }>;

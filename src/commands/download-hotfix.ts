import { AgentError, clip } from '../platform/errors.ts';
import { parseSeconds } from '../cli/argv.ts';
import type { Command } from '../cli/command.ts';

const DEFAULT_TIMEOUT_SECONDS = 240; // D4; mirrored by hotfix/download.ts DEFAULT_TIMEOUT_SECONDS (test-checked)

export const downloadHotfixCommand = {
  name: 'download-hotfix',
  description: 'Download the requested hotfix binary',
  options: [
    { flag: '--timeout <seconds>', description: `Overall deadline for the whole download (default ${DEFAULT_TIMEOUT_SECONDS})` },
    {
      flag: '--method <method>',
      values: ['auto', 'repository', 'package-manager'],
      description: 'auto (verified repository fast path, else apt/dnf), repository, or package-manager (default auto)',
    },
  ],
  examples: [
    ['download-hotfix', 'what the launcher runs when a pointer is staged (fail-open: 0 for every skip)'],
    ['hotfix explain', 'see the decision first, without installing anything'],
  ],
  exitCodes: [[100, "apt-get failed every retry (the package manager's own code passes through)"]],
  async run({ args, options }, deps) {
    if (args.length > 0) throw new AgentError('ANC_USAGE', `unexpected download-hotfix arguments: ${clip(args.join(' '))}`);
    const timeoutSeconds = options.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseSeconds('timeout', options.timeout);
    const method = options.method ?? 'auto';
    if (method !== 'auto' && method !== 'repository' && method !== 'package-manager') {
      throw new AgentError(
        'ANC_USAGE',
        `invalid --method ${JSON.stringify(clip(String(method)))}: expected auto, repository or package-manager`,
      );
    }
    const { downloadHotfix } = await import('../hotfix/download.ts');
    return { exitCode: await downloadHotfix(deps, { timeoutSeconds, method }) };
  },
} satisfies Command<{ timeout?: string | number; method?: string }>;

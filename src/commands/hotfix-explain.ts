import { AgentError, ECHO_LIMIT } from '../platform/errors.ts';
import type { Command } from './command.ts';

export const hotfixExplainCommand = {
  name: 'hotfix explain',
  description: 'Show which hotfix download-hotfix would install and why (wave, quarantine), and which binary would run',
  options: [
    { flag: '--current-version <version>', description: 'Version to decide for (default: this binary\'s version)' },
    { flag: '--pointer <file>', description: 'Pointer file to read (default: the on-node hotfix pointer)' },
  ],
  async run({ options }, deps) {
    const { explainHotfix } = await import('../hotfix/explain.ts');
    const given = options.pointer === undefined ? undefined : String(options.pointer);
    const path = given === undefined ? deps.paths.hotfixPointer : given.startsWith('/') ? given : `${deps.cwd}/${given}`;
    const current = options.currentVersion === undefined ? deps.version : String(options.currentVersion);
    if (current.length > ECHO_LIMIT) {
      throw new AgentError('ANC_USAGE', `--current-version is ${current.length} characters long; a version is YYYYMM.DD.PATCH[-REV]`);
    }
    return { exitCode: 0, stdout: `${JSON.stringify(explainHotfix(deps, path, current))}\n` };
  },
} satisfies Command<{ currentVersion?: string | number; pointer?: string }>;

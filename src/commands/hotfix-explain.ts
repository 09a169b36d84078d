// `hotfix explain [-o text|json|yaml]`: which hotfix download-hotfix would install, and why (wave,
// quarantine), and which binary would run.
import { AgentError, ECHO_LIMIT } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const hotfixExplainCommand = {
  name: 'hotfix explain',
  description: 'Show which hotfix download-hotfix would install and why (wave, quarantine), and which binary would run',
  options: [
    { flag: '--current-version <version>', description: "Version to decide for (default: this binary's version)" },
    { flag: '--pointer <file>', description: 'Pointer file to read (default: the on-node hotfix pointer)' },
    { flag: '--candidate <file>', description: 'A hotfix executable: also show what its script payload would replace here' },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix explain', "the decision for this node: its pointer file and this binary's version"],
    [
      'hotfix explain -o json --pointer pointer.json --current-version 202604.01.0',
      'a pointer you are about to publish, for a given image',
    ],
  ],
  async run({ options }, deps) {
    const { explainHotfix } = await import('../pointer/explain.ts');
    const given = options.pointer === undefined ? undefined : String(options.pointer);
    const path = given === undefined ? deps.paths.hotfixPointer : given.startsWith('/') ? given : `${deps.cwd}/${given}`;
    const current = options.currentVersion === undefined ? deps.version : String(options.currentVersion);
    if (current.length > ECHO_LIMIT) {
      throw new AgentError('ANC_USAGE', `--current-version is ${current.length} characters long; a version is YYYYMM.DD.PATCH[-REV]`);
    }
    const explanation = explainHotfix(deps, path, current);
    // --candidate: what that executable's script payload would replace here (it is run, bounded, to ask).
    const candidate = options.candidate === undefined ? undefined : String(options.candidate);
    const scripts =
      candidate === undefined
        ? undefined
        : await (await import('../hotfix/scripts/inspect.ts')).candidateScripts(
            deps,
            candidate.startsWith('/') ? candidate : `${deps.cwd}/${candidate}`,
          );
    const value = scripts === undefined ? explanation : { ...explanation, scripts };
    return { exitCode: 0, stdout: await render(options.output, value, undefined, { compactJson: true }) };
  },
} satisfies Command<{ currentVersion?: string | number; pointer?: string; candidate?: string; output?: OutputFormat }>;

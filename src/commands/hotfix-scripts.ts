// `hotfix scripts [-o text|json|yaml] [--binary FILE]`: the script payload a binary carries and what it
// would replace on this node (docs/hotfix.md "script payload"). Reads only.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const hotfixScriptsCommand = {
  name: 'hotfix scripts',
  description: 'Show the script payload a binary carries and what it would replace on this node',
  options: [{ flag: '--binary <file>', description: 'Executable to ask (default: this one), e.g. a candidate hotfix' }],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix scripts', "this binary's payload and its plan on this node"],
    ['hotfix scripts --binary ./aks-node-controller -o json', 'what a candidate hotfix would replace here'],
  ],
  async run({ options }, deps) {
    const { candidateScripts, ownScripts, renderScriptsText } = await import('../hotfix/scripts/inspect.ts');
    const given = options.binary === undefined ? undefined : String(options.binary);
    const binary = given === undefined ? undefined : given.startsWith('/') ? given : `${deps.cwd}/${given}`;
    const answer = binary === undefined ? ownScripts(deps) : await candidateScripts(deps, binary);
    return { exitCode: answer.error ? 1 : 0, stdout: await render(options.output, answer, renderScriptsText) };
  },
} satisfies Command<{ binary?: string; output?: OutputFormat }>;

// `completion bash|zsh`: the shell completion script, generated from the command table (the packages
// ship both; `source <(aks-node-controller completion bash)` works from a checkout too).
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

export const completionCommand = {
  name: 'completion',
  args: '<shell>',
  argValues: ['bash', 'zsh'],
  description: 'Print the bash or zsh completion script',
  options: [],
  readOnly: true,
  details: 'zsh without installing: `source <(aks-node-controller completion zsh)` in ~/.zshrc, after compinit.',
  examples: [
    ['completion bash > /etc/bash_completion.d/aks-node-controller', 'install for bash'],
    ['completion zsh > "${fpath[1]}/_aks-node-controller"', 'install for zsh'],
  ],
  async run({ args, commands = [] }) {
    const shell = args[0];
    const { bashCompletion, zshCompletion } = await import('../cli/completion.ts');
    if (shell === 'bash') return { exitCode: 0, stdout: bashCompletion(commands) };
    if (shell === 'zsh') return { exitCode: 0, stdout: zshCompletion(commands) };
    throw new AgentError('ANC_USAGE', `completion needs a shell: bash or zsh (got ${JSON.stringify(shell ?? '')})`);
  },
} satisfies Command<{}>;

import type { Command } from './command.ts';

export const versionCommand = {
  name: 'version',
  args: '[...args]',
  description: 'Print the version',
  options: [],
  async run(_input, deps) {
    return { exitCode: 0, stdout: `${deps.version}\n` };
  },
} satisfies Command<{}>;

// `manpage` (hidden): the man page in roff, generated from the command table; the packages ship it as
// aks-node-controller(8).
import type { Command } from '../cli/command.ts';

export const manpageCommand = {
  name: 'manpage',
  description: 'Print the man page (roff)',
  options: [],
  hidden: true,
  readOnly: true,
  async run({ commands = [] }, deps) {
    const { manPage } = await import('../cli/manpage.ts');
    return { exitCode: 0, stdout: manPage(commands, deps.version) };
  },
} satisfies Command<{}>;

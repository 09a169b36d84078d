// `manpage` (hidden): the man page in roff, generated from the command table; the packages ship it as
// aks-node-controller(8).
import type { Command } from './command.ts';

export const manpageCommand = {
  name: 'manpage',
  description: 'Print the man page (roff)',
  options: [],
  hidden: true,
  readOnly: true,
  async run(_input, deps) {
    const [{ COMMANDS }, { manPage }] = await Promise.all([import('./index.ts'), import('../cli/manpage.ts')]);
    return { exitCode: 0, stdout: manPage(COMMANDS, deps.version) };
  },
} satisfies Command<{}>;

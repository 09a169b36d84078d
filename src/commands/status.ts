// `status [-o text|json|yaml]`: why did this node fail (or is it still booting)? One screen from
// provision.json, the events, the agent log, the hotfix pointer and the node configuration.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const statusCommand = {
  name: 'status',
  description: 'Show how provisioning went: verdict, failing step and exit-code name, binary, hotfix, warnings, timeline',
  options: [],
  output: true,
  readOnly: true,
  details:
    'Works on a finished, a failed and a still running boot, and as a non-root user (unreadable files become notes).\n' +
    "With AKS_NODE_ROOT=<dir> it reads a sandboxed node (or a copy of a node's files) instead.",
  examples: [
    ['status', 'on a node: why did it fail?'],
    ['status -o json', 'the same for machines: state, provision.exitCode {code, name}, binary, hotfix, timeline'],
  ],
  async run({ options }, deps) {
    const [{ collectStatus }, { renderStatusText }] = await Promise.all([import('../status/collect.ts'), import('../status/render.ts')]);
    const report = await collectStatus(deps);
    return { exitCode: 0, stdout: await render(options.output, report, renderStatusText) };
  },
} satisfies Command<{ output?: OutputFormat }>;

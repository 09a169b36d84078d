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
  exitCodes: [
    [0, 'succeeded: provisioning finished with exit code 0'],
    [1, 'usage error (the report could not be made)'],
    [2, 'failed: provisioning finished with a non-zero exit code (named in the report)'],
    [3, 'in-progress: provisioning started and has no result yet'],
    [4, 'not-started: provisioning never began (the report names what is missing: custom data, hostname, ...)'],
  ],
  examples: [
    ['status', 'on a node: why did it fail?'],
    ['status -o json', 'the same for machines: state, provision.exitCode {code, name}, binary, hotfix, timeline'],
  ],
  async run({ options }, deps) {
    const [{ collectStatus }, { renderStatusText }] = await Promise.all([import('../status/collect.ts'), import('../status/render.ts')]);
    const report = await collectStatus(deps);
    const text = (r: typeof report) => renderStatusText(r, deps.terminalColumns());
    return { exitCode: STATUS_EXIT_CODES[report.state], stdout: await render(options.output, report, text) };
  },
} satisfies Command<{ output?: OutputFormat }>;

/** One exit code per verdict, as `cloud-init status` has (documented in --help and the man page). */
const STATUS_EXIT_CODES = { succeeded: 0, failed: 2, 'in-progress': 3, 'not-started': 4 } as const;

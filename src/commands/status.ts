// `status [-o text|json|yaml]`: why did this node fail (or is it still booting)? One screen from
// provision.json, the events, the agent log, the hotfix pointer and the node configuration.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const statusCommand = {
  name: 'status',
  description: 'Show how provisioning went: verdict, failing step and exit-code name, binary, hotfix, warnings, timeline',
  options: [
    {
      flag: '--wide',
      description: 'On a terminal, do not cut table rows to its width (the verdict and paths are never cut)',
      boolean: true,
    },
  ],
  output: true,
  readOnly: true,
  details:
    'Works on a finished, a failed and a still running boot, and as a non-root user (unreadable files become notes).\n' +
    "With AKS_NODE_ROOT=<dir> it reads a sandboxed node (or a copy of a node's files) instead.\n" +
    'A run without a result is told live or dead from the boot id, pid and pid start time its start log line\n' +
    'records, checked against /proc/sys/kernel/random/boot_id and /proc/<pid>/stat (under AKS_NODE_ROOT too:\n' +
    'a copy of the files without them cannot tell, and says so). Times are instants: the same in every TZ.',
  exitCodes: [
    [0, 'succeeded: provisioning finished with exit code 0'],
    [1, 'usage error (the report could not be made)'],
    [2, 'failed: provisioning finished with a non-zero exit code (named in the report)'],
    [3, 'in-progress: provisioning runs and has no result yet (within the 15 min the extension waits)'],
    [4, 'not-started: provisioning never began (the report names what is missing: custom data, hostname, ...)'],
    [5, 'interrupted: provisioning started and its process is gone without a result (killed, OOM, an earlier boot)'],
    [6, 'stalled: provisioning runs (or cannot be told dead) beyond the 15 min the extension waits'],
  ],
  examples: [
    ['status', 'on a node: why did it fail?'],
    ['status -o json', 'the same for machines: state, provision.exitCode {code, name}, binary, hotfix, timeline'],
  ],
  async run({ options }, deps) {
    const [{ collectStatus }, { renderStatusText }] = await Promise.all([import('../status/collect.ts'), import('../status/render.ts')]);
    const report = await collectStatus(deps);
    const text = (r: typeof report) => renderStatusText(r, deps.terminalColumns(), options.wide === true);
    return { exitCode: STATUS_EXIT_CODES[report.state], stdout: await render(options.output, report, text) };
  },
} satisfies Command<{ output?: OutputFormat; wide?: boolean }>;

/** One exit code per verdict, as `cloud-init status` has (documented in --help and the man page). */
const STATUS_EXIT_CODES = { succeeded: 0, failed: 2, 'in-progress': 3, 'not-started': 4, interrupted: 5, stalled: 6 } as const;

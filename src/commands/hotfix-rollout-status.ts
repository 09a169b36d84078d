// `hotfix rollout status`: the nodes' reports (fleet/report.ts) by image base and platform, read through
// the apiserver with an operator's kubeconfig, with the live pointer's recall. Exit 2 when a node that took
// the hotfix failed, or a node still runs a recalled version.
import type { Command } from '../cli/command.ts';
import type { OutputFormat } from '../cli/output.ts';
import { AgentError } from '../platform/errors.ts';

export const ROLLOUT_FAILED = 2;

export const hotfixRolloutStatusCommand = {
  name: 'hotfix rollout status',
  description: "Show the hotfix rollout from the nodes' reports, and each base's state: in-progress, complete, halted, stalled, recalled",
  options: [
    { flag: '--kubeconfig <file>', description: 'Operator kubeconfig (default: $KUBECONFIG, its files merged, then ~/.kube/config)' },
    { flag: '--context <name>', description: 'The kubeconfig context to use (default: its current-context)' },
    { flag: '--wide', description: 'Name the nodes under each row (also -o wide)', boolean: true },
    { flag: '--page-size <n>', description: 'Nodes per page of the list (default 500)' },
    { flag: '--keys <file>', description: 'Verify the live pointer with this key set instead of the keys baked into this binary' },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix rollout status --kubeconfig ~/.kube/config', 'one line per image base and platform'],
    ['hotfix rollout status -o json', 'the same with every node, for machines'],
  ],
  exitCodes: [
    [0, 'no node that took the hotfix failed, none still runs a recalled version'],
    [1, 'the nodes could not be read (usage, kubeconfig, apiserver)'],
    [
      ROLLOUT_FAILED,
      'at least one node that took the hotfix failed (provisioning failed, failed and quarantined it, or fell back to the baked agent), or still runs a recalled version this boot',
    ],
  ],
  async run({ options }, deps) {
    const { operatorCredentials, parsePageSize, readFleet } = await import('../fleet/read.ts');
    const pageSize = parsePageSize(options.pageSize);
    if (Number.isNaN(pageSize))
      throw new AgentError('ANC_USAGE', `--page-size ${JSON.stringify(options.pageSize)}: expected a whole number from 1 to 10000`);
    const { rolloutFailed } = await import('../fleet/rollout.ts');
    const { fleetView } = await import('../fleet/rollout-state.ts');
    const { rolloutText } = await import('../fleet/rollout-text.ts');
    const creds = await operatorCredentials(deps, options);
    const { readKeySet } = await import('./config-input.ts');
    const state = await readFleet(deps, creds, { pageSize, keys: await readKeySet(deps, options.keys) });
    // No timedOut here: only the watch knows since when a node has been silent (it saw its boot begin).
    const view = fleetView(state.nodes, state.live, deps.clock.now());
    const exitCode = rolloutFailed(view) ? ROLLOUT_FAILED : 0;
    if (options.output === 'json') return { exitCode, stdout: `${JSON.stringify(view, null, 2)}\n` };
    if (options.output === 'yaml') return { exitCode, stdout: (await import('yaml')).stringify(view) };
    return { exitCode, stdout: rolloutText(view, options.wide === true) };
  },
} satisfies Command<{ kubeconfig?: string; context?: string; wide?: boolean; pageSize?: string; keys?: string; output?: OutputFormat }>;

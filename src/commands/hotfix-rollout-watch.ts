// `hotfix rollout watch --halt-with FILE`: polls the nodes' reports and applies the pre-signed halt when
// failures among the nodes that took the hotfix cross --max-failed (fleet/watch.ts).
import type { Command } from '../cli/command.ts';
import type { OutputFormat } from '../cli/output.ts';
import { AgentError } from '../platform/errors.ts';

interface WatchFlags {
  kubeconfig?: string;
  context?: string;
  haltWith?: string;
  maxFailed?: string;
  interval?: string;
  untilComplete?: boolean;
  mode?: string;
  keys?: string;
  pageSize?: string;
  output?: OutputFormat;
}

const HELP = { hint: 'Run `aks-node-controller hotfix rollout watch --help`; docs/operators.md "Watching a rollout".' };

export const hotfixRolloutWatchCommand = {
  name: 'hotfix rollout watch',
  description: 'Poll the rollout and apply a pre-signed halt when too many nodes that took the hotfix fail',
  options: [
    { flag: '--halt-with <file>', description: 'The pre-signed halting ConfigMap (hotfix pointer render --halt, then sign)' },
    { flag: '--max-failed <n|p%>', description: 'Failures tolerated among nodes that took the hotfix (default 0: halt at the first)' },
    { flag: '--interval <seconds>', description: 'Seconds between polls (default 30)' },
    { flag: '--until-complete', description: 'Exit 0 once every node reported on its wave and no wave is left to start', boolean: true },
    {
      flag: '--kubeconfig <file>',
      description: 'Kubeconfig that may patch the ConfigMap (default: $KUBECONFIG merged, then ~/.kube/config)',
    },
    { flag: '--context <name>', description: 'The kubeconfig context to use (default: its current-context)' },
    {
      flag: '--mode <mode>',
      description: "The fleet's signing mode the halt must verify in (default unsigned-allowed)",
      values: ['enforce', 'unsigned-allowed'],
    },
    { flag: '--keys <file>', description: 'Trust this key set file instead of the keys baked into this binary' },
    { flag: '--page-size <n>', description: 'Nodes per page of the first list and each relist (default 500)' },
  ],
  output: true,
  readOnly: true,
  examples: [
    [
      'hotfix rollout watch --halt-with halt.signed.yaml --mode enforce --max-failed 2 --interval 60',
      'halt when a third node on the hotfix fails',
    ],
  ],
  exitCodes: [
    [0, '--until-complete: the rollout completed without crossing the threshold'],
    [1, 'usage, or the halt does not verify / is not above the live serial, or the apiserver could not be read'],
    [3, 'halted: the threshold was crossed and the halt was applied'],
  ],
  async run({ options }, deps) {
    if (!options.haltWith)
      throw new AgentError('ANC_USAGE', 'hotfix rollout watch needs --halt-with FILE (a pre-signed halting ConfigMap)', HELP);
    const { parseMaxFailed } = await import('../fleet/rollout.ts');
    const max = parseMaxFailed(options.maxFailed ?? '0');
    if (!max)
      throw new AgentError(
        'ANC_USAGE',
        `--max-failed ${JSON.stringify(options.maxFailed)}: expected a count N or a percentage P% (0..100)`,
        HELP,
      );
    const interval = Number(options.interval ?? '30');
    if (!/^\d+(\.\d+)?$/.test(options.interval ?? '30') || interval <= 0)
      throw new AgentError('ANC_USAGE', `--interval ${JSON.stringify(options.interval)}: expected seconds > 0`, HELP);
    const { signingMode, SIGNING_MODES } = await import('../pointer/gate.ts');
    if (options.mode !== undefined && !(SIGNING_MODES as readonly string[]).includes(options.mode))
      throw new AgentError('ANC_USAGE', `--mode must be enforce or unsigned-allowed (got "${options.mode}")`, HELP);
    const { bakedKeys, parseKeySet } = await import('../pointer/keys.ts');
    const { readConfigFile } = await import('./config-input.ts');
    const keys = options.keys === undefined ? bakedKeys() : parseKeySet(readConfigFile(deps, options.keys, 'key set'), options.keys);
    const { parseConfigMapText } = await import('../pointer/configmap.ts');
    const halt = await parseConfigMapText(readConfigFile(deps, options.haltWith, 'ConfigMap'), options.haltWith);
    const { operatorCredentials, parsePageSize } = await import('../fleet/read.ts');
    const pageSize = parsePageSize(options.pageSize);
    if (Number.isNaN(pageSize))
      throw new AgentError('ANC_USAGE', `--page-size ${JSON.stringify(options.pageSize)}: expected a whole number from 1 to 10000`, HELP);
    const creds = await operatorCredentials(deps, options);
    const { runWatch } = await import('../fleet/watch.ts');
    return runWatch(deps, {
      creds,
      halt,
      haltName: options.haltWith,
      mode: signingMode(options.mode).mode,
      keys,
      max,
      intervalMs: interval * 1000,
      untilComplete: options.untilComplete === true,
      json: options.output === 'json',
      ...(pageSize ? { pageSize } : {}),
    });
  },
} satisfies Command<WatchFlags>;

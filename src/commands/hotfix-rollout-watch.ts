// `hotfix rollout watch --halt-with FILE`: polls the rollout and applies the pre-signed halt when failures
// among the nodes that took the hotfix, plus silent nodes, cross --max-failed; with an observer key it signs
// the evidence that opens gated steps; a watch that cannot see halts (fleet/watch.ts). --observe only reads.
import type { Command } from '../cli/command.ts';
import type { OutputFormat } from '../cli/output.ts';
import { AgentError } from '../platform/errors.ts';
import type { WatchFlags } from '../fleet/watch-flags.ts';

const HELP = { hint: 'Run `aks-node-controller hotfix rollout watch --help`; docs/operators.md "Watching a rollout".' };

export const hotfixRolloutWatchCommand = {
  name: 'hotfix rollout watch',
  description: 'Poll the rollout; apply a pre-signed halt when too many nodes fail or stay silent; sign evidence for gated steps',
  options: [
    { flag: '--halt-with <file>', description: 'The pre-signed halting ConfigMap (hotfix pointer render --halt, then sign)' },
    { flag: '--max-failed <n|p%>', description: 'Failed plus timed-out nodes tolerated (default 0: halt at the first)' },
    { flag: '--interval <duration>', description: 'Time between polls: 30, 30s, 1m (default 30s)' },
    { flag: '--report-timeout <duration>', description: 'A node silent this long after its wave opened counts as timedOut (default 15m)' },
    {
      flag: '--expect <n>',
      description: 'Nodes expected (default: those seen at start); missing ones count as timedOut after the report timeout',
    },
    { flag: '--blind-timeout <duration>', description: 'Halt when the Node list stays unreadable this long (default: the report timeout)' },
    { flag: '--timeout <duration>', description: 'Stop the whole watch after this long (exit 6)' },
    {
      flag: '--until-complete',
      description: 'Exit 0 once every expected node reported on its wave and no wave is left to start',
      boolean: true,
    },
    { flag: '--observe', description: 'Read only: watch a rollout (a halted one too) without a halt and without writing', boolean: true },
    { flag: '--evidence-key <file>', description: 'Observer private key (PEM): sign the evidence that opens gated steps' },
    { flag: '--evidence-key-id <id>', description: 'The observer key id baked into the nodes (role observer)' },
    { flag: '--evidence-min <n>', description: 'Fewest nodes on the hotfix before a gated step opens (default 1)' },
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
      'halt when a third node on the hotfix fails or stays silent',
    ],
    [
      'hotfix rollout watch --halt-with halt.signed.yaml --evidence-key observer.pem --evidence-key-id observer-2026',
      'open gated steps on evidence',
    ],
    ['hotfix rollout watch --observe --until-complete', 'follow a rollout (or a halted one) without writing'],
  ],
  exitCodes: [
    [0, '--until-complete: the rollout completed without crossing the threshold'],
    [1, 'usage, or the halt does not verify / is not above the live serial, or the apiserver could not be read at start'],
    [3, 'halted: the threshold was crossed and the halt was applied'],
    [4, 'blind: the Node list stayed unreadable past --blind-timeout; the halt was applied (or could not be)'],
    [5, 'superseded: a newer pointer was published during the watch; the halt was not written over it'],
    [6, '--timeout passed'],
    [130, 'interrupted (Ctrl-C): the rollout is unguarded from now'],
  ],
  async run({ options }, deps) {
    if (!options.haltWith && !options.observe)
      throw new AgentError('ANC_USAGE', 'hotfix rollout watch needs --halt-with FILE (a pre-signed halting ConfigMap), or --observe', HELP);
    if (options.haltWith && options.observe) throw new AgentError('ANC_USAGE', '--observe only reads: leave out --halt-with', HELP);
    const { parseMaxFailed } = await import('../fleet/watch-flags.ts');
    const max = parseMaxFailed(options.maxFailed ?? '0');
    if (!max)
      throw new AgentError(
        'ANC_USAGE',
        `--max-failed ${JSON.stringify(options.maxFailed)}: expected a count N or a percentage P% (0..100)`,
        HELP,
      );
    const { watchTiming, evidenceSigner } = await import('../fleet/watch-flags.ts');
    const timing = watchTiming(options);
    const evidence = evidenceSigner(deps, options);
    const { signingMode, SIGNING_MODES } = await import('../pointer/gate.ts');
    if (options.mode !== undefined && !(SIGNING_MODES as readonly string[]).includes(options.mode))
      throw new AgentError('ANC_USAGE', `--mode must be enforce or unsigned-allowed (got "${options.mode}")`, HELP);
    const { readConfigFile, readKeySet } = await import('./config-input.ts');
    const keys = await readKeySet(deps, options.keys);
    const { parseConfigMapText } = await import('../pointer/configmap.ts');
    const halt = options.haltWith
      ? await parseConfigMapText(readConfigFile(deps, options.haltWith, 'ConfigMap'), options.haltWith)
      : undefined;
    const { operatorCredentials } = await import('../fleet/read.ts');
    const creds = await operatorCredentials(deps, options);
    const { runWatch } = await import('../fleet/watch.ts');
    return runWatch(deps, {
      creds,
      ...(halt ? { halt } : {}),
      haltName: options.haltWith ?? '(none: --observe)',
      mode: signingMode(options.mode).mode,
      keys,
      max,
      ...timing,
      untilComplete: options.untilComplete === true,
      json: options.output === 'json',
      ...(evidence ? { evidence } : {}),
    });
  },
} satisfies Command<WatchFlags & { output?: OutputFormat }>;

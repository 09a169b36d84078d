// `hotfix pointer verify FILE | --kubeconfig K`: the node's exact checks on a ConfigMap, and why it would
// be accepted or rejected. Exit 0 accepted, 1 rejected.
import { AgentError } from '../platform/errors.ts';
import type { OutputFormat } from '../cli/output.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { Command } from '../cli/command.ts';

const HELP = { hint: 'Run `aks-node-controller hotfix pointer verify --help` for the flags; docs/pointer-signing.md for the workflow.' };
import { readConfigFile as readInputFile, readConfiguration, readKeySet } from './config-input.ts';

interface VerifyOptions {
  mode?: string;
  minSerial?: string;
  kubeconfig?: string;
  context?: string;
  nodeConfig?: string;
  node?: string[];
  keys?: string;
  at?: string;
  output?: OutputFormat;
}

export const hotfixPointerVerifyCommand = {
  name: 'hotfix pointer verify',
  args: '[file]',
  description: 'Check a hotfix pointer ConfigMap exactly as a node would (exit 0 accepted, 1 rejected)',
  options: [
    { flag: '--mode <mode>', description: 'enforce or unsigned-allowed (default, as on a node)', values: ['enforce', 'unsigned-allowed'] },
    { flag: '--min-serial <n>', description: "The node's serial floor: the highest serial it accepted (default 0, a fresh node)" },
    {
      flag: '--kubeconfig <file>',
      description:
        "The cluster's live ConfigMap: verified itself, or with FILE the floor FILE must clear (serial and payload); without FILE, $KUBECONFIG (merged), then ~/.kube/config",
    },
    { flag: '--context <name>', description: 'The kubeconfig context to use (default: its current-context)' },
    { flag: '--node-config <file>', description: 'Match the scope against this node configuration' },
    {
      flag: '--node <key=value>',
      description: 'A node fact to match the scope against, e.g. region=eastus (repeatable)',
      repeatable: true,
    },
    { flag: '--keys <file>', description: 'Trust this key set file instead of the keys baked into this binary' },
    { flag: '--at <time>', description: 'Check as of this RFC 3339 time (default: now)' },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix pointer verify --mode enforce signed.yaml', 'would a node in enforce mode accept this ConfigMap?'],
    ['hotfix pointer verify --kubeconfig ~/.kube/config --node region=eastus -o json', "the cluster's pointer, for a node in eastus"],
    [
      'hotfix pointer verify --mode enforce --kubeconfig ~/.kube/config signed.yaml',
      "before publishing: refused when the cluster's pointer has a higher serial, or the same serial with other content",
    ],
  ],
  exitCodes: [
    [0, 'accepted: a node would stage this pointer'],
    [1, 'rejected (the outcome says why), or a usage error'],
  ],
  async run({ args, options }, deps) {
    const { signingMode, SIGNING_MODES } = await import('../pointer/gate.ts');
    const { parseRfc3339 } = await import('../pointer/payload.ts');
    const { factsFromFlags, verifyConfigMap, verifyText } = await import('../pointer/verify.ts');
    const { parseConfigMapText } = await import('../pointer/configmap.ts');
    const format = options.output ?? 'text';
    if (options.mode !== undefined && !(SIGNING_MODES as readonly string[]).includes(options.mode))
      throw new AgentError('ANC_USAGE', `--mode must be enforce or unsigned-allowed (got "${options.mode}")`, HELP);
    const minSerial = Number(options.minSerial ?? '0');
    if (!/^\d+$/.test(options.minSerial ?? '0') || !Number.isSafeInteger(minSerial))
      throw new AgentError('ANC_USAGE', `--min-serial must be an integer >= 0 (got "${options.minSerial}")`, HELP);
    const now = options.at === undefined ? deps.clock.now() : parseRfc3339(options.at);
    if (!now) throw new AgentError('ANC_USAGE', `--at must be an RFC 3339 time (got "${options.at}")`, HELP);
    // Like kubectl: without a file, the cluster of --kubeconfig, else $KUBECONFIG (merged), else ~/.kube/config.
    const cluster = args.length === 0 || options.kubeconfig !== undefined || options.context !== undefined;
    if (args.length > 1)
      throw new AgentError(
        'ANC_USAGE',
        "hotfix pointer verify takes one ConfigMap file (or none, to verify the cluster's; with --kubeconfig or --context, the file is checked before publishing over the cluster's)",
        HELP,
      );
    const { readLivePointer } = await import('../pointer/live-pointer.ts');
    const live = cluster ? await readLivePointer(deps, options) : undefined;
    let doc: ConfigMapDoc;
    let floor: { minSerial: number; floorPayloadSha256?: string } = { minSerial };
    if (args.length === 1) {
      doc = await parseConfigMapText(readInputFile(deps, args[0]!, 'ConfigMap'), args[0]!);
      // Publishing over the live pointer: the nodes that took it hold its serial and digest as their floor.
      if (live?.signed && live.signed.serial >= minSerial)
        floor = { minSerial: live.signed.serial, floorPayloadSha256: live.signed.payloadSha256 };
    } else if (live) doc = live.doc;
    else throw new AgentError('ANC_USAGE', 'the cluster has no anc-hotfix-version ConfigMap to verify', HELP);
    const keys = await readKeySet(deps, options.keys);
    const facts = factsFromFlags(
      options.nodeConfig === undefined ? undefined : readConfiguration(deps, options.nodeConfig, 'node config'),
      options.node ?? [],
    );
    const checked = verifyConfigMap(doc, { mode: signingMode(options.mode).mode, keys, facts, ...floor, now });
    const { keySetNotes } = await import('../pointer/expiry.ts');
    const report = { ...checked, ...keySetNotes(checked, keys, options.keys ?? deps.execPath, options.keys !== undefined, now) };
    const stdout =
      format === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : format === 'yaml'
          ? (await import('yaml')).stringify(report)
          : verifyText(report, deps.clock.now());
    return { exitCode: report.accepted ? 0 : 1, stdout };
  },
} satisfies Command<VerifyOptions>;

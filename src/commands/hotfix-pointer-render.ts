// `hotfix pointer render`: hotfix and rollout entries in, the anc-hotfix-version ConfigMap out (YAML or
// JSON, ready for `kubectl apply -f -` once signed). Writes nothing, needs no node.
import type { OutputFormat } from '../cli/output.ts';
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

interface RenderOptions {
  hotfix?: string[];
  rollout?: string[];
  recall?: string[];
  serial?: string;
  expires?: string;
  scope?: string[];
  schedule?: string[];
  halt?: boolean;
  withdraw?: boolean;
  from?: string;
  at?: string;
  kubeconfig?: string;
  context?: string;
  force?: boolean;
  backdate?: boolean;
  output?: OutputFormat;
}

export const hotfixPointerRenderCommand = {
  name: 'hotfix pointer render',
  description: 'Print the hotfix pointer ConfigMap (unsigned) for the given hotfixes and waves',
  options: [
    { flag: '--hotfix <base=version>', description: 'Hotfix for an image base, e.g. 202604.01=202604.01.1 (repeatable)', repeatable: true },
    {
      flag: '--rollout <base=percent:salt>',
      description: 'Wave for a base, e.g. 202604.01=10:wave-a (repeatable; absent = 100%)',
      repeatable: true,
    },
    { flag: '--recall <version>', description: 'A version every node gives up: baked scripts and agent (repeatable)', repeatable: true },
    {
      flag: '--schedule <base=percent@time,...>',
      description: 'Wave schedule for a base, e.g. 202604.01=1@2026-12-01T00:00Z,10@2026-12-02T00:00Z,100@2026-12-04T00:00Z (repeatable)',
      repeatable: true,
    },
    {
      flag: '--halt',
      description:
        'Render the live pointer (--kubeconfig or --from) as a halting one: serial + 1, schedules frozen at their current percent',
      boolean: true,
    },
    { flag: '--withdraw', description: 'With --halt: every wave at 0% instead of frozen', boolean: true },
    { flag: '--from <file>', description: 'With --halt: the live ConfigMap as a file (kubectl get -o yaml)' },
    { flag: '--at <time>', description: 'With --halt: freeze at the percent in force at this RFC 3339 time (default: now)' },
    { flag: '--serial <n>', description: 'Serial, higher than every pointer published before (anti-rollback)' },
    {
      flag: '--kubeconfig <file>',
      description: "Read the cluster's live pointer: propose the next serial, refuse a --serial not above it or a recall it never offered",
    },
    { flag: '--context <name>', description: 'With the cluster: the kubeconfig context (default: current-context; $KUBECONFIG merged)' },
    { flag: '--force', description: 'Allow a recall the live pointer never offered, and a serial more than 1000 above it', boolean: true },
    { flag: '--backdate', description: 'Allow a schedule whose steps are all past (its last percent at once)', boolean: true },
    { flag: '--expires <time>', description: 'RFC 3339 expiry, e.g. 2026-12-31T00:00:00Z' },
    {
      flag: '--scope <key=value>',
      description: 'cluster, region, subscription or resourceGroup the pointer is for (repeatable; none = every node)',
      repeatable: true,
    },
  ],
  // A manifest: YAML unless -o json; -o text says what it asks for, in words.
  output: true,
  defaultOutput: 'yaml',
  readOnly: true,
  examples: [
    [
      'hotfix pointer render --hotfix 202604.01=202604.01.1 --serial 7 --expires 2026-12-31T00:00:00Z',
      'a pointer for one image base, every node (YAML)',
    ],
    [
      'hotfix pointer render --hotfix 202604.01=202604.01.1 --rollout 202604.01=10:wave-a --serial 8 --expires 2026-12-31T00:00:00Z',
      'the same hotfix to a 10% wave',
    ],
    [
      'hotfix pointer render --hotfix 202604.01=202604.01.1 --schedule 202604.01=1@2026-12-01T00:00Z,10@2026-12-02T00:00Z,100@2026-12-04T00:00Z --serial 9 --expires 2026-12-31T00:00:00Z',
      'waves that widen on their own, on a signed schedule',
    ],
    ['hotfix pointer render --halt --withdraw --kubeconfig ~/.kube/config > halt.yaml', 'a halt to sign now and keep for a bad day'],
  ],
  exitCodes: [
    [0, 'the ConfigMap was printed (with --kubeconfig and no --serial, the proposed serial is said on stderr)'],
    [
      1,
      'usage, or a slip refused: a malformed flag, an expiry or whole schedule in the past, a recall of a baked (.0) or shipped version, a halt frozen at 100%',
    ],
  ],
  async run({ options }, deps) {
    const format = options.output === 'json' ? 'json' : 'yaml';
    if (options.halt) {
      const fromText =
        options.from === undefined ? undefined : (await import('./config-input.ts')).readConfigFile(deps, options.from, 'ConfigMap');
      return (await import('../pointer/halt.ts')).renderHalt({ ...options, ...(fromText === undefined ? {} : { fromText }) }, deps, format);
    }
    if (options.withdraw || options.from !== undefined || options.at !== undefined)
      throw new AgentError('ANC_USAGE', '--withdraw, --from and --at go with --halt', {
        hint: 'hotfix pointer render --halt [--withdraw] (--kubeconfig FILE | --from FILE)',
      });
    const { renderPointer } = await import('../pointer/render-run.ts');
    return renderPointer(options, deps, options.output === 'text' ? 'text' : format);
  },
} satisfies Command<RenderOptions>;

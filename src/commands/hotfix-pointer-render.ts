// `hotfix pointer render`: hotfix and rollout entries in, the anc-hotfix-version ConfigMap out (YAML or
// JSON, ready for `kubectl apply -f -` once signed). Writes nothing, needs no node.
import type { OutputFormat } from '../cli/output.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

interface RenderOptions {
  hotfix?: string[];
  rollout?: string[];
  serial?: string;
  expires?: string;
  scope?: string[];
  schedule?: string[];
  halt?: boolean;
  withdraw?: boolean;
  from?: string;
  at?: string;
  kubeconfig?: string;
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
      description: "Read the cluster's live pointer: propose the next serial (or refuse a --serial not above it)",
    },
    { flag: '--expires <time>', description: 'RFC 3339 expiry, e.g. 2026-12-31T00:00:00Z' },
    {
      flag: '--scope <key=value>',
      description: 'cluster, region, subscription or resourceGroup the pointer is for (repeatable; none = every node)',
      repeatable: true,
    },
  ],
  // -o text|json|yaml (the CLI's one output flag); a manifest's text form is YAML.
  output: true,
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
    [1, 'usage: a flag missing or malformed (a version that is not a patch of its base, an expiry in the past)'],
  ],
  async run({ options }, deps) {
    const format = options.output === 'json' ? 'json' : 'yaml';
    if (options.halt) return renderHalt(options, deps, format);
    if (options.withdraw || options.from !== undefined || options.at !== undefined)
      throw new AgentError('ANC_USAGE', '--withdraw, --from and --at go with --halt', {
        hint: 'hotfix pointer render --halt [--withdraw] (--kubeconfig FILE | --from FILE)',
      });
    const { pointerFieldsFromFlags } = await import('../pointer/render.ts');
    const { renderSignedPointer } = await import('../pointer/payload.ts');
    const { configMapFor, formatConfigMap } = await import('../pointer/configmap.ts');
    const { serial, note } = await serialFor(options, deps);
    const fields = pointerFieldsFromFlags(
      {
        hotfix: options.hotfix ?? [],
        rollout: options.rollout ?? [],
        schedule: options.schedule ?? [],
        serial,
        expires: options.expires,
        scope: options.scope ?? [],
      },
      deps.clock.now(),
    );
    const stdout = await formatConfigMap(configMapFor(renderSignedPointer(fields)), format);
    return { exitCode: 0, stdout, ...(note ? { stderr: `${note}\n` } : {}) };
  },
} satisfies Command<RenderOptions>;

/** --serial as given, or with --kubeconfig the one after the live pointer's (said on stderr). */
async function serialFor(options: RenderOptions, deps: Deps): Promise<{ serial: string | undefined; note?: string }> {
  if (options.kubeconfig === undefined) return { serial: options.serial };
  const { readLivePointer } = await import('../pointer/live-pointer.ts');
  const live = await readLivePointer(deps, options.kubeconfig);
  const current = live?.serial ?? 0;
  const where =
    live === undefined
      ? 'the cluster has no anc-hotfix-version ConfigMap yet'
      : live.serial === undefined
        ? "the cluster's pointer carries no serial"
        : `the cluster's pointer has serial ${current}`;
  if (options.serial === undefined) return { serial: String(current + 1), note: `serial ${current + 1}: ${where}` };
  if (/^\d+$/.test(options.serial) && Number(options.serial) <= current) {
    throw new AgentError(
      'ANC_USAGE',
      `--serial ${options.serial} is not higher than ${current}: ${where}; nodes that took it refuse this one`,
      {
        hint: `Use --serial ${current + 1} (or leave --serial out and the next one is proposed).`,
      },
    );
  }
  return { serial: options.serial };
}

/** `--halt`: the live pointer (cluster or file) with its waves frozen (or withdrawn) and the next serial. */
async function renderHalt(options: RenderOptions, deps: Deps, format: 'json' | 'yaml') {
  const fail = (message: string): never => {
    throw new AgentError('ANC_USAGE', message, { hint: 'hotfix pointer render --halt [--withdraw] (--kubeconfig FILE | --from FILE)' });
  };
  if ((options.hotfix ?? []).length + (options.rollout ?? []).length + (options.schedule ?? []).length + (options.scope ?? []).length > 0)
    fail("--halt keeps the live pointer's hotfixes, waves and scope: leave out --hotfix, --rollout, --schedule and --scope");
  if ((options.kubeconfig === undefined) === (options.from === undefined))
    fail('--halt needs the live pointer: --kubeconfig FILE or --from FILE');
  const { parseRfc3339 } = await import('../pointer/time.ts');
  const at = options.at === undefined ? deps.clock.now() : parseRfc3339(options.at);
  if (!at) return fail(`--at ${JSON.stringify(options.at)} is not an RFC 3339 time`);
  const { livePayload, readLivePointer } = await import('../pointer/live-pointer.ts');
  const { parseConfigMapText, configMapFor, formatConfigMap } = await import('../pointer/configmap.ts');
  let doc: ConfigMapDoc | undefined;
  if (options.from !== undefined) {
    const { readConfigFile } = await import('./config-input.ts');
    doc = await parseConfigMapText(readConfigFile(deps, options.from, 'ConfigMap'), options.from);
  } else doc = (await readLivePointer(deps, options.kubeconfig!))?.doc;
  if (!doc) return fail('the cluster has no anc-hotfix-version ConfigMap: there is nothing to halt');
  const live = livePayload(doc);
  if (!live) return fail('the live ConfigMap holds no signed-pointer payload (render it with `hotfix pointer render` first)');
  let serial: number | undefined;
  if (options.serial !== undefined) {
    serial = Number(options.serial);
    if (!/^\d+$/.test(options.serial) || !Number.isSafeInteger(serial) || serial <= live.serial)
      fail(`--serial ${options.serial} must be an integer above the live pointer's serial ${live.serial}`);
  }
  const { haltFields } = await import('../pointer/render.ts');
  const { renderSignedPointer } = await import('../pointer/payload.ts');
  const fields = haltFields(live, {
    at,
    withdraw: options.withdraw === true,
    ...(serial === undefined ? {} : { serial }),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
  });
  const waves = Object.entries(fields.rollout ?? {})
    .map(([base, w]) => `${base} at ${w.percent}%`)
    .join(', ');
  const note = `halting pointer: serial ${fields.serial} (live ${live.serial}); ${waves || 'no waves'}${options.withdraw ? ' (withdrawn)' : ` (frozen as of ${at.toISOString()})`}; nodes that already staged the hotfix keep it`;
  return { exitCode: 0, stdout: await formatConfigMap(configMapFor(renderSignedPointer(fields)), format), stderr: `${note}\n` };
}

// `hotfix pointer render`: hotfix and rollout entries in, the anc-hotfix-version ConfigMap out (YAML or
// JSON, ready for `kubectl apply -f -` once signed). Writes nothing, needs no node.
import type { OutputFormat } from '../cli/output.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

interface RenderOptions {
  hotfix?: string[];
  rollout?: string[];
  serial?: string;
  expires?: string;
  scope?: string[];
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
  ],
  exitCodes: [
    [0, 'the ConfigMap was printed (with --kubeconfig and no --serial, the proposed serial is said on stderr)'],
    [1, 'usage: a flag missing or malformed (a version that is not a patch of its base, an expiry in the past)'],
  ],
  async run({ options }, deps) {
    const format = options.output === 'json' ? 'json' : 'yaml';
    const summary = options.output === 'text';
    const { pointerFieldsFromFlags, pointerSummary } = await import('../pointer/render.ts');
    const { renderSignedPointer } = await import('../pointer/payload.ts');
    const { configMapFor, formatConfigMap } = await import('../pointer/configmap.ts');
    const { serial, note } = await serialFor(options, deps);
    const fields = pointerFieldsFromFlags(
      {
        hotfix: options.hotfix ?? [],
        rollout: options.rollout ?? [],
        serial,
        expires: options.expires,
        scope: options.scope ?? [],
      },
      deps.clock.now(),
    );
    const stdout = summary ? pointerSummary(fields) : await formatConfigMap(configMapFor(renderSignedPointer(fields)), format);
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

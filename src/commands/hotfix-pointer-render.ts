// `hotfix pointer render`: hotfix and rollout entries in, the anc-hotfix-version ConfigMap out (YAML or
// JSON, ready for `kubectl apply -f -` once signed). Writes nothing, needs no node.
import type { OutputFormat } from '../cli/output.ts';
import type { Command } from '../cli/command.ts';

interface RenderOptions {
  hotfix?: string[];
  rollout?: string[];
  serial?: string;
  expires?: string;
  scope?: string[];
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
  ],
  exitCodes: [
    [0, 'the ConfigMap was printed'],
    [1, 'usage: a flag missing or malformed (a version that is not a patch of its base, an expiry in the past)'],
  ],
  async run({ options }, deps) {
    const format = options.output === 'json' ? 'json' : 'yaml';
    const { pointerFieldsFromFlags } = await import('../pointer/render.ts');
    const { renderSignedPointer } = await import('../pointer/payload.ts');
    const { configMapFor, formatConfigMap } = await import('../pointer/configmap.ts');
    const fields = pointerFieldsFromFlags(
      {
        hotfix: options.hotfix ?? [],
        rollout: options.rollout ?? [],
        serial: options.serial,
        expires: options.expires,
        scope: options.scope ?? [],
      },
      deps.clock.now(),
    );
    return { exitCode: 0, stdout: await formatConfigMap(configMapFor(renderSignedPointer(fields)), format) };
  },
} satisfies Command<RenderOptions>;

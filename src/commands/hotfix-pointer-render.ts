// `hotfix pointer render`: hotfix and rollout entries in, the anc-hotfix-version ConfigMap out (YAML or
// JSON, ready for `kubectl apply -f -` once signed). Writes nothing, needs no node.
import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';

interface RenderOptions {
  hotfix?: string[];
  rollout?: string[];
  serial?: string;
  expires?: string;
  scope?: string[];
  output?: string;
}

export const hotfixPointerRenderCommand = {
  name: 'hotfix pointer render',
  description: 'Print the hotfix pointer ConfigMap (unsigned) for the given hotfixes and waves',
  options: [
    { flag: '--hotfix <base=version>', description: 'Hotfix for an image base, e.g. 202604.01=202604.01.1 (repeatable)', repeatable: true },
    { flag: '--rollout <base=percent:salt>', description: 'Wave for a base, e.g. 202604.01=10:wave-a (repeatable; absent = 100%)', repeatable: true },
    { flag: '--serial <n>', description: 'Serial, higher than every pointer published before (anti-rollback)' },
    { flag: '--expires <time>', description: 'RFC 3339 expiry, e.g. 2026-12-31T00:00:00Z' },
    { flag: '--scope <key=value>', description: 'cluster, region, subscription or resourceGroup the pointer is for (repeatable; none = every node)', repeatable: true },
    { flag: '-o, --output <format>', description: 'yaml (default) or json' },
  ],
  async run({ options }, deps) {
    const format = options.output ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw new AgentError('ANC_USAGE', `render prints a manifest: -o yaml or -o json (got "${format}")`, { hint: 'Pass -o yaml (default) or -o json.' });
    const { pointerFieldsFromFlags } = await import('../hotfix/pointer/render.ts');
    const { renderSignedPointer } = await import('../hotfix/pointer/payload.ts');
    const { configMapFor, formatConfigMap } = await import('../hotfix/pointer/configmap.ts');
    const fields = pointerFieldsFromFlags(
      { hotfix: options.hotfix ?? [], rollout: options.rollout ?? [], serial: options.serial, expires: options.expires, scope: options.scope ?? [] },
      deps.clock.now(),
    );
    return { exitCode: 0, stdout: await formatConfigMap(configMapFor(renderSignedPointer(fields)), format) };
  },
} satisfies Command<RenderOptions>;

// check-hotfix: stage the fleet's hotfix pointer from the cluster's anc-hotfix-version ConfigMap (spec 6.6,
// D1-D3). Always exit 0: pointer/check.ts holds the one fail-open wrapper; this file only wires the
// apiserver fetch (kube/) into it. Both modules load lazily (node:https is the expensive part).
import type { Command } from '../cli/command.ts';

export const checkHotfixCommand = {
  name: 'check-hotfix',
  args: '[...args]',
  description: 'Read the hotfix pointer from the cluster ConfigMap and stage it (fail-open, always exits 0)',
  options: [],
  allowUnknownOptions: true,
  failOpen: true,
  details: 'Fail-open: extra arguments and flags are logged and ignored, and every failure still exits 0.',
  examples: [['check-hotfix', 'what the launcher runs at boot when ENABLE_PROVISIONING_HOTFIX=true; `status` shows the outcome']],
  async run({ args }, deps) {
    const { runCheckHotfix } = await import('../pointer/check.ts');
    const fetchConfigMap = async (): Promise<string> => {
      const { fetchHotfixConfigMap } = await import('../kube/client.ts');
      return fetchHotfixConfigMap(deps);
    };
    return { exitCode: await runCheckHotfix(deps, { args, fetchConfigMap }) };
  },
} satisfies Command<{}>;

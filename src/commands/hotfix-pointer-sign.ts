// `hotfix pointer sign --key KEY.pem --key-id ID FILE`: adds a DSSE/Ed25519 signature to a rendered
// ConfigMap and prints it. The private key is read, used and dropped: never printed, logged or echoed.
import { AgentError } from '../platform/errors.ts';
import type { OutputFormat } from '../cli/output.ts';
import type { Command } from '../cli/command.ts';

const HELP = { hint: 'Run `aks-node-controller hotfix pointer sign --help` for the flags; docs/pointer-signing.md for the workflow.' };
import { readConfigFile as readInputFile } from './config-input.ts';

interface SignOptions {
  key?: string;
  keyId?: string;
  output?: OutputFormat;
}

export const hotfixPointerSignCommand = {
  name: 'hotfix pointer sign',
  args: '<file>',
  description: 'Sign a hotfix pointer ConfigMap (adds pointer.dsse.json) and print it',
  options: [
    { flag: '--key <file>', description: 'Ed25519 private key, PEM (PKCS#8)' },
    { flag: '--key-id <id>', description: 'Key id the nodes know this key by (in the baked key set)' },
  ],
  // -o text|json|yaml (the CLI's one output flag); a manifest's text form is YAML.
  output: true,
  defaultOutput: 'yaml',
  outputHelp: 'Output format: yaml (default, the signed ConfigMap; -o text prints the same YAML) or json',
  readOnly: true,
  examples: [
    ['hotfix pointer sign --key signing.pem --key-id fleet-2026 pointer.yaml', 'print the signed ConfigMap'],
    [
      'hotfix pointer render ... | aks-node-controller hotfix pointer sign --key signing.pem --key-id fleet-2026 - | kubectl apply -f -',
      'render, sign and publish in one line',
    ],
  ],
  exitCodes: [
    [0, 'the signed ConfigMap was printed'],
    [1, 'usage, an unreadable file, or a key that is not an Ed25519 private key'],
  ],
  async run({ args, options }, deps) {
    const [file, ...extra] = args;
    if (!file || extra.length > 0)
      throw new AgentError('ANC_USAGE', 'hotfix pointer sign needs exactly one ConfigMap file: sign --key KEY.pem --key-id ID FILE', HELP);
    if (!options.key || !options.keyId) throw new AgentError('ANC_USAGE', 'hotfix pointer sign needs --key FILE and --key-id ID', HELP);
    const format = options.output === 'json' ? 'json' : 'yaml';
    const { parseConfigMapText, signConfigMap, formatConfigMap } = await import('../pointer/configmap.ts');
    const doc = await parseConfigMapText(readInputFile(deps, file, 'ConfigMap'), file);
    const { bakedKeys } = await import('../pointer/keys.ts');
    const signed = signConfigMap(doc, readInputFile(deps, options.key, 'private key'), String(options.keyId), bakedKeys());
    const { expiryWarning } = await import('../pointer/expiry.ts');
    const warning = expiryWarning(pointerExpires(doc.data), deps.clock.now());
    return { exitCode: 0, stdout: await formatConfigMap(signed, format), ...(warning ? { stderr: `warning: ${warning}\n` } : {}) };
  },
} satisfies Command<SignOptions>;

/** The `expires` of the pointer a ConfigMap carries (its unsigned JSON copy), if it says one. */
function pointerExpires(data: Record<string, string>): string | undefined {
  try {
    const expires = (JSON.parse(data['hotfixes.json'] ?? '{}') as { expires?: unknown }).expires;
    return typeof expires === 'string' ? expires : undefined;
  } catch {
    return undefined;
  }
}

// custom-data (D11): renders the custom data that carries a node configuration to the VM, or (--decode)
// turns custom data back into the configuration for debugging.
import { AgentError } from '../platform/errors.ts';
import type { Deps } from '../platform/deps.ts';
import type { Command } from '../cli/command.ts';
import { readConfigFile, readConfiguration } from './config-input.ts';

interface CustomDataOptions {
  format?: string;
  raw?: boolean;
  decode?: boolean;
  showSecrets?: boolean;
}

function readInput(file: string | undefined, deps: Deps, decode: boolean): string {
  if (!file)
    throw new AgentError('ANC_USAGE', 'custom-data needs a file: custom-data [--format mime|cloud-config|ignition] [--raw] <config-file>');
  const path = file === '-' || file.startsWith('/') ? file : `${deps.cwd}/${file}`;
  return decode ? readConfigFile(deps, path, 'custom data file') : readConfiguration(deps, path);
}

/** The decoded configuration with its credentials replaced; refused when it cannot be read to find them. */
async function redacted(configJson: string): Promise<string> {
  const { redactConfigJson } = await import('../config/redact.ts');
  try {
    return redactConfigJson(configJson).text;
  } catch {
    throw new AgentError('ANC_CONFIG_INVALID', 'the embedded configuration is not JSON, so its credentials cannot be found and hidden', {
      hint: 'Pass --show-secrets to print it as it is (it may hold the bootstrap token).',
    });
  }
}

export const customDataCommand = {
  name: 'custom-data',
  args: '[file]',
  description: 'Render the custom data (base64) that makes a VM provision itself from a node configuration',
  options: [
    {
      flag: '--format <format>',
      description: 'mime (default: boothook + cloud-config), cloud-config (write_files) or ignition (Flatcar)',
      // The same list as CUSTOM_DATA_FORMATS (kept here so the command table loads no renderer; test-checked).
      values: ['mime', 'cloud-config', 'ignition'],
    },
    { flag: '--raw', description: 'Print the decoded document instead of base64', boolean: true },
    {
      flag: '--decode',
      description: 'Read custom data (base64 or decoded, any format) and print the embedded configuration',
      boolean: true,
    },
    { flag: '--show-secrets', description: 'with --decode: print credentials instead of <redacted>', boolean: true },
  ],
  readOnly: true,
  examples: [
    ['custom-data node.json', 'base64 custom data for the VM model (boothook + cloud-config)'],
    ['custom-data --format ignition --raw node.json', 'the decoded Ignition document (Flatcar)'],
    ['custom-data --decode customdata.txt', 'the configuration a VM was given, credentials <redacted>'],
    ['custom-data --decode --show-secrets customdata.txt', 'the same with the bootstrap token and keys in clear'],
  ],
  async run(input, deps) {
    const text = readInput(input.args[0], deps, input.options.decode === true);
    const cd = await import('../customdata/custom-data.ts');
    if (input.options.decode) {
      const { configJson } = cd.decodeCustomData(text);
      const shown = input.options.showSecrets ? configJson : await redacted(configJson);
      return { exitCode: 0, stdout: shown.endsWith('\n') ? shown : `${shown}\n` };
    }
    const format = input.options.format ?? 'mime';
    if (!(cd.CUSTOM_DATA_FORMATS as readonly string[]).includes(format)) {
      throw new AgentError('ANC_USAGE', `unknown --format "${format}"; use one of ${cd.CUSTOM_DATA_FORMATS.join(', ')}`);
    }
    const [{ loadConfiguration }, { marshalConfiguration }, { canonicalConfiguration }, { sha256Hex }] = await Promise.all([
      import('../config/load.ts'),
      import('../config/marshal.ts'),
      import('../config/canonical.ts'),
      import('../platform/hash.ts'),
    ]);
    const loaded = loadConfiguration(text);
    const errors = loaded.issues.filter((i) => i.severity === 'error');
    const warnings = loaded.issues.filter((i) => i.severity !== 'error').map((i) => `warning: ${i.path}: ${i.message}\n`);
    if (errors.length > 0) {
      const list = errors.map((i) => `${i.path}: ${i.message}`).join('; ');
      throw new AgentError('ANC_CONFIG_INVALID', `${input.args[0]} is not a usable configuration: ${list}`);
    }
    // D11/D12: the canonical form (defaults resolved, zero = absent) so two configurations with the same
    // payload hash give the same bytes and an unchanged configuration never looks changed to the VM model.
    const canonical = canonicalConfiguration(loaded.config);
    const configJson = marshalConfiguration(canonical, { omitImplicitZero: true });
    const data = { configJson, enabledFeatures: canonical.enabledFeatures, sha256Hex };
    const fmt = format as (typeof cd.CUSTOM_DATA_FORMATS)[number];
    const stdout = input.options.raw ? cd.renderCustomDataDocument(fmt, data) : `${cd.renderCustomData(fmt, data)}\n`;
    return { exitCode: 0, stdout, ...(warnings.length > 0 ? { stderr: warnings.join('') } : {}) };
  },
} satisfies Command<CustomDataOptions>;

import type { Command } from './command.ts';

export const versionCommand = {
  name: 'version',
  args: '[...args]',
  description: 'Print the version (-o json: also the baked hotfix-pointer signing key ids)',
  options: [{ flag: '-o, --output <format>', description: 'text (default) or json' }],
  async run({ options }, deps) {
    if (options.output !== 'json') return { exitCode: 0, stdout: `${deps.version}\n` };
    const { bakedKeys } = await import('../hotfix/pointer/keys.ts');
    const pointerKeyIds = bakedKeys().map((k) => k.keyid);
    return { exitCode: 0, stdout: `${JSON.stringify({ version: deps.version, pointerKeyIds })}\n` };
  },
} satisfies Command<{ output?: string }>;

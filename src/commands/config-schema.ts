// `config schema`: prints the JSON Schema (draft 2020-12) of the node configuration document.
import type { Command } from '../cli/command.ts';

export const configSchemaCommand = {
  name: 'config schema',
  args: '',
  description: 'Print the JSON Schema (draft 2020-12) of the node configuration file',
  options: [],
  readOnly: true,
  examples: [['config schema > aksnodeconfig.schema.json', 'a schema for editors (completion, validation)']],
  async run() {
    const { configurationJsonSchema } = await import('../config/json-schema.ts');
    return { exitCode: 0, stdout: `${JSON.stringify(configurationJsonSchema(), null, 2)}\n` };
  },
} satisfies Command<{}>;

// `config validate <file> [--strict] [--json]`: every problem of a node configuration file at once,
// each with its JSON path, what was found and what was expected. Exit 0 valid, 1 invalid/unreadable.
import { AgentError } from '../platform/errors.ts';
import type { Command } from './command.ts';
import { readConfigFile } from './config-input.ts';

interface ValidateOptions {
  strict?: boolean;
  json?: boolean;
}

export const configValidateCommand = {
  name: 'config validate',
  args: '<file>',
  description: 'Check a node configuration file and list every problem with its JSON path',
  options: [
    { flag: '--strict', description: 'Treat warnings (unknown fields, unknown enum names, missing required fields) as errors', boolean: true },
    { flag: '--json', description: 'Print the report as JSON: {valid, errors, warnings}', boolean: true },
  ],
  async run({ args, options }, deps) {
    const file = args[0];
    if (!file) throw new AgentError('ANC_USAGE', 'config validate needs the configuration file: config validate <file>');
    const text = readConfigFile(deps, file);
    const { validateConfigurationText, formatReport, jsonReport } = await import('../config/validate.ts');
    const report = validateConfigurationText(text, { strict: options.strict === true });
    const stdout = options.json === true ? jsonReport(file, report) : formatReport(file, report);
    return { exitCode: report.valid ? 0 : 1, stdout };
  },
} satisfies Command<ValidateOptions>;

// `config validate [-o text|json|yaml] [--strict] <file>`: every problem of a node configuration file at once,
// each with its JSON path, what was found and what was expected. Exit 0 valid, 1 invalid/unreadable.
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';
import { readConfiguration } from './config-input.ts';
import { type OutputFormat, render } from '../cli/output.ts';

interface ValidateOptions {
  strict?: boolean;
  output?: OutputFormat;
}

export const configValidateCommand = {
  name: 'config validate',
  args: '<file>',
  description: 'Check a node configuration file and list every problem with its JSON path',
  options: [
    {
      flag: '--strict',
      description: 'Treat warnings (unknown fields, unknown enum names, missing required fields) as errors',
      boolean: true,
    },
  ],
  output: true,
  readOnly: true,
  details: 'The file may be `-` for stdin. -o json|yaml prints {file, valid, strict, errors, warnings}.',
  examples: [
    ['config validate node.json', 'every problem, each with its JSON path, what was found and what was expected'],
    ['config validate --strict -o json node.json', 'warnings count as errors; a report for machines'],
  ],
  exitCodes: [[1, 'invalid (or unreadable) configuration']],
  async run({ args, options }, deps) {
    const file = args[0];
    if (!file) throw new AgentError('ANC_USAGE', 'config validate needs the configuration file: config validate <file>');
    const text = readConfiguration(deps, file);
    const { validateConfigurationText, formatReport } = await import('../config/validate.ts');
    const report = validateConfigurationText(text, { strict: options.strict === true });
    const value = { file, valid: report.valid, strict: report.strict, errors: report.errors, warnings: report.warnings };
    const stdout = await render(options.output, value, () => formatReport(file, report));
    return { exitCode: report.valid ? 0 : 1, stdout };
  },
} satisfies Command<ValidateOptions>;

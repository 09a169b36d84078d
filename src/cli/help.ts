// Help for people, generated from the command table: the root and every group list their commands; a
// command's help has its description, flags, examples and exit codes.
import type { AnyCommand, OptionSpec } from './command.ts';
import { groupOf, PROGRAM } from './command-tree.ts';
import { OUTPUT_OPTION } from './output.ts';

const HELP_OPTION: OptionSpec = { flag: '-h, --help', description: 'Show this help' };

/** Every flag a command accepts, as shown to people (its own, then -o, then -h). */
export function commandFlags(command: AnyCommand): OptionSpec[] {
  const output = command.outputHelp
    ? { ...OUTPUT_OPTION, description: command.outputHelp }
    : command.defaultOutput === 'yaml'
      ? { ...OUTPUT_OPTION, description: 'Output format: yaml (default, the manifest), json, or text (a summary for people)' }
      : OUTPUT_OPTION;
  return [...command.options, ...(command.output ? [output] : []), HELP_OPTION];
}

/** Exit codes of a command: 0 and 1 always, then its own. */
export function commandExitCodes(command: AnyCommand): (readonly [number, string])[] {
  const own = command.exitCodes ?? [];
  // Fail-open: 0 whatever happens once it runs; 1 only for a flag it does not know (when it refuses those).
  if (command.failOpen)
    return [
      [0, 'always, once it runs (fail-open: a failure is logged and carried in its event)'],
      ...(command.allowUnknownOptions ? [] : [[1, 'usage error only (a flag it does not know): nothing ran'] as const]),
    ];
  const base: (readonly [number, string])[] = [
    [0, 'success'],
    [1, 'error (usage, unreadable or invalid input)'],
  ];
  return [...base.filter(([code]) => !own.some(([c]) => c === code)), ...own].sort((a, b) => a[0] - b[0]);
}

const table = (rows: (readonly [string, string])[]) => {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n');
};

export function usageLine(command: AnyCommand): string {
  const flags = command.options.length > 0 || command.output ? ' [flags]' : '';
  return `${PROGRAM} ${command.name}${flags}${command.args ? ` ${command.args}` : ''}`;
}

export function groupHelp(name: string, commands: readonly AnyCommand[]): string {
  const group = groupOf(name, commands);
  const head = name === '' ? `${PROGRAM}: ${group.description}` : `${PROGRAM} ${name}: ${group.description}`;
  const rows = group.children.map((c) => [c.word, c.description] as const);
  const where = name === '' ? '' : ` ${name}`;
  return [
    head,
    '',
    'Usage:',
    `  ${PROGRAM}${where} <command> [flags]`,
    '',
    'Commands:',
    table(rows),
    '',
    `Run \`${PROGRAM}${where} <command> --help\` for a command's flags, examples and exit codes.`,
    ...(name === ''
      ? [
          '',
          'Flags:',
          table([
            ['-h, --help', 'Show this help'],
            ['-v, --version', "Print `aks-node-controller version <v>` (the reference's line; `version` prints it bare)"],
          ]),
        ]
      : []),
    '',
  ].join('\n');
}

export function commandHelp(command: AnyCommand): string {
  const lines = [`${PROGRAM} ${command.name}: ${command.description}`, '', 'Usage:', `  ${usageLine(command)}`];
  if (command.details) lines.push('', ...command.details.split('\n'));
  lines.push('', 'Flags:', table(commandFlags(command).map((o) => [o.flag, o.description] as const)));
  if (command.examples?.length) {
    lines.push('', 'Examples:');
    for (const [line, what] of command.examples) lines.push(`  # ${what}`, `  ${PROGRAM} ${line}`);
  }
  lines.push('', 'Exit codes:', table(commandExitCodes(command).map(([code, meaning]) => [String(code), meaning] as const)), '');
  return lines.join('\n');
}

// A command's arguments into what its run() gets: `-o` taken out and checked, unknown flags refused with
// did-you-mean (fail-open commands get them as arguments), flags parsed by cac, extra positional
// arguments refused.
import { cac } from 'cac';
import { coerceBooleans, isKnownFlag, rawOptionValues, takeOutputFlag } from './argv.ts';
import type { AnyCommand } from './command.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { didYouMean, PROGRAM } from './command-tree.ts';
import { outputFormat } from './output.ts';

const flagName = (arg: string) => arg.split('=')[0]!;

/** Whether the arguments parse without a usage error (main opens no log for one: issue 40). */
export function parsesCleanly(command: AnyCommand, rest: string[]): boolean {
  if (rest.length === 0) return true; // the boot path: nothing to parse
  try {
    parseInput(command, rest);
    return true;
  } catch {
    return false;
  }
}

export function parseInput(command: AnyCommand, rest: string[]): { args: string[]; options: Record<string, unknown> } {
  const taken = command.output ? takeOutputFlag(rest) : { format: undefined, args: rest };
  // kubectl's `-o wide` is the text view with --wide, where the command has one.
  const wide = taken.format === 'wide';
  if (wide && !command.options.some((o) => o.flag.startsWith('--wide')))
    throw new AgentError('ANC_USAGE', `-o wide: ${command.name} has no wider view; use -o text, -o json or -o yaml`, {
      hint: 'Commands with a wider view take -o wide (or --wide): status, hotfix rollout status.',
    });
  const format = wide ? undefined : taken.format;
  const withoutOutput = wide ? [...taken.args, '--wide'] : taken.args;
  const unknown = withoutOutput.find((a) => a.startsWith('-') && a !== '--' && a !== '-' && !isKnownFlag(command, a));
  if (unknown && !command.allowUnknownOptions) {
    const names = command.options.map((o) => `--${o.flag.replace(/^--/, '').split(' ')[0]}`);
    if (command.output) names.push('--output');
    const near = didYouMean(flagName(unknown), names);
    throw new AgentError('ANC_USAGE', `flag provided but not defined: ${flagName(unknown)}${near ? ` (did you mean ${near}?)` : ''}`, {
      hint: `Run \`${PROGRAM} ${command.name} --help\` to see its flags.`,
    });
  }
  // The parser drops a lone `-` (stdin as a file argument); it passes through under another name.
  const STDIN = '\u0000stdin';
  // No arguments (what the boot path runs): nothing to parse, and cac's set-up is skipped.
  const parsed =
    withoutOutput.length === 0
      ? { args: [], options: {} }
      : parseWithCac(
          command,
          withoutOutput.map((a) => (a === '-' ? STDIN : isBareBoolean(command, a) ? `${a}=true` : a)),
        );
  // Fail-open commands get everything that is not one of their own flags, as written.
  const args = command.allowUnknownOptions
    ? withoutOutput.filter((a) => !(a.startsWith('-') && isKnownFlag(command, a)))
    : parsed.args.map((a) => (a === STDIN ? '-' : String(a)));
  const max = maxPositionals(command);
  if (args.length > max && !command.allowUnknownOptions) {
    throw new AgentError('ANC_USAGE', `unexpected ${command.name} arguments: ${args.slice(max).join(' ')}`, {
      hint: `Run \`${PROGRAM} ${command.name} --help\` for its usage.`,
    });
  }
  const { '--': _rest, ...options } = parsed.options;
  const typed = coerceBooleans(command, rawOptionValues(command, ['', ...withoutOutput], options));
  if (command.output) typed.output = format === undefined && command.defaultOutput ? command.defaultOutput : outputFormat(format);
  return { args, options: typed };
}

/**
 * A boolean flag given without `=value`. cac takes the next word as the value of a dashed boolean
 * (`--show-secrets file` would swallow the file), so it is handed over as `--flag=true`.
 */
function isBareBoolean(command: AnyCommand, arg: string): boolean {
  return command.options.some((o) => o.boolean && `--${o.flag.replace(/^--/, '')}` === arg);
}

function parseWithCac(command: AnyCommand, argv: string[]): { args: readonly string[]; options: Record<string, unknown> } {
  const cli = cac(PROGRAM);
  const registered = cli.command(`${command.name} [...args]`);
  for (const option of command.options) registered.option(option.flag, option.description);
  try {
    return cli.parse(['node', PROGRAM, command.name, ...argv], { run: false });
  } catch (error) {
    throw new AgentError('ANC_USAGE', errorMessage(error), { hint: `Run \`${PROGRAM} ${command.name} --help\` to see its flags.` });
  }
}

/** How many positional arguments the usage line allows (`<old> <new>` = 2, `[...args]` = any). */
function maxPositionals(command: AnyCommand): number {
  const spec = command.args ?? '';
  if (spec.includes('...')) return Number.POSITIVE_INFINITY;
  return spec.split(/\s+/).filter(Boolean).length;
}

// Turning argv into what cac parses and back into what commands get: Go-style flags, the `-o` output
// flag, raw option values, `--flag=true|false` booleans.
import { AgentError, clip } from '../platform/errors.ts';
import type { AnyCommand } from './command.ts';

/** The reference accepts Go-style single-dash long flags (`-provision-config=x`); cac wants two dashes. */
export function normaliseFlag(arg: string): string {
  // `-ojson`: kubectl's short flag joined to its value (no command has a long flag starting with o but --output).
  if (OUTPUT_JOINED.test(arg)) return arg;
  return /^-[a-zA-Z][\w-]+(=.*)?$/.test(arg) && !/^-[a-zA-Z]$/.test(arg.split('=')[0]!) ? '-' + arg : arg;
}

/** `-ojson`, `-oyaml`, `-otext`: the joined form kubectl (pflag) users type; never `-output`. */
const OUTPUT_JOINED = /^-o(?!utput(?:=|$))[a-z]+$/;

/**
 * Takes `-o F`, `-o=F`, `-oF`, `--output F` and `--output=F` (and Go's `-output F`, normalised before) out of a command's arguments (the last one wins).
 * A flag without its value leaves `format` as '' so the caller reports it.
 */
export function takeOutputFlag(args: readonly string[]): { format: string | undefined; args: string[] } {
  let format: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const inline = /^(?:-o|--output)=(.*)$/.exec(arg);
    if (inline) format = inline[1]!;
    else if (OUTPUT_JOINED.test(arg)) format = arg.slice(2);
    else if (arg === '-o' || arg === '--output') format = args[++i] ?? '';
    else rest.push(arg);
  }
  return { format, args: rest };
}

const optionKey = (flag: string) =>
  flag
    .replace(/^--/, '')
    .split(' ')[0]!
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Values of flags that take one, exactly as typed: the parser turns number-like text into numbers
 * (`202604.10` would become 202604.1), and versions and paths must stay text.
 */
export function rawOptionValues(command: AnyCommand, argv: string[], options: Record<string, unknown>): Record<string, unknown> {
  for (const spec of command.options) {
    if (!spec.flag.includes('<')) continue;
    const name = spec.flag.replace(/^--/, '').split(' ')[0]!;
    for (let i = 1; i < argv.length; i++) {
      const arg = argv[i]!;
      let value: string | undefined;
      if (arg === `--${name}` && i + 1 < argv.length) value = argv[i + 1];
      else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
      if (value === undefined) continue;
      // `--pointer=` would otherwise mean the current directory, `--timeout=` zero.
      if (value === '') throw new AgentError('ANC_USAGE', `flag --${name} needs a value (got an empty one)`);
      options[optionKey(spec.flag)] = value;
    }
  }
  return repeatedOptionValues(command, argv, options);
}

/** A duration flag: decimal seconds only (`10`, `2.5`); hex, exponents, signs and words are refused. */
export function parseSeconds(flag: string, value: unknown): number {
  const text = String(value);
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new AgentError(
      'ANC_USAGE',
      `invalid --${flag} value ${JSON.stringify(clip(text))}: want a positive decimal number of seconds (for example 30 or 2.5)`,
    );
  }
  return seconds;
}

export function coerceBooleans(command: AnyCommand, options: Record<string, unknown>): Record<string, unknown> {
  for (const spec of command.options) {
    if (!spec.boolean) continue;
    const key = optionKey(spec.flag);
    const value = options[key];
    if (value === 'true') options[key] = true;
    else if (value === 'false') options[key] = false;
    else if (value !== undefined && typeof value !== 'boolean') {
      throw new AgentError('ANC_USAGE', `invalid boolean value "${clip(String(value))}" for flag --${spec.flag.slice(2)}`);
    }
  }
  return options;
}

export function isKnownFlag(command: AnyCommand, arg: string): boolean {
  const name = arg.replace(/^-+/, '').split('=')[0];
  return name === 'help' || name === 'h' || command.options.some((o) => o.flag.replace(/^--/, '').split(' ')[0] === name);
}

/** Flags marked `repeatable` (`--hotfix A --hotfix B`): every value, in order, as a list (none: []). */
function repeatedOptionValues(command: AnyCommand, argv: string[], options: Record<string, unknown>): Record<string, unknown> {
  for (const spec of command.options) {
    if (!spec.repeatable) continue;
    const name = spec.flag.replace(/^--/, '').split(' ')[0]!;
    const values: string[] = [];
    for (let i = 1; i < argv.length; i++) {
      if (argv[i] === `--${name}` && i + 1 < argv.length) values.push(argv[++i]!);
      else if (argv[i]!.startsWith(`--${name}=`)) values.push(argv[i]!.slice(name.length + 3));
    }
    options[optionKey(spec.flag)] = values;
  }
  return options;
}

// run(argv, deps): the whole CLI in-process (STYLE 8.1). Parses with cac, dispatches to the command
// table, turns results and AgentErrors into output and one exit code.
import { cac } from 'cac';
import type { Deps } from '../platform/deps.ts';
import { AgentError, clip, clipEchoes, errorMessage, isAgentError } from '../platform/errors.ts';
import type { AnyCommand } from './command.ts';
import { coerceBooleans, isKnownFlag, joinCommandWords, normaliseFlag, rawOptionValues } from './argv.ts';

const NAME = 'aks-node-controller';

function validNames(commands: readonly AnyCommand[]): string {
  return commands.filter((c) => !c.hidden).map((c) => c.name).join(', ');
}

export async function run(rawArgv: string[], deps: Deps, commands: readonly AnyCommand[]): Promise<number> {
  const argv = joinCommandWords(rawArgv.map(normaliseFlag), commands);
  const first = argv[0];
  if (first === '--version' || first === '-v') {
    deps.stdout.write(`${NAME} version ${deps.version}\n`);
    return 0;
  }
  const cli = cac(NAME);
  cli.usage('<command> [options]');
  for (const command of commands) {
    const registered = cli.command(`${command.name} ${command.args ?? ''}`.trim(), command.hidden ? '' : command.description);
    for (const option of command.options) registered.option(option.flag, option.description);
  }
  cli.help();
  if (first === undefined) {
    deps.stderr.write(`${NAME}: missing command; valid commands: ${validNames(commands)}\n`);
    return 1;
  }
  if (first === 'help' || first === 'h') {
    const target = argv[1] ? commands.find((c) => c.name === argv[1]) : undefined;
    return printHelp(cli, target ? [target.name, '--help'] : ['--help']);
  }
  const command = commands.find((c) => c.name === first);
  if (!command) {
    if (first.startsWith('-') && !argv.includes('--help') && !argv.includes('-h')) {
      deps.stderr.write(`Incorrect Usage: flag provided but not defined: ${clip(first.split('=')[0]!)}\n`);
      return 1;
    }
    if (first === '--help' || first === '-h') return printHelp(cli, ['--help']);
    deps.stderr.write(`${NAME}: unknown command "${clip(first)}"; valid commands: ${validNames(commands)}\n`);
    return 1;
  }
  if (argv.includes('--help') || argv.includes('-h')) return printHelp(cli, argv);
  let parsed: { args: readonly string[]; options: Record<string, unknown> };
  try {
    parsed = cli.parse(['node', NAME, ...argv], { run: false });
    if (command.allowUnknownOptions) {
      // Everything after the command that is not one of its own flags is handed over as written.
      parsed = { args: argv.slice(1).filter((a) => !(a.startsWith('-') && isKnownFlag(command, a))), options: parsed.options };
    } else {
      cli.matchedCommand?.checkUnknownOptions();
    }
  } catch (error) {
    const unknown = argv.slice(1).find((a) => a.startsWith('-') && !isKnownFlag(command, a));
    deps.stderr.write(`Incorrect Usage: ${unknown ? `flag provided but not defined: ${clip(unknown.split('=')[0]!)}` : clip(errorMessage(error))}\n`);
    return 1;
  }
  try {
    const { '--': _rest, ...options } = parsed.options;
    const typed = coerceBooleans(command, rawOptionValues(command, argv, options));
    const result = await command.run({ args: parsed.args.slice(0), options: typed }, deps);
    if (result.stdout) deps.stdout.write(result.stdout);
    if (result.stderr) deps.stderr.write(result.stderr);
    return result.exitCode;
  } catch (error) {
    return reportError(error, deps);
  }
}

function printHelp(cli: ReturnType<typeof cac>, argv: string[]): number {
  cli.parse(['node', NAME, ...argv], { run: false });
  return 0;
}

/** Prints a thrown error once: the message and what to do. Unknown throws are bugs, said as such. */
export function reportError(error: unknown, deps: Deps): number {
  const agentError = isAgentError(error)
    ? error
    : new AgentError('ANC_INTERNAL', `unexpected error: ${errorMessage(error)}`, { cause: error });
  const message = clipEchoes(agentError.message);
  deps.log.error('aks-node-controller failed', { error: message, code: agentError.code });
  deps.stderr.write(`${NAME}: ${message}\nhint: ${agentError.hint}\n`);
  return agentError.exitCode;
}

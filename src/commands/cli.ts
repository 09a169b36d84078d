// run(argv, deps): the whole CLI in-process (STYLE 8.1). Finds the command in the table (groups and
// did-you-mean from command-tree.ts), parses its flags with cac, runs it, and turns results and
// AgentErrors into output and one exit code. Help is generated from the table (help.ts).
import type { Deps } from '../platform/deps.ts';
import { AgentError, clip, clipEchoes, ERROR_CODES, errorMessage, isAgentError } from '../platform/errors.ts';
import { normaliseFlag } from '../cli/argv.ts';
import type { AnyCommand } from '../cli/command.ts';
import { didYouMean, groupOf, matchCommandWords, PROGRAM } from '../cli/command-tree.ts';
import { commandHelp, groupHelp } from '../cli/help.ts';
import { parseInput, parsesCleanly } from '../cli/parse.ts';

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** Whether argv runs a read-only command: no node log file and no events (main decides the Deps by it). */
export function isReadOnlyInvocation(rawArgv: readonly string[], commands: readonly AnyCommand[]): boolean {
  const argv = rawArgv.map(normaliseFlag);
  const match = matchCommandWords(argv[0] === '--version' || argv[0] === '-v' ? ['version'] : argv, commands);
  if (!match.command) return true; // help, groups, typos: nothing runs
  const rest = argv.slice(match.words);
  // Help and usage errors (did-you-mean included) run nothing, so they write nothing: no log, no event.
  if (rest.some(isHelpFlag) || !parsesCleanly(match.command, rest)) return true;
  const readOnly = match.command.readOnly;
  return typeof readOnly === 'function' ? readOnly(rest) : readOnly === true;
}

export async function run(rawArgv: string[], deps: Deps, commands: readonly AnyCommand[]): Promise<number> {
  let argv = rawArgv.map(normaliseFlag);
  // `--version` / `-v` alone print the reference's line, which tooling written for it parses; with more
  // arguments (`-v -o json`) they are the `version` command.
  if ((argv[0] === '--version' || argv[0] === '-v') && argv.length === 1) return print(deps, `${PROGRAM} version ${deps.version}\n`);
  if (argv[0] === '--version' || argv[0] === '-v') argv = ['version', ...argv.slice(1)];
  const first = argv[0];
  if (first === undefined)
    return usageError(
      deps,
      `missing command; valid commands: ${groupOf('', commands)
        .children.map((c) => c.word)
        .join(', ')}`,
    );
  if (first === 'help' || first === 'h' || isHelpFlag(first)) return showHelp(argv.slice(1), deps, commands);
  if (first.startsWith('-')) {
    const near = didYouMean(first.split('=')[0]!, ['--help', '--version']);
    return usageError(
      deps,
      `Incorrect Usage: flag provided but not defined: ${clip(first.split('=')[0]!)}${near ? ` (did you mean ${near}?)` : ''}`,
      true,
    );
  }
  const match = matchCommandWords(argv, commands);
  if (match.group !== undefined) {
    const next = argv[match.words];
    if (next === undefined || isHelpFlag(next)) return print(deps, groupHelp(match.group, commands));
    return unknownCommand(deps, commands, match.group, next);
  }
  const command = match.command;
  if (!command) return unknownCommand(deps, commands, '', first);
  const rest = argv.slice(match.words);
  if (rest.some(isHelpFlag)) return print(deps, commandHelp(command));
  try {
    const input = parseInput(command, rest);
    const result = await command.run({ ...input, commands }, deps);
    if (result.stdoutBytes) deps.stdout.write(result.stdoutBytes);
    else if (result.stdout) deps.stdout.write(result.stdout);
    if (result.stderr) deps.stderr.write(result.stderr);
    return result.exitCode;
  } catch (error) {
    return reportError(error, deps, command.readOnly === true);
  }
}

function showHelp(words: string[], deps: Deps, commands: readonly AnyCommand[]): number {
  const target = words.filter((w) => !isHelpFlag(w));
  if (target.length === 0) return print(deps, groupHelp('', commands));
  const match = matchCommandWords(target, commands);
  if (match.words < target.length || match.words === 0) {
    const group = target.slice(0, match.words).join(' ');
    return unknownCommand(deps, commands, group, target[match.words]!);
  }
  return print(deps, match.command ? commandHelp(match.command) : groupHelp(match.group!, commands));
}

function unknownCommand(deps: Deps, commands: readonly AnyCommand[], group: string, word: string): number {
  // `help` is a command too (`hlep` -> help), though it is not in the table.
  const candidates = [...groupOf(group, commands).children.map((c) => c.word), ...(group ? [] : ['help'])];
  const near = didYouMean(word, candidates);
  const typed = clip(group ? `${group} ${word}` : word);
  const suggestion = near ? `did you mean ${group ? `${group} ${near}` : near}?` : `valid commands: ${candidates.join(', ')}`;
  deps.stderr.write(
    `${PROGRAM}: unknown command "${typed}"; ${suggestion}\nhint: Run \`${PROGRAM}${group ? ` ${group}` : ''} --help\` to see the commands.\n`,
  );
  return 1;
}

function usageError(deps: Deps, message: string, bare = false): number {
  deps.stderr.write(`${bare ? '' : `${PROGRAM}: `}${message}\nhint: Run \`${PROGRAM} --help\` to see the commands and their flags.\n`);
  return 1;
}

function print(deps: Deps, text: string): number {
  deps.stdout.write(text);
  return 0;
}

/** Prints a thrown error once: the message and what to do. Unknown throws are bugs, said as such. */
export function reportError(error: unknown, deps: Deps, readOnly = false): number {
  const agentError = isAgentError(error)
    ? error
    : new AgentError('ANC_INTERNAL', `unexpected error: ${errorMessage(error)}`, { cause: error });
  // A read-only command runs as any user: "readable by root" is the node path's hint, not this one's.
  const hint =
    readOnly && agentError.code === 'ANC_CONFIG_UNREADABLE' && agentError.hint === ERROR_CODES.ANC_CONFIG_UNREADABLE.hint
      ? 'Check that the file exists, is a regular file and is readable by the user running this command.'
      : agentError.hint;
  const message = clipEchoes(agentError.message);
  deps.log.error('aks-node-controller failed', { error: message, code: agentError.code });
  const usage = agentError.code === 'ANC_USAGE' && message.startsWith('flag provided');
  deps.stderr.write(`${usage ? 'Incorrect Usage: ' : `${PROGRAM}: `}${message}\nhint: ${hint}\n`);
  return agentError.exitCode;
}

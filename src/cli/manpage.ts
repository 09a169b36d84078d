// The man page (roff, section 8) generated from the command table: every command with its description,
// flags, examples and exit codes, then the environment and the files an operator looks at.
import type { AnyCommand } from './command.ts';
import { NODE_PATHS } from '../platform/paths.ts';
import { PROGRAM } from './command-tree.ts';
import { commandExitCodes, commandFlags, usageLine } from './help.ts';

/** roff-safe text: backslashes and hyphens escaped, no line starting with a control character. */
const roff = (text: string) =>
  text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1');

export function manPage(commands: readonly AnyCommand[], version: string): string {
  const out = [
    `.TH AKS\\-NODE\\-CONTROLLER 8 "" "${roff(PROGRAM)} ${roff(version)}" "System Administration"`,
    '.SH NAME',
    `${roff(PROGRAM)} \\- turns a fresh Kubernetes VM into a working AKS node`,
    '.SH SYNOPSIS',
    `.B ${roff(PROGRAM)}`,
    '.I command',
    '.RI [ flags ]',
    '.SH DESCRIPTION',
    'Reads the node configuration the AKS control plane put into the VM, validates it, runs the provisioning scripts and records the status files the Azure CustomScript extension reads. At boot it can also take a newer patch of itself (a hotfix) from the package repository.',
    'Commands that only read (config, custom\\-data, hotfix explain, provision \\-\\-dry\\-run, status, version) work as any user and write no log file.',
    '.SH COMMANDS',
  ];
  for (const command of commands.filter((c) => !c.hidden)) {
    out.push(`.SS ${roff(command.name)}`, roff(command.description), '.PP', `.B ${roff(usageLine(command))}`);
    if (command.details) out.push('.PP', roff(command.details).replace(/\n/g, '\n.br\n'));
    for (const flag of commandFlags(command)) out.push('.TP', `.B ${roff(flag.flag)}`, roff(flag.description));
    for (const [line, what] of command.examples ?? []) out.push('.PP', `${roff(what)}:`, '.RS', `.B ${roff(`${PROGRAM} ${line}`)}`, '.RE');
    out.push('.PP', 'Exit codes:');
    for (const [code, meaning] of commandExitCodes(command)) out.push('.TP', `.B ${code}`, roff(meaning));
  }
  out.push(
    '.SH ENVIRONMENT',
    '.TP',
    '.B AKS_NODE_ROOT',
    "Prefix for every on\\-node path (a sandbox root, or a copy of a node's files to inspect with status).",
    '.TP',
    '.B ANC_LOG_STDERR',
    'The JSON log lines also go to stderr: 1 always, 0 never. By default node commands echo them when stderr is not a terminal (the journal), read\\-only commands never.',
    '.SH FILES',
    '.TP',
    `.I ${roff(NODE_PATHS.logFile)}`,
    'The JSON log of every node command.',
    '.TP',
    `.I ${roff(NODE_PATHS.provisionJson)}`,
    'The provisioning result (ExitCode, Error, Output); status names its exit code.',
    '.TP',
    `.I ${roff(NODE_PATHS.eventsDir)}`,
    'One guest\\-agent event per step; status shows them as a timeline.',
    '.TP',
    `.I ${roff(NODE_PATHS.hotfixPointer)}`,
    'The staged hotfix pointer; hotfix explain shows the decision.',
    '.SH SEE ALSO',
    `Run \\fB${roff(PROGRAM)} <command> \\-\\-help\\fR for the same information on one command.`,
    '',
  );
  return out.join('\n');
}

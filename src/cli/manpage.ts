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
    '.TP',
    '.B ENABLE_PROVISIONING_HOTFIX',
    'true: the launcher runs check\\-hotfix at boot to read the cluster\\(aqs hotfix pointer (from the unit\\(aqs environment or enabled_features.sh).',
    '.TP',
    '.B ANC_HOTFIX_POINTER_SIGNING',
    'enforce: check\\-hotfix accepts only a signed pointer; unsigned\\-allowed (the default): an unsigned pointer is accepted too. Any other value enforces. Set in enabled_features.sh.',
    '.TP',
    '.B KUBECONFIG',
    'The operator commands that read a cluster (hotfix pointer render and verify, hotfix rollout status and watch) merge its files as kubectl does when \\-\\-kubeconfig is not given (else ~/.kube/config), and use its current\\-context unless \\-\\-context names another.',
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
    '.TP',
    `.I ${roff(NODE_PATHS.nodeConfig)}`,
    'The node configuration the custom data wrote; config validate checks a copy.',
    '.TP',
    `.I ${roff(NODE_PATHS.hotfixBinary)}`,
    'The staged hotfix binary; the launcher runs it when it passes its checks (status says when it refuses it).',
    '.TP',
    `.I ${roff(NODE_PATHS.hotfixQuarantine)}`,
    'The quarantine record: hotfix versions that failed on this node before the scripts and are never taken again.',
    '.TP',
    `.I ${roff(NODE_PATHS.hotfixPointerSerial)}`,
    'The serial state: the highest signed\\-pointer serial this node accepted (anti\\-rollback).',
    '.TP',
    `.I ${roff(NODE_PATHS.scriptHotfixState)}`,
    'The script\\-hotfix record: what a script payload replaced, the backups of the originals and the last restore.',
    '.TP',
    `.I ${roff(NODE_PATHS.bootId)}`,
    'The kernel\\(aqs boot id; status compares it (and /proc/<pid>/stat) with what the agent logged to tell a live run from a dead one.',
    '.SH SEE ALSO',
    `Run \\fB${roff(PROGRAM)} <command> \\-\\-help\\fR for the same information on one command.`,
    '',
  );
  return out.join('\n');
}

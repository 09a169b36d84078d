// The command table seen as a tree of words: which words name a command, which a group (`config`,
// `hotfix`, and any deeper prefix a later command adds), and the nearest name to a typo. Help,
// completion and the man page are all generated from this, so a new command needs no change here.
import type { AnyCommand } from './command.ts';

export const PROGRAM = 'aks-node-controller';

/** Descriptions of the groups; a group without one is described by its subcommands' names. */
const GROUP_DESCRIPTIONS: Record<string, string> = {
  config: 'Work with node configuration files: validate, schema, hash, diff',
  hotfix: 'Inspect and publish hotfixes of the agent',
  'hotfix pointer': "Render, sign and verify the hotfix pointer (the fleet's anc-hotfix-version ConfigMap)",
  'hotfix rollout': "Follow a hotfix rollout from the nodes' own reports: status, watch",
  image: 'What an image holds: its manifest of scripts, platform and baked agent, and what changed since',
};

export interface CommandGroup {
  name: string;
  description: string;
  /** Commands and subgroups directly under this group, in table order. */
  children: { name: string; word: string; description: string; group: boolean }[];
}

const visible = (commands: readonly AnyCommand[]) => commands.filter((c) => !c.hidden);

/** The longest run of leading argv words that names a command or a group, and what it names. */
export function matchCommandWords(
  argv: readonly string[],
  commands: readonly AnyCommand[],
): { words: number; command?: AnyCommand; group?: string } {
  let best: { words: number; command?: AnyCommand; group?: string } = { words: 0 };
  for (let n = 1; n <= argv.length; n++) {
    const name = argv.slice(0, n).join(' ');
    if (argv[n - 1]!.startsWith('-')) break;
    const command = commands.find((c) => c.name === name);
    if (command) best = { words: n, command };
    else if (isGroup(name, commands)) best = { words: n, group: name };
    else break;
  }
  return best;
}

export function isGroup(name: string, commands: readonly AnyCommand[]): boolean {
  return commands.some((c) => c.name.startsWith(`${name} `));
}

/** Group `''` is the root. */
export function groupOf(name: string, commands: readonly AnyCommand[]): CommandGroup {
  const prefix = name === '' ? '' : `${name} `;
  const children: CommandGroup['children'] = [];
  for (const command of visible(commands)) {
    if (!command.name.startsWith(prefix)) continue;
    const word = command.name.slice(prefix.length).split(' ')[0]!;
    const full = `${prefix}${word}`;
    if (children.some((c) => c.word === word)) continue;
    const group = full !== command.name;
    children.push({ name: full, word, group, description: group ? groupDescription(full, commands) : command.description });
  }
  return {
    name,
    description: name === '' ? 'The agent that turns a fresh Kubernetes VM into a working AKS node' : groupDescription(name, commands),
    children,
  };
}

function groupDescription(name: string, commands: readonly AnyCommand[]): string {
  const known = GROUP_DESCRIPTIONS[name];
  if (known) return known;
  const words = visible(commands)
    .filter((c) => c.name.startsWith(`${name} `))
    .map((c) => c.name.slice(name.length + 1));
  return `Commands: ${words.join(', ')}`;
}

/** Edit distance (insert, delete, substitute, swap of neighbours). */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate when it is close enough to be a typo (or a prefix), else undefined. */
export function didYouMean(typed: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const score = name.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, name);
    if (!best || score < best.score) best = { name, score };
  }
  if (!best) return undefined;
  return best.score <= Math.max(2, Math.floor(typed.length / 3)) ? best.name : undefined;
}

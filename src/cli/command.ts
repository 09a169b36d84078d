// The one shape every subcommand has (STYLE 8.2): flags in, domain call, output out. Commands return
// their output instead of printing it, and never exit the process.
import type { Deps } from '../platform/deps.ts';

export interface OptionSpec {
  /** cac raw name, e.g. `--provision-config <file>` or `--dry-run`. */
  flag: string;
  description: string;
  /** Boolean flags also accept `--flag=true|false` like the reference CLI. */
  boolean?: boolean;
  /** The flag may be given several times; the command gets every value, in order, as a list. */
  repeatable?: boolean;
  /** The closed set of values the flag takes (shell completion offers them). */
  values?: readonly string[];
}

export interface CommandInput<O> {
  args: string[];
  options: O;
  /** The table the CLI dispatched from (completion and the man page are generated from it). */
  commands?: readonly AnyCommand[];
}

export interface CommandResult {
  exitCode: number;
  /** Printed to stdout once the command returns (JSON for machines, text for people). */
  stdout?: string;
  /** Printed to stdout as they are, instead of `stdout` (a file's bytes, which text output would escape). */
  stdoutBytes?: Uint8Array;
  /** Printed to stderr once the command returns. */
  stderr?: string;
}

export interface Command<O = Record<string, unknown>> {
  /** One or two words: `provision`, `config validate`. */
  name: string;
  /** Positional arguments for the usage line, e.g. `<file>` or `[...args]`. */
  args?: string;
  /** The closed set of values a positional argument takes (shell completion offers them). */
  argValues?: readonly string[];
  description: string;
  options: readonly OptionSpec[];
  /** Unknown flags become extra positional arguments instead of a usage error (fail-open commands, D3). */
  allowUnknownOptions?: boolean;
  /** Hidden commands are callable but not listed in the help. */
  hidden?: boolean;
  /** Takes `-o text|json|yaml` (the CLI adds the flag and hands the choice over as `options.output`). */
  output?: boolean;
  /** The format without `-o` (default text); a manifest's is yaml, and its -o text is a summary for people. */
  defaultOutput?: 'text' | 'json' | 'yaml';
  /**
   * Reads only: no node log file, no events (works as non-root and on a laptop). A function decides from
   * the raw arguments (`provision --dry-run`).
   */
  readOnly?: boolean | ((argv: readonly string[]) => boolean);
  /** Longer help text under the description. */
  details?: string;
  /** Command lines shown in the help, each with what it does. */
  examples?: readonly (readonly [commandLine: string, what: string])[];
  /** Fail-open (spec 1.4): exits 0 whatever fails once it runs; its help lists no error exit. */
  failOpen?: boolean;
  /** The -o flag's help when the default or a format means something else than text/json/yaml for people. */
  outputHelp?: string;
  /** Exit codes beyond 0 = success and 1 = error, shown in the help and the man page. */
  exitCodes?: readonly (readonly [code: number, meaning: string])[];
  run(input: CommandInput<O>, deps: Deps): Promise<CommandResult>;
}

export type AnyCommand = Command<any>;

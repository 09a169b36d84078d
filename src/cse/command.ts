// The provisioning command (config-contract 4): `/bin/bash -c <one-liner>` plus the CSE environment,
// the D8 merge with the agent's own environment and the D9 dry-run view. Pure.
import type { Configuration } from '../config/types.ts';
import type { NodePaths } from '../platform/paths.ts';
import { REDACTED, isSecret, reveal, type Secret } from '../platform/secret.ts';
import { buildCseEnv } from './env/index.ts';
import { compareCodePoints } from './env/format.ts';
import type { MachineFacts } from './facts.ts';
import { BASH, cseOneLiner } from './templates/cse-cmd.ts';

export interface ProvisionCommand {
  /** Absolute program path (no PATH lookup). */
  program: string;
  /** Arguments after the program (argv[1..]): `['-c', <one-liner>]`. */
  args: string[];
  /** The CSE variables; secrets stay Secret values until mergeEnv. */
  cseEnv: Record<string, string | Secret>;
}

export function buildProvisionCommand(config: Configuration, facts: MachineFacts, paths: NodePaths): ProvisionCommand {
  return { program: BASH, args: ['-c', cseOneLiner(paths)], cseEnv: buildCseEnv(config, facts, paths) };
}

/**
 * The child's complete environment (D8): the agent's environment plus the CSE variables; on a clash the
 * CSE value wins (the reference's sort-order tie-break is accidental). Secrets are revealed only here.
 */
export function mergeEnv(processEnv: Record<string, string>, cseEnv: Record<string, string | Secret>): Record<string, string> {
  const merged: Record<string, string> = { ...processEnv };
  for (const [key, value] of Object.entries(cseEnv)) merged[key] = reveal(value);
  return merged;
}

/** The D9 dry-run object: argv and the CSE variables (sorted), secrets as `<redacted>` unless asked. */
export function dryRunView(cmd: ProvisionCommand, options: { showSecrets: boolean }): { command: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const key of Object.keys(cmd.cseEnv).sort(compareCodePoints)) {
    const value = cmd.cseEnv[key]!;
    env[key] = isSecret(value) ? (options.showSecrets ? value.reveal() : REDACTED) : value;
  }
  return { command: [cmd.program, ...cmd.args], env };
}

/** Names of the CSE variables holding secrets (for callers that must scrub text, e.g. child output). */
export function secretValues(cmd: ProvisionCommand): string[] {
  return Object.values(cmd.cseEnv)
    .filter(isSecret)
    .map((s) => s.reveal())
    .filter((v) => v !== '');
}

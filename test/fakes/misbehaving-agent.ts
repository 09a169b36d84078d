// Builds the deliberately broken hotfix binaries of the hotfix-safety tests from misbehaving-agent.c
// (gcc, static defines): ELF executables, so the launcher treats them exactly like a real agent build.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type Fault =
  | 'CRASH_PROVISION'
  | 'HANG_VERSION'
  | 'SLOW_VERSION'
  | 'FAIL_SELF_TEST'
  | 'ERROR_AFTER_SCRIPTS'
  | 'CONFIG_ERROR'
  | 'CRASH_BEFORE_SCRIPTS'
  | 'DELETE_BAKED';

const SOURCE = join(dirname(new URL(import.meta.url).pathname), 'misbehaving-agent.c');

/**
 * Compiles the stand-in with `fault`, delegating everything else to the real agent at `realBin`; with
 * `version`, it answers `version` itself (realBin is then another build, e.g. the baked agent on a VM disk).
 */
export function buildMisbehavingAgent(fault: Fault, realBin: string, out: string, version?: string): string {
  mkdirSync(dirname(out), { recursive: true });
  const answer = version === undefined ? [] : [`-DVERSION=${JSON.stringify(version)}`];
  execFileSync('cc', ['-O2', '-Wall', '-Werror', `-D${fault}`, ...answer, `-DREAL=${JSON.stringify(realBin)}`, '-o', out, SOURCE], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out;
}

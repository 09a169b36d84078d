// Builds the deliberately broken hotfix binaries of the hotfix-safety tests from misbehaving-agent.c
// (gcc, static defines): ELF executables, so the launcher treats them exactly like a real agent build.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type Fault = 'CRASH_PROVISION' | 'HANG_VERSION' | 'FAIL_SELF_TEST' | 'ERROR_AFTER_SCRIPTS' | 'CONFIG_ERROR' | 'CRASH_BEFORE_SCRIPTS';

const SOURCE = join(dirname(new URL(import.meta.url).pathname), 'misbehaving-agent.c');

/** Compiles the stand-in with `fault`, delegating everything else to the real agent at `realBin`. */
export function buildMisbehavingAgent(fault: Fault, realBin: string, out: string): string {
  mkdirSync(dirname(out), { recursive: true });
  execFileSync('cc', ['-O2', '-Wall', '-Werror', `-D${fault}`, `-DREAL=${JSON.stringify(realBin)}`, '-o', out, SOURCE], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out;
}

// Reading an input file for the tooling commands (config validate/hash/diff, custom-data, the pointer key
// set of the hotfix commands): one place for the read error and the "nothing usable" error, both naming the file. A configuration's bytes become text
// through config/read.ts, as in provision (provision/config-file.ts adds its size and type guards, with the
// reference's message texts).
import type { Configuration } from '../config/types.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { configText } from '../config/read.ts';
import type { TrustedKey } from '../pointer/keys.ts';

function readBytes(deps: Deps, file: string, what: string): Uint8Array {
  try {
    return file === '-' ? deps.readStdin() : deps.fs.readFile(file, 'config');
  } catch (error) {
    throw new AgentError('ANC_CONFIG_UNREADABLE', `cannot read ${what} ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** `what` names the input in the error ("custom data file", "ConfigMap"); `-` is stdin. Not for configurations. */
export function readConfigFile(deps: Deps, file: string, what = 'configuration file'): string {
  return Buffer.from(readBytes(deps, file, what)).toString('utf8');
}

/** A configuration's text, through the one decoder every command uses (config/read.ts); `-` is stdin. */
export function readConfiguration(deps: Deps, file: string, what = 'configuration file'): string {
  return configText(readBytes(deps, file, what), `${what} ${file}`);
}

export interface LoadedConfigFile {
  config: Configuration;
  /** One `warning: <file>: <path>: <message>` line per tolerated problem (D7). */
  warnings: string;
}

/** Reads and loads a configuration; invalid JSON or a non-object document is an error naming the file. */
export async function loadConfigFile(deps: Deps, file: string): Promise<LoadedConfigFile> {
  const text = readConfiguration(deps, file);
  const { loadConfiguration } = await import('../config/load.ts');
  const { config, issues } = loadConfiguration(text);
  const fatal = issues.find((i) => i.severity === 'error' && (i.kind === 'syntax' || i.path === '$'));
  if (fatal) throw new AgentError('ANC_CONFIG_INVALID', `${file} is not a usable configuration: ${fatal.message}`);
  return { config, warnings: issues.map((i) => `warning: ${file}: ${i.path}: ${i.message}\n`).join('') };
}

/** The pointer key set a command verifies with: `--keys <file>`, else the one baked into this binary. */
export async function readKeySet(deps: Deps, file: string | undefined): Promise<TrustedKey[]> {
  const { bakedKeys, parseKeySet } = await import('../pointer/keys.ts');
  return file === undefined ? bakedKeys() : parseKeySet(readConfigFile(deps, file, 'key set'), file);
}

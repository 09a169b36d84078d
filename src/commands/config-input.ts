// Reading an input file for the tooling commands (config validate/hash/diff, custom-data): one place for the
// read error and the "nothing usable" error, both naming the file. (provision has its own stricter guards
// in provision/config-file.ts, with the reference's message texts.)
import type { Configuration } from '../config/types.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';

/** `what` names the input in the error ("configuration file", "custom data file"); `-` is stdin. */
export function readConfigFile(deps: Deps, file: string, what = 'configuration file'): string {
  try {
    return file === '-' ? deps.readStdin() : deps.fs.readText(file, 'config');
  } catch (error) {
    throw new AgentError('ANC_CONFIG_UNREADABLE', `cannot read ${what} ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

export interface LoadedConfigFile {
  config: Configuration;
  /** One `warning: <file>: <path>: <message>` line per tolerated problem (D7). */
  warnings: string;
}

/** Reads and loads a configuration; invalid JSON or a non-object document is an error naming the file. */
export async function loadConfigFile(deps: Deps, file: string): Promise<LoadedConfigFile> {
  const text = readConfigFile(deps, file);
  const { loadConfiguration } = await import('../config/load.ts');
  const { config, issues } = loadConfiguration(text);
  const fatal = issues.find((i) => i.severity === 'error' && (i.kind === 'syntax' || i.path === '$'));
  if (fatal) throw new AgentError('ANC_CONFIG_INVALID', `${file} is not a usable configuration: ${fatal.message}`);
  return { config, warnings: issues.map((i) => `warning: ${file}: ${i.path}: ${i.message}\n`).join('') };
}

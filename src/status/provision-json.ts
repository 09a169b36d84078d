// provision.json as `status` reads it: through the one decoder provision-wait uses, so status reads what
// the extension will; a half-written file is a note, never an error.
import { goLookupField, parseGoJson } from '../platform/json.ts';
import { decodeProvisionJson } from '../provision/status.ts';
import { type NamedExitCode, nameExitCode } from './exit-codes.ts';

/** What status shows of provision.json (null when it does not exist). */
export type ProvisionFile = {
  exitCode: NamedExitCode | null;
  error: string;
  output: string;
  execDuration: string;
  complete: boolean;
} | null;

/** provision.json through the one decoder provision-wait uses, so status reads what the extension will. */
export function parseProvisionJson(text: string | undefined, complete: boolean, notes: string[]): ProvisionFile {
  if (text === undefined) return null;
  const decoded = decodeProvisionJson(text);
  if ('error' in decoded) {
    notes.push(`provision.json is not JSON provision-wait can read (still being written?): ${decoded.error}`);
    return { exitCode: null, error: '', output: '', execDuration: '', complete };
  }
  const { ExitCode, Error: error, Output: output } = decoded.result;
  // ExecDuration is the scripts' own field (not in the reference struct): shown when it is a string.
  const doc = parseGoJson(text) as Record<string, unknown> | null;
  const execDuration = doc === null ? undefined : goLookupField(doc, 'ExecDuration');
  return {
    exitCode: ExitCode === '' ? null : (nameExitCode(ExitCode) ?? null),
    error,
    output: output.length > 2000 ? `...${output.slice(-2000)}` : output,
    execDuration: typeof execDuration === 'string' ? execDuration : '',
    complete,
  };
}

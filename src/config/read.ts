// The one way every command turns a configuration file's bytes into text (issue 32, N6): strict UTF-8 with
// nothing stripped or replaced. A leading byte order mark stays in the text for the loader (load.ts), which
// skips ONE with a `syntax` warning, so a second one is a syntax error, in provision as in `config
// validate`. (TextDecoder strips one BOM by default and Buffer.toString replaces invalid bytes: neither is
// used for a configuration.) Pure.
import { AgentError } from '../platform/errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of a configuration's bytes; `name` says which file in the error (`provision config /x`). */
export function configText(data: Uint8Array, name: string): string {
  const nul = data.indexOf(0);
  if (nul >= 0) throw new AgentError('ANC_CONFIG_INVALID', `${name} is not a text file (NUL byte at offset ${nul})`);
  try {
    return utf8.decode(data);
  } catch {
    throw new AgentError('ANC_CONFIG_INVALID', `${name} is not valid UTF-8 text`);
  }
}

/** A configuration file read through the input guard (kind `config`), then `configText`; read errors pass through. */
export function readConfigurationFile(fs: { readFile(path: string, kind: 'config'): Uint8Array }, path: string, name = path): string {
  return configText(fs.readFile(path, 'config'), name);
}

/** One leading BOM off, as the loader skips it (load.ts), for the readers that parse the text as plain JSON. */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

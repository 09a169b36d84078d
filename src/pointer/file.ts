// Reading the pointer file through deps.fs (spec 6.1): missing file = no pointer; other read errors and
// parse errors are AgentErrors with the path in the message.
import type { FileSystem } from '../platform/fs.ts';
import { goText } from '../platform/go/utf8.ts';
import { AgentError, errorMessage, isAgentError } from '../platform/errors.ts';
import { parsePointer, type HotfixPointer } from './document.ts';

export function readPointerFile(fs: FileSystem, path: string): HotfixPointer {
  let text: string | null;
  try {
    text = goText(fs.readFile(path, 'pointer')); // N7: as encoding/json reads it
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') {
      throw new AgentError('ANC_HOTFIX', `reading hotfix config ${path}: ${errorMessage(error)}`, {
        cause: error,
        step: 'pointerUnreadable',
      });
    }
    text = null;
  }
  try {
    return parsePointer(text, path);
  } catch (error) {
    if (!isAgentError(error)) throw error;
    throw new AgentError('ANC_HOTFIX', error.message, { step: 'pointerUnreadable', cause: error });
  }
}

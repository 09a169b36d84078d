// Where a JSON text stops being valid, as a byte offset: error messages name the file and the offset and
// never quote the content (a node config holds the bootstrap token; a pointer may be a symlink to
// anything). Pure.
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { FileSystem } from '../platform/fs.ts';
import type { InputKind } from '../platform/input.ts';
import { scanJson } from '../platform/json-scan.ts';

/** `not valid JSON (syntax error at byte offset N of M)`, or `empty (0 bytes)`; undefined when valid. */
export function jsonSyntaxProblem(text: string, maxDepth?: number): string | undefined {
  const total = Buffer.byteLength(text);
  // JSON's own four white-space characters: U+00A0 and the like are not white space to a JSON parser.
  if (/^[ \t\n\r]*$/.test(text)) return total === 0 ? 'empty (0 bytes)' : `empty (${total} bytes of white space)`;
  const { error } = scanJson(text, { maxDepth });
  if (!error) return undefined;
  const offset = Buffer.byteLength(text.slice(0, error.at));
  // Cut off (a crash or a full disk mid-write): the error is at the end, or a string runs to the end.
  const truncated = offset >= total || error.message.includes('end of input') || error.message === 'unterminated string';
  return truncated
    ? `not complete JSON (it ends at byte ${total} inside a value)`
    : `not valid JSON (syntax error at byte offset ${offset} of ${total})`;
}

/**
 * JSON.parse for the agent's own state files: its error says where the text stops being valid, never
 * what the text is (JSON.parse's message quotes the first characters; the file may be a symlink to a
 * secret).
 */
export function parseStateJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AgentError('ANC_IO', jsonSyntaxProblem(text) ?? 'not valid JSON');
  }
}

/**
 * THE reader of every agent state file (quarantine, pointer serial, repository state, script hotfix
 * record, last restore): undefined when absent; read through the input guard's cap for `kind` (regular
 * files only; `noFollow`: never through a symlink, for state a restore trusts); parsed with
 * parseStateJson. Its errors say what is wrong (not a regular file, too large, syntax error at byte N)
 * for the caller to put beside the path, never the content.
 */
export function readStateFile(
  fs: Pick<FileSystem, 'lstat' | 'readFile' | 'readFileNoFollow'>,
  path: string,
  options: { kind?: InputKind; noFollow?: boolean } = {},
): unknown {
  const kind = options.kind ?? 'state';
  let text: string;
  try {
    if (!fs.lstat(path)) return undefined;
    text = (options.noFollow ? fs.readFileNoFollow(path, kind) : fs.readFile(path, kind)).toString('utf8');
  } catch (error) {
    throw new AgentError('ANC_IO', errorMessage(error));
  }
  return parseStateJson(text);
}

// Where a JSON text stops being valid, as a byte offset: error messages name the file and the offset and
// never quote the content (a node config holds the bootstrap token; a pointer may be a symlink to
// anything). Pure.
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

// Text that reaches a terminal, the journal or the serial console never carries a raw control character:
// a pointer's version string or a DSSE keyid written by someone without the signing key could otherwise
// retitle the window, clear the screen or forge a line. Every control except tab, newline and the CR of
// a CRLF line end (MIME custom data) — C0, DEL, C1, a bare CR that would overwrite the line — is written
// as its JSON escape `\uXXXX`, which keeps JSON output valid and meaning the same. So are the invisible
// format characters (Unicode Cf: the bidi overrides and isolates U+202A-U+202E, U+2066-U+2069, the marks,
// zero-width characters, tags) and the line and paragraph separators (R4-16): a report could otherwise
// reorder what the operator reads (`U+202E` turns `failed` around) or hide text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]|\r(?!\n)|\p{Cf}/gu;

const hex = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

export function escapeControls(text: string): string {
  // A character beyond the BMP (a tag) as its two UTF-16 escapes, as JSON writes it.
  return text.replace(CONTROLS, (c) => Array.from({ length: c.length }, (_, i) => hex(c.charCodeAt(i))).join(''));
}

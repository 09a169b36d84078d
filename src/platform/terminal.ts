// Text that reaches a terminal, the journal or the serial console never carries a raw control character:
// a pointer's version string or a DSSE keyid written by someone without the signing key could otherwise
// retitle the window, clear the screen or forge a line. Every control except tab, newline and the CR of
// a CRLF line end (MIME custom data) — C0, DEL, C1, a bare CR that would overwrite the line — is written
// as its JSON escape `\uXXXX`, which keeps JSON output valid and meaning the same.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;

export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

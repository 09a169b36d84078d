// Go encoding/json compatibility for the files other programs read (events, provision.json, pointer).

/** JSON.stringify, then the HTML-safe escapes Go's json.Marshal applies (`<`, `>`, `&`, U+2028, U+2029). */
export function goJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  // These characters can only occur inside JSON strings, so escaping them textually is safe.
  return text.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

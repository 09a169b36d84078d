// Go's text primitives where JavaScript's differ (the reference agent is Go; config-contract 3.3.1,
// 3.3.10, reference-agent 6.2). Go's unicode.IsSpace is the Unicode White_Space property: it includes
// U+0085 (NEL) and excludes U+FEFF (BOM), whereas JavaScript's `\s` and String.prototype.trim do the
// opposite. Pure.

const SPACE_RUN = /\p{White_Space}+/u;
const EDGES = /^\p{White_Space}+|\p{White_Space}+$/gu;

/** Go unicode.IsSpace for one character. */
export const goIsSpace = (char: string): boolean => /^\p{White_Space}$/u.test(char);

/** Go strings.TrimSpace. */
export const goTrimSpace = (text: string): string => text.replace(EDGES, '');

/** Go strings.Fields: the non-empty runs between White_Space runs. */
export const goFields = (text: string): string[] =>
  goTrimSpace(text)
    .split(SPACE_RUN)
    .filter((f) => f !== '');

/**
 * Go strings.ToLower: each code point through its simple lowercase mapping. JavaScript's full mapping
 * turns U+0130 (I with dot) into two code points and a final capital sigma into U+03C2; Go does neither.
 */
export const goToLower = (text: string): string => Array.from(text, (c) => (c === '\u0130' ? 'i' : c.toLowerCase())).join('');

/** Go strings.EqualFold against an ASCII name: ASCII case plus the two non-ASCII simple folds (K, s). */
export const goEqualFold = (a: string, b: string): boolean => {
  const fold = (t: string) =>
    t
      .replace(/\u212a/g, 'k')
      .replace(/\u017f/g, 's')
      .toLowerCase();
  return fold(a) === fold(b);
};

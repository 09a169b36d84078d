// Secrets are a type (STYLE 10, D14): a Secret prints as a placeholder everywhere (String, JSON, inspect)
// and only code that must hand the value to a child process calls reveal().

export const REDACTED = '<redacted>';
const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  get isEmpty(): boolean {
    return this.#value === '';
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [inspectSymbol](): string {
    return REDACTED;
  }
}

export function isSecret(value: unknown): value is Secret {
  return value instanceof Secret;
}

export function reveal(value: string | Secret): string {
  return typeof value === 'string' ? value : value.reveal();
}

/**
 * Replaces every occurrence of the given secret values, and of the forms a script plausibly prints them
 * in (derivedForms), in a text. Used on error text that may quote input (a parser message embedding a
 * raw token, a child's stderr) before it is logged.
 */
export function redactText(text: string, secrets: Iterable<string | Secret>): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    const value = reveal(secret);
    if (value.length >= 4) forms.add(value);
    for (const form of derivedForms(value)) forms.add(form);
  }
  let out = text;
  // Longest first, so a form that contains another is blanked whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join(REDACTED);
  return out;
}

/** Derived forms shorter than this are not blanked (too likely to match ordinary text). */
const MIN_DERIVED = 8;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * The forms of a secret a provisioning script may print: base64 and base64url of it (at every byte
 * alignment, as when it is encoded inside a longer text), its base64 decoding when it is base64 of text
 * (a kubelet key arrives base64-encoded and is printed decoded), the body lines of a PEM key, its
 * URL-encoded form, and the user-info parts of URLs it holds (a proxy password, raw and decoded).
 */
export function derivedForms(value: string): string[] {
  if (value.length < 4) return [];
  const forms: string[] = [];
  const add = (form: string) => {
    if (form.length >= MIN_DERIVED && form !== value) forms.push(form);
  };
  const decoded = decodeTextBase64(value);
  for (const text of decoded === undefined ? [value] : [value, decoded]) {
    add(text);
    for (const form of escapedForms(text)) add(form);
    for (const form of encodedForms(text)) add(form);
    for (const line of pemBodyLines(text)) add(line);
    for (const part of urlUserInfoParts(text)) {
      add(part);
      for (const form of encodedForms(part)) add(form);
    }
  }
  return forms;
}

/**
 * The value as an error message or a log line may quote it escaped (N9): JSON (`\u0000`, `\n`), the
 * JavaScript runtime's `\x00`, and each of those escaped once more (a message inside JSON).
 */
function escapedForms(text: string): string[] {
  const json = JSON.stringify(text).slice(1, -1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what gets escaped
  const hex = text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const forms = [json, hex, JSON.stringify(json).slice(1, -1), JSON.stringify(hex).slice(1, -1)];
  return forms.filter((f) => f !== text);
}

/** base64/base64url at the three byte alignments (edges that depend on neighbours trimmed) and %-encoding. */
function encodedForms(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const b64 = padded.toString('base64');
    // Characters fed by the padding bytes, and the last group (it depends on what follows), are unstable.
    const head = shift === 0 ? 0 : Math.ceil((shift * 8) / 6);
    const stableEnd = Math.floor((padded.length * 8) / 6);
    const stable = b64.slice(head, shift === 0 ? b64.length : stableEnd);
    forms.push(stable, b64.slice(head, stableEnd));
    forms.push(stable.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  const uri = encodeURIComponent(text);
  if (uri !== text)
    forms.push(
      uri,
      uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      uri.replace(/%20/g, '+'),
    );
  return forms;
}

/** The text a base64 (or base64url) value encodes, when it is printable text; else undefined. */
function decodeTextBase64(value: string): string | undefined {
  const compact = value.replace(/\s+/g, '');
  if (compact.length < 8 || compact.length % 4 === 1) return undefined;
  if (!BASE64.test(compact) && !BASE64URL.test(compact)) return undefined;
  const bytes = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const text = bytes.toString('utf8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: decoded bytes must be printable text to count as a derived form
  return Buffer.from(text, 'utf8').equals(bytes) && !/[\x00-\x08\x0e-\x1f\x7f]/.test(text) ? text : undefined;
}

/** Body lines of PEM blocks (each 64-character line, and the whole body joined). */
function pemBodyLines(text: string): string[] {
  const out: string[] = [];
  for (const [, body] of text.matchAll(/-----BEGIN [A-Z0-9 ]+-----([\s\S]*?)-----END [A-Z0-9 ]+-----/g)) {
    const lines = body!
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.includes(':'));
    out.push(...lines, lines.join(''));
  }
  return out;
}

/** `user:password` and `password` (raw and %-decoded) of every `scheme://userinfo@` in the text. */
function urlUserInfoParts(text: string): string[] {
  const out: string[] = [];
  // With a scheme anywhere in the text, or without one when the whole value is `user:password@host`.
  for (const [, userInfo] of text.matchAll(/(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/|^)([^/@\s"']+)@/g)) {
    const password = userInfo!.includes(':') ? userInfo!.slice(userInfo!.indexOf(':') + 1) : userInfo!;
    out.push(userInfo!, password);
    try {
      out.push(decodeURIComponent(password), decodeURIComponent(userInfo!));
    } catch {
      // not %-encoded text
    }
  }
  return out;
}

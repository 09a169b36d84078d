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
 * Replaces every occurrence of the given secret values in a text. Used on error text that may quote
 * input (a parser message embedding a raw token, a child's stderr) before it is logged.
 */
export function redactText(text: string, secrets: Iterable<string | Secret>): string {
  let out = text;
  for (const secret of secrets) {
    const value = reveal(secret);
    if (value.length >= 4) out = out.split(value).join(REDACTED);
  }
  return out;
}

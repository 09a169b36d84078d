// A node configuration's JSON text with every credential, and every field that may embed one (secret or
// sensitive in the catalogue), replaced by `<redacted>`: what `custom-data --decode` prints by default.
// Pure. Keys match the json or proto name without regard to case, as the loader matches them.
import { REDACTED } from '../platform/secret.ts';
import { MESSAGES, ROOT_MESSAGE, type FieldInfo, type MessageName } from './types.ts';

export interface RedactedConfig {
  text: string;
  /** Dotted paths of the values replaced, in document order. */
  redacted: string[];
}

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

function fieldFor(message: MessageName, key: string): FieldInfo | undefined {
  const lower = key.toLowerCase();
  return MESSAGES[message].fields.find((f) => f.json.toLowerCase() === lower || f.proto.toLowerCase() === lower);
}

function redactMessage(value: Obj, message: MessageName, prefix: string, out: string[]): Obj {
  const copy: Obj = {};
  for (const [key, item] of Object.entries(value)) {
    const field = fieldFor(message, key);
    const path = `${prefix}.${key}`;
    copy[key] = field ? redactField(item, field, path, out) : item;
  }
  return copy;
}

function redactField(item: unknown, field: FieldInfo, path: string, out: string[]): unknown {
  if (field.secret || field.sensitive) {
    // Empty and absent values carry nothing; saying they are empty helps the reader.
    if (item === null || item === '' || (Array.isArray(item) && item.length === 0)) return item;
    out.push(path);
    return REDACTED;
  }
  const nested = field.map ? field.mapValueMessage : field.message;
  if (!nested) return item;
  const enter = (entry: unknown, at: string) => (isObject(entry) ? redactMessage(entry, nested, at, out) : entry);
  if (field.map && isObject(item)) return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, enter(v, `${path}.${k}`)]));
  if (Array.isArray(item)) return item.map((entry, i) => enter(entry, `${path}[${i}]`));
  return enter(item, path);
}

/** Throws a SyntaxError when the text is not JSON (the caller says what to do). */
export function redactConfigJson(text: string): RedactedConfig {
  const doc: unknown = JSON.parse(text);
  const redacted: string[] = [];
  if (!isObject(doc)) return { text, redacted };
  const out = redactMessage(doc, ROOT_MESSAGE, '$', redacted);
  return { text: redacted.length === 0 ? text : `${JSON.stringify(out, null, 2)}\n`, redacted };
}

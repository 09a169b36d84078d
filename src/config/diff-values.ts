// Old -> new values for `config diff`: the changed paths of diffConfigurations, each with its value in
// the two canonical configurations. Credentials and fields that may embed one (secret/sensitive in the
// catalogue) are never shown, also not below such a field. Pure.
import { canonicalConfiguration } from './canonical.ts';
import { MESSAGES } from './types.ts';
import type { Configuration, FieldInfo, MessageName } from './types.ts';

/**
 * A changed path with its two values as they are (JSON output carries them once encoded): a side absent
 * in that configuration has no key; a credential's values are `<redacted>`, with `redacted: true`.
 */
export interface ChangedValue {
  path: string;
  before?: unknown;
  after?: unknown;
  redacted?: true;
}

type Obj = Record<string, unknown>;

/** `a.b["k"].c` -> ['a', 'b', 'k', 'c'] (map keys are JSON strings). */
function segments(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g)) out.push(m[1] ? (JSON.parse(m[1]) as string) : m[2]!);
  return out;
}

/** Whether a path runs through a secret or sensitive field. */
export function isSecretPath(path: string): boolean {
  let message: MessageName | undefined = 'Configuration';
  let mapKeyNext = false;
  for (const seg of segments(path)) {
    if (mapKeyNext) {
      mapKeyNext = false;
      continue;
    }
    if (!message) return false;
    const field: FieldInfo | undefined = MESSAGES[message].fields.find((f) => f.json === seg || f.proto === seg);
    if (!field) return false;
    if (field.secret || field.sensitive) return true;
    mapKeyNext = field.map;
    message = field.map ? field.mapValueMessage : field.message;
  }
  return false;
}

function valueAt(root: unknown, path: string): unknown {
  let node = root;
  for (const seg of segments(path)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Obj)[seg];
  }
  return node;
}

const present = (key: 'before' | 'after', value: unknown) => (value === undefined ? {} : { [key]: value });

export function changedValues(before: Configuration, after: Configuration, paths: readonly string[]): ChangedValue[] {
  const a = canonicalConfiguration(before);
  const b = canonicalConfiguration(after);
  return paths.map((path) =>
    isSecretPath(path)
      ? { path, before: '<redacted>', after: '<redacted>', redacted: true as const }
      : { path, ...present('before', valueAt(a, path)), ...present('after', valueAt(b, path)) },
  );
}

// The valibot schema of the in-memory Configuration (src/config/types.ts conventions), built from the
// generated field catalogue: one strict object per message, every field optional and described. It is
// used (1) to check that a value really has the Configuration shape (checkConfigurationShape; the loader's
// output always passes) and (2) as the source of the JSON Schema printed by `config schema`
// (json-schema.ts). Built lazily: nothing is constructed until first use.
import * as v from 'valibot';
import { AgentError } from '../platform/errors.ts';
import { ENUMS, MESSAGES } from './generated/catalog.ts';
import type { FieldInfo } from './generated/catalog.ts';
import type { EnumName, MessageName } from './generated/types.ts';

/** Attached (valibot `metadata`) to every field and message schema; read by the JSON Schema converter. */
export type FieldMeta = {
  proto: string;
  json: string;
  /** The catalogue type: string, bool, int32, double, an enum or message name, or map<k,v>. */
  type: string;
};
export type MessageMeta = {
  message: MessageName;
  fullName: string;
};

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

type AnySchema = v.GenericSchema<unknown, unknown, v.BaseIssue<unknown>>;

const int32 = (): AnySchema => v.pipe(v.number(), v.integer(), v.minValue(INT32_MIN), v.maxValue(INT32_MAX));

/** double: any JS number, including NaN, +-Infinity and -0 (valibot's number() rejects NaN). */
const double = (): AnySchema =>
  v.pipe(
    v.custom<number>((x) => typeof x === 'number', 'Invalid type: Expected a number (double)'),
    v.metadata({ double: true }),
  );

function scalarSchema(type: string): AnySchema {
  switch (type) {
    case 'string':
      return v.string();
    case 'bool':
      return v.boolean();
    case 'int32':
      return int32();
    case 'double':
      return double();
    default: {
      if (!Object.hasOwn(ENUMS, type)) throw new AgentError('ANC_INTERNAL', `config schema: unknown scalar type ${type}`);
      const names = Object.keys(ENUMS[type as EnumName]) as [string, ...string[]];
      return v.pipe(v.union([v.picklist(names), int32()]), v.metadata({ enum: type }));
    }
  }
}

const messages = new Map<MessageName, AnySchema>();

function fieldSchema(field: FieldInfo): AnySchema {
  let base: AnySchema;
  if (field.map) {
    const value = field.mapValueMessage ? messageSchema(field.mapValueMessage) : scalarSchema(field.mapValue ?? 'string');
    base = v.record(v.string(), value);
  } else if (field.repeated) {
    base = v.array(field.message ? messageSchema(field.message) : scalarSchema(field.type));
  } else if (field.message) {
    base = messageSchema(field.message);
  } else {
    base = scalarSchema(field.type);
  }
  const meta: FieldMeta = { proto: field.proto, json: field.json, type: field.type };
  return v.optional(v.pipe(base, v.description(field.description), v.metadata(meta)));
}

/** The schema of one message (cached). */
export function messageSchema(name: MessageName): AnySchema {
  const cached = messages.get(name);
  if (cached) return cached;
  const info = MESSAGES[name];
  const entries: Record<string, AnySchema> = {};
  for (const field of info.fields) entries[field.json] = fieldSchema(field);
  const meta: MessageMeta = { message: name, fullName: info.fullName };
  const schema = v.pipe(v.strictObject(entries), v.description(`${info.fullName}`), v.metadata(meta));
  messages.set(name, schema);
  return schema;
}

/** The schema of the root message, aksnodeconfig.v1.Configuration. */
export function configurationSchema(): AnySchema {
  return messageSchema('Configuration');
}

/** Shape problems of an in-memory configuration as `$.a.b: message` lines (empty = valid). */
export function checkConfigurationShape(value: unknown): string[] {
  const result = v.safeParse(configurationSchema(), value);
  if (result.success) return [];
  return result.issues.map((issue) => {
    let path = '$';
    for (const item of issue.path ?? []) {
      const key = item.key;
      path += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
    }
    return `${path}: ${issue.message}`;
  });
}

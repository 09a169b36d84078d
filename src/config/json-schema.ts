// JSON Schema (draft 2020-12) of a configuration DOCUMENT, converted from the valibot schema
// (schema.ts). The valibot tree describes the in-memory shape; the converter widens it to what the
// loader accepts as input (config-contract 2.2-2.4) without a warning, i.e. what
// `config validate --strict` accepts:
// - every field under its json name, plus its proto (snake_case) name as a `$ref` alias;
// - `null` for any field (= unset);
// - int32 (and enum numbers): JSON integers in range or numeric strings; doubles: numbers, numeric
//   strings, "NaN", "Infinity", "-Infinity"; enums: value names or int32 numbers;
// - unknown keys are not allowed (`additionalProperties: false`), like --strict.
// Not expressible in JSON Schema: "the same field given in both spellings" (a duplicate) and the exact
// integrality of numeric strings ("1.5" matches the pattern but is rejected by the loader).
import type * as v from 'valibot';
import { configurationSchema } from './schema.ts';
import type { FieldMeta, MessageMeta } from './schema.ts';

type Json = Record<string, unknown>;
type AnySchema = v.GenericSchema<unknown, unknown, v.BaseIssue<unknown>>;
type Action = { kind: string; type: string; requirement?: unknown; description?: string; metadata?: Record<string, unknown> };
type Node = AnySchema & { pipe?: Action[]; wrapped?: Node; entries?: Record<string, Node>; options?: unknown[]; item?: Node; value?: Node };

export const SCHEMA_ID = 'https://github.com/Azure/AgentBaker/aks-node-controller/config.schema.json';
const NUMERIC = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
const NULL: Json = { type: 'null' };

function actions(node: Node): Action[] {
  return (node.pipe ?? []).slice(1) as Action[];
}
/** Actions of a schema and of the schemas its pipes wrap (inner first). */
function allActions(node: Node): Action[] {
  const inner = node.pipe?.[0] as Node | undefined;
  const base = inner && inner !== node && inner.pipe ? allActions(inner) : [];
  return [...base, ...actions(node)];
}
function metaOf(node: Node): Record<string, unknown> {
  const m = allActions(node)
    .filter((a) => a.type === 'metadata')
    .map((a) => a.metadata ?? {});
  return Object.assign({}, ...m);
}
function descriptionOf(node: Node): string | undefined {
  return actions(node).find((a) => a.type === 'description')?.description;
}
function requirement(node: Node, type: string): unknown {
  return allActions(node).find((a) => a.type === type)?.requirement;
}

class Converter {
  readonly defs: Record<string, Json> = {};

  /** Input form of a schema (no null, no description). */
  convert(node: Node): Json {
    const meta = metaOf(node);
    switch (node.type) {
      case 'optional':
        return this.convert(node.wrapped as Node);
      case 'string':
        return { type: 'string' };
      case 'boolean':
        return { type: 'boolean' };
      case 'number':
        return this.integer(node, true);
      case 'custom':
        return meta.double ? { anyOf: [{ type: 'number' }, { type: 'string', pattern: `^(?:NaN|-?Infinity|${NUMERIC})$` }] } : {};
      case 'picklist':
        return { enum: [...((node.options ?? []) as string[])] };
      case 'union': {
        // enums: a value name, or an int32 JSON number (a numeric string is looked up as a name).
        const opts = (node.options ?? []) as Node[];
        return { anyOf: opts.map((o) => (meta.enum && o.type === 'number' ? this.integer(o, false) : this.convert(o))) };
      }
      case 'array':
        return { type: 'array', items: this.convert(node.item as Node) };
      case 'record':
        return { type: 'object', additionalProperties: this.convert(node.value as Node) };
      case 'strict_object':
        return this.message(node, meta as unknown as MessageMeta);
      default:
        return {};
    }
  }

  integer(node: Node, numericString: boolean): Json {
    const n: Json = { type: 'integer' };
    const min = requirement(node, 'min_value');
    const max = requirement(node, 'max_value');
    if (typeof min === 'number') n.minimum = min;
    if (typeof max === 'number') n.maximum = max;
    return numericString ? { anyOf: [n, { type: 'string', pattern: `^${NUMERIC}$` }] } : n;
  }

  message(node: Node, meta: MessageMeta): Json {
    const ref = { $ref: `#/$defs/${meta.message}` };
    if (this.defs[meta.message]) return ref;
    const def: Json = {};
    this.defs[meta.message] = def;
    const properties: Record<string, Json> = {};
    const aliases: Record<string, Json> = {};
    for (const [json, child] of Object.entries(node.entries ?? {})) {
      const inner = (child.type === 'optional' ? child.wrapped : child) as Node;
      const fm = metaOf(inner) as unknown as FieldMeta;
      const body = this.convert(inner);
      const withNull = body.anyOf ? { anyOf: [...(body.anyOf as Json[]), NULL] } : body.$ref ? { anyOf: [body, NULL] } : addNull(body);
      properties[json] = { description: descriptionOf(inner) ?? json, ...withNull };
      if (fm.proto && fm.proto !== json) aliases[fm.proto] = { $ref: `#/$defs/${meta.message}/properties/${json}` };
    }
    Object.assign(def, {
      type: 'object',
      title: meta.message,
      description: `${meta.fullName}. Keys may use the json (lowerCamelCase) or the proto (snake_case) name; not both.`,
      properties: { ...properties, ...aliases },
      additionalProperties: false,
    });
    return ref;
  }
}

function addNull(body: Json): Json {
  if (typeof body.type === 'string') return { ...body, type: [body.type, 'null'] };
  return { anyOf: [body, NULL] };
}

/** The JSON Schema document (a plain object; deterministic key order). */
export function configurationJsonSchema(): Json {
  const c = new Converter();
  c.convert(configurationSchema() as Node);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: 'aks-node-controller node configuration (aksnodeconfig.v1.Configuration)',
    description:
      'Input accepted by `aks-node-controller provision --provision-config` without warnings (what `config validate --strict` accepts, except duplicate detection).',
    $ref: '#/$defs/Configuration',
    $defs: c.defs,
  };
}

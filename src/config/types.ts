// The in-memory shape of the node configuration (aksnodeconfig.v1.Configuration) that every module codes
// against. Generated interfaces live in ./generated/ (scripts/gen-config.mjs, source: config-fields.json).
//
// Conventions (one place, all consumers rely on them):
// - property names are the protojson `json` names (lowerCamelCase; the 9 explicit json_names as given);
// - every property is optional: absent = unset; consumers use `?? zero` for implicit-presence scalars;
// - string -> string, bool -> boolean, int32/double -> number (doubles may be NaN / +-Infinity / -0);
// - enum -> the value NAME (e.g. 'NETWORK_PLUGIN_AZURE'); an undefined numeric value is kept as a number
//   (open enums: `"networkPlugin":99` stores 99); an unknown enum NAME is dropped (field unset);
// - map -> Record<string, V> (V = string, boolean for featureGates, LocalDnsOverrides for DNS overrides);
// - repeated string -> string[]; sub-message -> nested object (present = the key exists, even `{}`);
// - explicit false / 0 / "" are stored as given (presence of proto3 `optional` fields is observable).

export type * from './generated/types.ts';
export type { FieldInfo, MessageInfo } from './generated/catalog.ts';
export { ENUMS, MESSAGES, ROOT_MESSAGE, VERSIONS_ACCEPTED } from './generated/catalog.ts';

import type { EnumName } from './generated/types.ts';
import { ENUMS, MESSAGES } from './generated/catalog.ts';
import type { FieldInfo, MessageInfo } from './generated/catalog.ts';

/** Number of an enum value given as stored in a Configuration (name or number); undefined = unset. */
export function enumNumber(enumName: EnumName, value: string | number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  return ENUMS[enumName][value] ?? 0;
}

/** Name of an enum number, or undefined when the number has no name (open enum). */
export function enumName(enumName: EnumName, value: number): string | undefined {
  for (const [name, n] of Object.entries(ENUMS[enumName])) if (n === value) return name;
  return undefined;
}

/** Every field of every message, depth-first from `root`, with its dotted json path ($.a.b). Maps of
 *  messages are entered with a `*` segment ($.localDnsProfile.vnetDnsOverrides.*.queryLogging). */
export function walkCatalog(
  visit: (path: string, field: FieldInfo, message: MessageInfo) => void,
  root: keyof typeof MESSAGES = 'Configuration',
  prefix = '$',
): void {
  const msg = MESSAGES[root];
  for (const f of msg.fields) {
    const path = `${prefix}.${f.json}`;
    visit(path, f, msg);
    if (f.message) walkCatalog(visit, f.message, path);
    if (f.mapValueMessage) walkCatalog(visit, f.mapValueMessage, `${path}.*`);
  }
}

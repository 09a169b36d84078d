// The problems found while loading a configuration (DECISIONS D7): each names a JSON path, and a bad
// value names what was expected and (unless the field holds a credential) what was found.
import type { FieldInfo } from './generated/catalog.ts';
import type { JsonNode } from '../platform/json-scan.ts';

export interface ConfigIssue {
  /** JSON path of the offending key or value, e.g. `$.kubeletConfig.kubeletFlags`. Keys as written. */
  path: string;
  severity: 'error' | 'warning';
  kind: 'syntax' | 'duplicate-field' | 'unknown-field' | 'bad-value' | 'version';
  message: string;
  expected?: string;
  found?: string;
}

/** Raw input is never echoed beyond this many characters. */
export const MAX_ECHO = 40;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.a.b`, `$.a["odd key"]`. */
export function childPath(path: string, key: string): string {
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function clip(text: string, max = MAX_ECHO): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} characters)`;
}

/** What kind of JSON value a node is, without its content. */
export function describeType(node: JsonNode): string {
  switch (node.t) {
    case 'object':
      return 'an object';
    case 'array':
      return `an array of ${node.items.length} element(s)`;
    case 'string':
      return `a string of ${node.value.length} character(s)`;
    case 'number':
      return 'a number';
    case 'bool':
      return 'a boolean';
    case 'null':
      return 'null';
  }
}

/** How a found value is shown in a message: its type for credentials and containers, else a clipped echo. */
export function describeFound(node: JsonNode, field: FieldInfo | undefined): string {
  if (field && (field.secret || field.sensitive)) return `${describeType(node)} (value not shown: sensitive field)`;
  switch (node.t) {
    case 'string':
      return clip(JSON.stringify(node.value));
    case 'number':
      return clip(node.raw);
    case 'bool':
      return String(node.value);
    case 'null':
      return 'null';
    default:
      return describeType(node);
  }
}

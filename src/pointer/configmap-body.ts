// The anc-hotfix-version ConfigMap body (spec 6.6) as Go's encoding/json reads it: `.data` is an object of
// strings; the pointer is `hotfixes.json`, else the only entry. Pure: check-hotfix and `hotfix pointer
// verify` share it.
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { goTrimSpace } from '../platform/go/strings.ts';
import { goJsonKind, goLookupField, parseGoJson } from '../platform/json.ts';
import { type HotfixPointer, parsePointer } from './document.ts';

/** The ConfigMap body (spec 6.6): `.data` is an object of strings; `hotfixes.json`, else its only entry. */
export function parseConfigMapPointer(body: string): HotfixPointer {
  const fail = (message: string): never => {
    throw new AgentError('ANC_HOTFIX', message);
  };
  let doc: unknown;
  try {
    doc = parseGoJson(body);
  } catch (error) {
    return fail(`unmarshaling ConfigMap: ${jsonSyntaxProblem(body) ?? errorMessage(error)}`);
  }
  if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc)))
    fail(`unmarshaling ConfigMap: cannot unmarshal ${goJsonKind(doc)} into a ConfigMap object`);
  const data = doc === null ? undefined : goLookupField(doc as Record<string, unknown>, 'data');
  if (data !== undefined && data !== null && (typeof data !== 'object' || Array.isArray(data))) {
    fail(`unmarshaling ConfigMap: cannot unmarshal ${goJsonKind(data)} into field data of type map[string]string`);
  }
  const entries = Object.entries((data ?? {}) as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (value !== null && typeof value !== 'string')
      fail(`unmarshaling ConfigMap: cannot unmarshal ${goJsonKind(value)} into field data[${JSON.stringify(key)}] of type string`);
  }
  if (entries.length === 0) fail('ConfigMap has no data');
  const documented = entries.find(([key]) => key === 'hotfixes.json');
  if (!documented && entries.length !== 1)
    fail(`ConfigMap data has no "hotfixes.json" key and ${entries.length} entries (expected exactly 1)`);
  const value = goTrimSpace(((documented ?? entries[0])![1] as string | null) ?? '');
  if (value === '') fail('ConfigMap hotfix entry is empty');
  try {
    return parsePointer(value, 'anc-hotfix-version');
  } catch (error) {
    return fail(`unmarshaling hotfix pointer JSON: ${errorMessage(error).replace(/^parsing hotfix config anc-hotfix-version: /, '')}`);
  }
}

/** One `data` entry of the ConfigMap body (exact key), or undefined (also when the body is malformed). */
export function configMapEntry(body: string, key: string): unknown {
  try {
    const doc = JSON.parse(body) as Record<string, unknown> | null;
    const data = doc !== null && typeof doc === 'object' ? goLookupField(doc, 'data') : undefined;
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, key)) return undefined;
    return (data as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

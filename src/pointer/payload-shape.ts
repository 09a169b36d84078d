// One reading of signed bytes (issue 25): the pointer file reader that older agents (and the unsigned
// copy) use follows Go encoding/json — keys match case-insensitively, a legacy `version` is honoured,
// a repeated map key merges, a lone surrogate becomes U+FFFD — while the signed schema is read exactly.
// A signed payload is accepted only when both readings agree by construction: exactly the schema's keys
// at the top and in each wave, no key twice in any object, no lone surrogate. Pure.
import { type JsonNode, scanJson } from '../platform/json-scan.ts';

const TOP_KEYS = ['schemaVersion', 'serial', 'expires', 'scope', 'hotfixes', 'rollout', 'recall', 'halted'];
const WAVE_KEYS = ['percent', 'salt', 'schedule', 'gatedSchedule'];
const STEP_KEYS = ['at', 'percent', 'gated'];
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why the two readers could read `text` differently, or undefined when they cannot. */
export function readingAmbiguity(text: string): string | undefined {
  const { root, error } = scanJson(text);
  if (error || root?.t !== 'object') return undefined; // the schema reader refuses these itself
  for (const entry of root.entries) {
    if (!TOP_KEYS.includes(entry.key)) return unknownKey(entry.key, TOP_KEYS, '');
  }
  const rollout = root.entries.find((e) => e.key === 'rollout')?.value;
  if (rollout?.t === 'object') {
    for (const { key: base, value: wave } of rollout.entries) {
      if (wave.t !== 'object') continue;
      const bad = wave.entries.find((e) => !WAVE_KEYS.includes(e.key));
      if (bad) return unknownKey(bad.key, WAVE_KEYS, `rollout[${JSON.stringify(base)}].`);
      for (const list of ['schedule', 'gatedSchedule']) {
        const schedule = wave.entries.find((e) => e.key === list)?.value;
        for (const [i, step] of (schedule?.t === 'array' ? schedule.items : []).entries()) {
          const extra = step.t === 'object' ? step.entries.find((e) => !STEP_KEYS.includes(e.key)) : undefined;
          if (extra) return unknownKey(extra.key, STEP_KEYS, `rollout[${JSON.stringify(base)}].${list}[${i}].`);
        }
      }
    }
  }
  return duplicateOrSurrogate(root, '');
}

function unknownKey(key: string, allowed: string[], where: string): string {
  const folded = allowed.find((k) => k.toLowerCase() === key.toLowerCase());
  const why = folded
    ? `a pointer reader matching keys case-insensitively would read it as "${folded}"`
    : key.toLowerCase() === 'version' || key.toLowerCase() === 'scripts_version'
      ? 'a pointer reader would read it as the legacy single pointer'
      : `the signed schema has only ${allowed.map((k) => `"${k}"`).join(', ')} here`;
  return `key ${JSON.stringify(`${where}${key}`)} is not part of the signed pointer: ${why}`;
}

function duplicateOrSurrogate(node: JsonNode, path: string): string | undefined {
  if (node.t === 'string') return node.wellFormed ? undefined : `${path || 'a value'} holds a lone UTF-16 surrogate`;
  const children =
    node.t === 'object'
      ? node.entries.map((e) => ({ key: e.key, value: e.value, where: `${path}${path ? '.' : ''}${e.key}` }))
      : node.t === 'array'
        ? node.items.map((value, i) => ({ key: undefined, value, where: `${path}[${i}]` }))
        : [];
  const seen = new Set<string>();
  for (const { key, value, where } of children) {
    if (key !== undefined) {
      if (LONE_SURROGATE.test(key)) return `key ${JSON.stringify(where)} holds a lone UTF-16 surrogate`;
      if (seen.has(key)) return `key ${JSON.stringify(where)} appears twice (readers disagree on which one counts)`;
      seen.add(key);
    }
    const found = duplicateOrSurrogate(value, where);
    if (found) return found;
  }
  return undefined;
}

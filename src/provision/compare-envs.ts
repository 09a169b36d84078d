// compareEnvs (spec 4.7): when both --provision-config and --nbc-cmd are given, report which CSE
// variables the config-built command and the NBC command file disagree on. Only key names are ever
// reported; values (secrets among them) never leave this module.
import { goTrimSpace } from '../platform/go/strings.ts';

const DELIMITERS = new Set([' ', '\t', '\n', ';']);
const KEY_AT = /^[A-Z_][A-Z0-9_]*=/;

/** Keys the NBC file is expected to carry differently (HEAD adds REPO_DEPOT_ENDPOINT). */
export const IGNORED_KEYS: ReadonlySet<string> = new Set([
  'CLOUD_INIT_STATUS_SCRIPT',
  'HYPERKUBE_URL',
  'MCR_REPOSITORY_BASE',
  'BLOCK_OUTBOUND_NETWORK',
  'SKIP_WAAGENT_HOLD',
  'REPO_DEPOT_ENDPOINT',
]);

function keyAt(text: string, i: number): string | undefined {
  const match = KEY_AT.exec(text.slice(i, i + 256));
  return match ? match[0].slice(0, -1) : undefined;
}

/** Index after a quoted segment starting at `i` (the end of the text when it is never closed). */
function closeQuote(text: string, i: number): number {
  const close = text.indexOf(text[i]!, i + 1);
  return close < 0 ? text.length : close + 1;
}

function parseValue(text: string, start: number): [value: string, next: number] {
  let value = '';
  let i = start;
  while (i < text.length && !DELIMITERS.has(text[i]!)) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      value += close < 0 ? text.slice(i + 1) : text.slice(i + 1, close);
      i = close < 0 ? text.length : close + 1;
      continue;
    }
    // An unquoted run ends where the text itself looks like the next `KEY=` (`A="x"B="y"`).
    if (keyAt(text, i) !== undefined) break;
    value += c;
    i++;
  }
  return [value, i];
}

function skipToken(text: string, start: number): number {
  let i = start;
  while (i < text.length && !DELIMITERS.has(text[i]!)) {
    i = text[i] === '"' || text[i] === "'" ? closeQuote(text, i) : i + 1;
  }
  return i;
}

/** parseEnvVarsFromNBCCmdContent (spec 4.7): the KEY=value assignments of an NBC command file. */
export function parseEnvVarsFromNBCCmdContent(text: string): Map<string, string> {
  const env = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    if (DELIMITERS.has(text[i]!)) {
      i++;
      continue;
    }
    const key = keyAt(text, i);
    if (key === undefined) {
      i = skipToken(text, i);
      continue;
    }
    const [value, next] = parseValue(text, i + key.length + 1);
    env.set(key, value);
    i = next;
  }
  return env;
}

function decodeStdBase64(text: string): string | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

function sysctlLines(decoded: string): Set<string> {
  return new Set(
    decoded
      .split('\n')
      .map(goTrimSpace)
      .filter((l) => l !== ''),
  );
}

const withoutQuotes = (v: string) => v.replace(/"/g, '');

/** Equal when identical or identical without `"`; SYSCTL_CONTENT as sets of decoded lines. */
export function valuesEqual(key: string, a: string, b: string): boolean {
  if (a === b) return true;
  if (key === 'SYSCTL_CONTENT') {
    const da = decodeStdBase64(a);
    const db = decodeStdBase64(b);
    if (da !== undefined && db !== undefined) {
      const sa = sysctlLines(da);
      const sb = sysctlLines(db);
      return sa.size === sb.size && [...sa].every((line) => sb.has(line));
    }
  }
  return withoutQuotes(a) === withoutQuotes(b);
}

/**
 * The CSE-specific part of the config-built environment: entries absent from the agent's own
 * environment or with a different value there.
 */
export function cseSpecific(merged: Record<string, string>, processEnv: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(merged)) if (processEnv[key] !== value) out.set(key, value);
  return out;
}

/** The diff lines (`only-in-pc: K`, `only-in-nbc: K`, `differs: K`) over the sorted union of keys. */
export function diffEnvs(pc: Map<string, string>, nbc: Map<string, string>): string[] {
  const keys = [...new Set([...pc.keys(), ...nbc.keys()])].sort();
  const diffs: string[] = [];
  for (const key of keys) {
    const a = pc.get(key);
    const b = nbc.get(key);
    if (b === undefined) diffs.push(`only-in-pc: ${key}`);
    else if (IGNORED_KEYS.has(key)) continue;
    else if (a === undefined) diffs.push(`only-in-nbc: ${key}`);
    else if (!valuesEqual(key, a, b)) diffs.push(`differs: ${key}`);
  }
  return diffs;
}

/** The CompareEnvs event message (spec 3). */
export function compareMessage(diffs: readonly string[]): string {
  return diffs.length === 0
    ? 'env vars match between provision-config and nbc-cmd'
    : `env var differences (${diffs.length}): ${diffs.join('; ')}`;
}

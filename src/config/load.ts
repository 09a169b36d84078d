// Loading the node configuration (config-contract section 2, DECISIONS D7). Public API used by every
// other module: loadConfiguration never throws; it returns what could be decoded plus every problem.
//
// Rules (docs/config.md has the operator view):
// - strict JSON syntax; a syntax error is ONE 'syntax' error issue and the config keeps every field that
//   was completely read before the error point (containers opened before the error keep their complete
//   entries). Text after a complete top-level object is a warning naming its byte offset: the object is
//   complete, so the configuration provisions, as the reference's does (config-contract 2.6 rule 6); a
//   truncated file (the object never closes) stays an error. A UTF-8 BOM is skipped with a warning. Empty input / a non-object top level -> config {} plus an error.
// - both spellings (json name first, then proto name); unknown keys -> 'unknown-field' warnings;
// - a bad value drops only itself (field, array element or map entry) with a 'bad-value' error naming
//   the path, what was expected and what was found (type only for credentials, echoes clipped to 40);
// - an unknown enum NAME -> field unset + 'bad-value' warning; an undefined enum NUMBER is stored;
// - a field (or map key) given twice -> 'duplicate-field' error, the first value is kept;
// - `null` = unset (still counts for duplicate detection); empty arrays / maps are unset;
// - the version gate: 'version' error unless v0/v1 (v0 -> deprecation warning).
import { decodeMessage } from './decode.ts';
import type { DecodeContext } from './decode.ts';
import { clip, describeType } from './issues.ts';
import type { ConfigIssue } from './issues.ts';
import { lineColumns, scanJson } from '../platform/json-scan.ts';
import type { Configuration } from './types.ts';

export type { ConfigIssue } from './issues.ts';

export interface LoadResult {
  config: Configuration;
  issues: ConfigIssue[];
}

export const V0_DEPRECATED = 'v0 version is deprecated, please use v1 instead';

/** `unsupported version: <v>` unless the version is exactly v0 or v1 (reference 4.3). */
export function versionProblem(config: Configuration): string | undefined {
  const v = config.version ?? '';
  if (v === 'v0' || v === 'v1') return undefined;
  // The reference's text, whole (N10): it reaches provision.json and the event.
  return `unsupported version: ${v}`;
}

function loadUnsafe(text: string): LoadResult {
  const issues: ConfigIssue[] = [];
  const position = lineColumns(text);
  const where = (at: number): string => {
    const { line, column } = position(at);
    return ` (line ${line}, column ${column})`;
  };
  const scan = scanJson(text);
  if (scan.bom) {
    issues.push({ path: '$', severity: 'warning', kind: 'syntax', message: 'UTF-8 byte order mark at the start of the file (skipped)' });
  }
  let config: Configuration = {};
  const root = scan.root;
  if (root && root.t === 'object') {
    const ctx: DecodeContext = { issues, where };
    config = decodeMessage(ctx, root, 'Configuration', '$') as Configuration;
  } else if (root) {
    const found = describeType(root);
    const expected = 'a JSON object (Configuration)';
    issues.push({
      path: '$',
      severity: 'error',
      kind: 'bad-value',
      message: `the document must be ${expected}, found ${found}`,
      expected,
      found,
    });
  }
  if (scan.error?.afterValue && root?.t === 'object') {
    const message = `extra text after the configuration object at byte offset ${utf8Length(text.slice(0, scan.error.at))}${where(scan.error.at)} is ignored`;
    issues.push({ path: '$', severity: 'warning', kind: 'syntax', message });
  } else if (scan.error) {
    const keep = root && root.t === 'object' ? '; fields read before this point are kept' : '';
    issues.push({
      path: '$',
      severity: 'error',
      kind: 'syntax',
      message: `invalid JSON: ${scan.error.message}${where(scan.error.at)}${keep}`,
    });
  }
  const problem = versionProblem(config);
  if (problem) {
    const found = config.version === undefined ? 'nothing' : clip(JSON.stringify(config.version));
    issues.push({
      path: '$.version',
      severity: 'error',
      kind: 'version',
      message: `unsupported version: ${clip(config.version ?? '')}`,
      expected: '"v1" (or the deprecated "v0")',
      found,
    });
  } else if (config.version === 'v0') {
    issues.push({ path: '$.version', severity: 'warning', kind: 'version', message: V0_DEPRECATED });
  }
  return { config, issues };
}

/** UTF-8 byte length (the offset a reader of the file sees; the text holds no lone surrogates). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const c of text) {
    const cp = c.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Parses a configuration document. Never throws, whatever the input. */
export function loadConfiguration(text: string): LoadResult {
  try {
    return loadUnsafe(typeof text === 'string' ? text : String(text));
  } catch (e) {
    const detail = e instanceof Error ? e.message : 'unknown failure';
    return {
      config: {},
      issues: [{ path: '$', severity: 'error', kind: 'syntax', message: `configuration could not be read: ${clip(detail, 200)}` }],
    };
  }
}

/** Issues of one severity. */
export function errorsOf(result: LoadResult): ConfigIssue[] {
  return result.issues.filter((i) => i.severity === 'error');
}

// provision.json / provision.complete (spec 4.5) and their evaluation by provision-wait (spec 5).
// On success the scripts own both files; on any failure the agent writes the fallback pair so that
// provision-wait can never hang on a fail-fast path.
import { dirname } from 'node:path';
import type { Deps } from '../platform/deps.ts';
import { goAtoi } from '../platform/go/strconv.ts';
import { goEqualFold } from '../platform/go/strings.ts';
import { goJson, parseGoJson } from '../platform/json.ts';
import { pathError } from './path-error.ts';

/** The reference's result record; every value is a string (`ExitCode` "240", "-1", "3", ...). */
export interface ProvisionResult {
  ExitCode: string;
  Error: string;
  Output: string;
}

/** Exit code recorded for failures before anything ran (missing flags, bad config, crash: D6). */
export const CONFIG_ERROR_EXIT_CODE = '240';

/** Compact Go json.Marshal form, keys in the reference's struct order. */
export function renderProvisionJson(result: ProvisionResult): string {
  return goJson({ ExitCode: result.ExitCode, Error: result.Error, Output: result.Output });
}

type StatusDeps = Pick<Deps, 'fs' | 'paths' | 'log'>;

/**
 * writeCompleteFileOnError (spec 4.5): provision.json only when none exists (a failed script's own file
 * wins; exclusive create, so a file the script writes concurrently is never clobbered either), then
 * provision.complete, in that order so a waiter never sees the sentinel before the result.
 */
export function writeCompleteFileOnError(deps: StatusDeps, result: ProvisionResult): void {
  writeResultIfAbsent(deps, result);
  createSentinelIfAbsent(deps);
}

function writeResultIfAbsent({ fs, paths, log }: StatusDeps, result: ProvisionResult): void {
  const file = paths.provisionJson;
  try {
    if (fs.stat(file) !== undefined) {
      log.info('provision.json already exists; keeping it', { path: file });
      return;
    }
  } catch (error) {
    log.error('failed to stat provision.json', { path: file, error: pathError('stat', file, error) });
    return;
  }
  try {
    fs.mkdirp(dirname(file), 0o755);
    fs.writeFile(file, renderProvisionJson(result), { mode: 0o600, exclusive: true });
    fs.chmod(file, 0o600);
  } catch (error) {
    log.error('failed to write provision.json', { path: file, error: pathError('open', file, error) });
  }
}

function createSentinelIfAbsent({ fs, paths, log }: StatusDeps): void {
  const file = paths.provisionComplete;
  try {
    if (fs.stat(file) !== undefined) return;
  } catch (error) {
    log.error('failed to stat provision.complete', { path: file, error: pathError('stat', file, error) });
    return;
  }
  try {
    // The parent is deliberately not created (spec 4.5): it is the image's, and provision-wait makes it.
    fs.writeFile(file, '', { mode: 0o600, exclusive: true });
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return;
    log.error('failed to create provision.complete', { path: file, error: pathError('open', file, error) });
  }
}

const RESULT_KEYS = ['ExitCode', 'Error', 'Output'] as const;

/**
 * Go encoding/json into `struct {ExitCode, Error, Output string}`: keys match case-insensitively, later
 * keys win, extra keys are ignored, `null` leaves a field unset, any other non-string is an error.
 */
export function decodeProvisionJson(text: string): { result: ProvisionResult } | { error: string } {
  let value: unknown;
  try {
    value = parseGoJson(text);
  } catch (error) {
    return { error: /^[ \t\n\r]*$/.test(text) ? 'unexpected end of JSON input' : `invalid character in JSON: ${(error as Error).message}` };
  }
  const result: ProvisionResult = { ExitCode: '', Error: '', Output: '' };
  if (value === null) return { result };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { error: `json: cannot unmarshal ${goKind(value)} into Go value of type main.ProvisionResult` };
  }
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const name = RESULT_KEYS.find((k) => goEqualFold(key, k));
    if (!name || field === null) continue;
    if (typeof field !== 'string') {
      return { error: `json: cannot unmarshal ${goKind(field)} into Go struct field ProvisionResult.${name} of type string` };
    }
    result[name] = field;
  }
  return { result };
}

function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object' && value !== null) return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Spec 5: undefined when provisioning succeeded, else the error text provision-wait reports. */
export function evaluateProvisionJson(text: string): string | undefined {
  const decoded = decodeProvisionJson(text);
  if ('error' in decoded) return `parse provision.json: ${decoded.error}`;
  const result = decoded.result;
  if (result.ExitCode === '') return 'missing ExitCode in provision.json';
  const code = goAtoi(result.ExitCode);
  if (code === undefined) return `invalid ExitCode in provision.json: ${result.ExitCode}`;
  if (code === 0n) return undefined;
  return `provision failed: exitCode=${code} error=${result.Error} output=${goQuote(result.Output)}`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\',
};

/** Go strconv.Quote (%q): printable runes kept, the rest escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp > 0x7f && /[\p{C}\p{Z}]/u.test(ch) && cp !== 0x20) {
      out += cp > 0xffff ? '\\U' + cp.toString(16).padStart(8, '0') : '\\u' + cp.toString(16).padStart(4, '0');
    } else out += ch;
  }
  return out + '"';
}

// provision.json / provision.complete (spec 4.5) and their evaluation by provision-wait (spec 5).
// On success the scripts own both files; on any failure the agent writes the fallback pair so that
// provision-wait can never hang on a fail-fast path.
import { goJsonSyntaxError } from '../platform/go/json-syntax.ts';
import { dirname } from 'node:path';
import type { Deps } from '../platform/deps.ts';
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { clip } from '../platform/errors.ts';
import { goAtoi } from '../platform/go/strconv.ts';
import { goEqualFold } from '../platform/go/strings.ts';
import { goJson, parseGoJson } from '../platform/json.ts';
import { TEMP_PREFIX } from '../platform/temp-files.ts';
import { pathError } from '../platform/path-error.ts';
import { goText } from '../platform/go/utf8.ts';

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
 * writeCompleteFileOnError (spec 4.5): provision.json, then provision.complete, in that order so a waiter
 * never sees the sentinel before the result. A valid provision.json (a failed script's own) is kept; a
 * missing, empty or invalid one (left by a crash or a full disk) is replaced whole (temp, fsync, rename).
 * The sentinel is created only once a valid provision.json is on disk: without one it would only turn a
 * wait into a parse error that loses the exit code.
 */
export function writeCompleteFileOnError(deps: StatusDeps, result: ProvisionResult): void {
  if (writeResultUnlessValid(deps, result)) createSentinelIfAbsent(deps);
}

/** Whether the file holds a provision result a waiter can evaluate (any failure to read counts as no). */
function holdsValidResult({ fs }: StatusDeps, file: string): boolean {
  try {
    const decoded = decodeProvisionJson(goText(fs.readFile(file, 'status')));
    return 'result' in decoded && decoded.result.ExitCode !== '';
  } catch {
    return false;
  }
}

/** The failing operation as the error names it (`write` on a full disk, not `open`). */
function failedOperation(error: unknown, fallback: string): string {
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  return typeof syscall === 'string' && syscall !== '' ? syscall : fallback;
}

/** Returns whether a valid provision.json exists afterwards. */
function writeResultUnlessValid(deps: StatusDeps, result: ProvisionResult): boolean {
  const { fs, paths, log } = deps;
  const file = paths.provisionJson;
  if (fs.exists(file)) {
    if (holdsValidResult(deps, file)) {
      log.info('provision.json already exists; keeping it', { path: file });
      return true;
    }
    log.warn('provision.json exists but holds no valid result (empty or partial); replacing it', { path: file });
  }
  try {
    fs.mkdirp(dirname(file), 0o755);
    fs.atomicWrite(file, renderProvisionJson(result), { mode: 0o600, tempPrefix: TEMP_PREFIX.status });
  } catch (error) {
    log.error('failed to write provision.json', { path: file, error: pathError(failedOperation(error, 'write'), file, error) });
    return false;
  }
  return holdsValidResult(deps, file);
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
    log.error('failed to create provision.complete', { path: file, error: pathError(failedOperation(error, 'open'), file, error) });
  }
}

const RESULT_KEYS = ['ExitCode', 'Error', 'Output'] as const;

/**
 * Go encoding/json into `struct {ExitCode, Error, Output string}`: keys match case-insensitively, later
 * keys win, extra keys are ignored, `null` leaves a field unset, any other non-string is an error.
 */
export function decodeProvisionJson(text: string): { result: ProvisionResult } | { error: string } {
  // N15: Go's scanner refuses nesting deeper than 10,000 before it decodes anything; JSON.parse has no limit.
  const syntax = goJsonSyntaxError(Buffer.from(text, 'utf8'));
  if (syntax?.endsWith('exceeded max depth')) return { error: syntax };
  let value: unknown;
  try {
    value = parseGoJson(text);
  } catch (error) {
    // Never the parser's message: it would quote the file (which may be megabytes of anything).
    const problem = jsonSyntaxProblem(text) ?? `not valid JSON (${clip((error as Error).name)})`;
    if (/^[ \t\n\r]*$/.test(text)) return { error: 'unexpected end of JSON input' };
    if (problem.startsWith('not complete'))
      return { error: `unexpected end of JSON input (${problem.replace(/^not complete JSON \(|\)$/g, '')})` };
    return { error: `invalid character in JSON: ${problem}` };
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
  if (code === undefined) return `invalid ExitCode in provision.json: ${clip(result.ExitCode)}`;
  if (code === 0n) return undefined;
  return `provision failed: exitCode=${code} error=${result.Error} output=${goQuote(result.Output)}`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
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

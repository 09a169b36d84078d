// check-hotfix (spec 6.6; D1-D3): fetch the fleet's pointer from the anc-hotfix-version ConfigMap, stage it
// at the pointer-file path for download-hotfix, report ONE outcome. Never installs anything and always
// exits 0: runCheckHotfix is the single fail-open wrapper (STYLE 9). Inside it, helpers return or throw
// AgentErrors normally. The fetch comes in as a function (hotfix/ does not import kube/).
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage, isAgentError } from '../platform/errors.ts';
import { emptyPointer, mergePointer, parsePointer, serializePointer, type HotfixPointer } from './pointer.ts';
import { resolveVersion } from './resolve.ts';
import { startAttrs } from '../platform/build-info.ts';

/** D3: the closed set of outcomes. */
export type CheckHotfixOutcome = 'configMapRead' | 'noHotfixForBase' | 'customDataFallback' | 'failed';

export interface CheckHotfixReport {
  outcome: CheckHotfixOutcome;
  error?: string;
}

export interface CheckHotfixRun {
  /** Positional arguments: none are expected; extras are ignored with a WARN (D3). */
  args: readonly string[];
  /** Returns the ConfigMap JSON body; any rejection counts as a failed fetch (cold-start fallback). */
  fetchConfigMap: () => Promise<string>;
}

export type CheckDeps = Pick<Deps, 'fs' | 'paths' | 'log' | 'events' | 'clock' | 'version' | 'execPath'>;

const TASK = 'CheckHotfix';

/** The fail-open wrapper: every throw, expected or not, becomes outcome `failed`; the exit code is 0. */
export async function runCheckHotfix(deps: CheckDeps, run: CheckHotfixRun): Promise<number> {
  const start = deps.clock.now();
  let report: CheckHotfixReport = { outcome: 'failed', error: 'check-hotfix did not finish' };
  try {
    deps.log.info('aks-node-controller check-hotfix started', startAttrs(deps));
    if (run.args.length > 0) deps.log.warn('ignoring unexpected check-hotfix arguments', { args: run.args.join(' ') });
    report = await checkHotfix(deps, run.fetchConfigMap);
  } catch (error) {
    report = { outcome: 'failed', error: isAgentError(error) ? error.message : `unexpected error: ${errorMessage(error)}` };
  } finally {
    // The log and the event sink swallow their own I/O errors, so reporting cannot throw.
    reportOutcome(deps, start, report);
  }
  return 0;
}

function reportOutcome(deps: CheckDeps, start: Date, report: CheckHotfixReport): void {
  if (report.error === undefined) deps.log.info('check-hotfix completed', { outcome: report.outcome });
  else deps.log.warn('check-hotfix completed with error (fail-open)', { outcome: report.outcome, error: report.error });
  const message = `check-hotfix outcome=${report.outcome}${report.error === undefined ? '' : ` error=${report.error}`}`;
  deps.events.emit({ task: TASK, message, level: report.outcome === 'failed' ? 'Error' : 'Informational', start, end: deps.clock.now() });
}

/** The workflow: returns a success outcome or throws an AgentError that names the failure. */
export async function checkHotfix(deps: CheckDeps, fetchConfigMap: () => Promise<string>): Promise<CheckHotfixReport> {
  let body: string;
  try {
    body = await fetchConfigMap();
  } catch (fetchError) {
    return coldStart(deps, fetchError);
  }
  let served: HotfixPointer;
  try {
    served = parseConfigMapPointer(body);
  } catch (error) {
    // A ConfigMap that was fetched but cannot be parsed does NOT fall back (spec 6.6).
    throw new AgentError('ANC_HOTFIX', `parsing anc-hotfix-version ConfigMap: ${errorMessage(error)}`);
  }
  const staged = stagePointer(deps, served.hotfixes, served.version);
  // D3: judged on what download-hotfix will read (the staged file), against our own version.
  const { resolved } = resolveVersion(staged, deps.version);
  return { outcome: resolved === '' ? 'noHotfixForBase' : 'configMapRead' };
}

/** The ConfigMap body (spec 6.6): `.data` is an object of strings; `hotfixes.json`, else its only entry. */
export function parseConfigMapPointer(body: string): HotfixPointer {
  const fail = (message: string): never => {
    throw new AgentError('ANC_HOTFIX', message);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (error) {
    return fail(`unmarshaling ConfigMap: ${errorMessage(error)}`);
  }
  if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) fail(`unmarshaling ConfigMap: cannot unmarshal ${jsonKind(doc)} into a ConfigMap object`);
  const data = doc === null ? undefined : lookupFolded(doc as Record<string, unknown>, 'data');
  if (data !== undefined && data !== null && (typeof data !== 'object' || Array.isArray(data))) {
    fail(`unmarshaling ConfigMap: cannot unmarshal ${jsonKind(data)} into field data of type map[string]string`);
  }
  const entries = Object.entries((data ?? {}) as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (value !== null && typeof value !== 'string') fail(`unmarshaling ConfigMap: cannot unmarshal ${jsonKind(value)} into field data[${JSON.stringify(key)}] of type string`);
  }
  if (entries.length === 0) fail('ConfigMap has no data');
  const documented = entries.find(([key]) => key === 'hotfixes.json');
  if (!documented && entries.length !== 1) fail(`ConfigMap data has no "hotfixes.json" key and ${entries.length} entries (expected exactly 1)`);
  const value = (((documented ?? entries[0])![1] as string | null) ?? '').trim();
  if (value === '') fail('ConfigMap hotfix entry is empty');
  try {
    return parsePointer(value, 'anc-hotfix-version');
  } catch (error) {
    return fail(`unmarshaling hotfix pointer JSON: ${errorMessage(error).replace(/^parsing hotfix config anc-hotfix-version: /, '')}`);
  }
}

/** Only after a failed FETCH: the node config's top-level `hotfixes` (plain JSON, spec 6.6). */
function coldStart(deps: CheckDeps, fetchError: unknown): CheckHotfixReport {
  const e1 = errorMessage(fetchError);
  deps.log.warn('failed to read anc-hotfix-version ConfigMap, attempting cold-start fallback', { error: e1 });
  let hotfixes: Record<string, string> | undefined;
  try {
    hotfixes = readColdStartHotfixes(deps);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `configmap fetch failed (${e1}) and cold-start fallback failed: ${errorMessage(error)}`);
  }
  if (!hotfixes || Object.keys(hotfixes).length === 0) {
    throw new AgentError('ANC_HOTFIX', `configmap fetch failed and no cold-start pointer present: ${e1}`);
  }
  stagePointer(deps, hotfixes);
  return { outcome: 'customDataFallback' };
}

/** undefined when the node config is missing or has no `hotfixes`; throws when it cannot be used. */
export function readColdStartHotfixes(deps: Pick<Deps, 'fs' | 'paths'>): Record<string, string> | undefined {
  const path = deps.paths.nodeConfig;
  const where = deps.paths.strip(path);
  let text: string;
  try {
    if (!deps.fs.stat(path)) return undefined;
    text = deps.fs.readText(path);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `reading node config ${where}: ${shortIoError(error)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // Never quote the parser's message: it may echo a piece of the file, which holds the bootstrap token.
    throw new AgentError('ANC_HOTFIX', `parsing node config ${where}: not valid JSON`);
  }
  if (doc === null) return undefined;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new AgentError('ANC_HOTFIX', `parsing node config ${where}: cannot unmarshal ${jsonKind(doc)} into an object`);
  const value = lookupFolded(doc as Record<string, unknown>, 'hotfixes');
  if (value === undefined || value === null) return undefined;
  return parsePointer(JSON.stringify({ hotfixes: value }), where).hotfixes;
}

/**
 * D2 staging: read-modify-write of the pointer file (keep `version` / `scripts_version`, replace
 * `hotfixes`, a served legacy `version` replaces ours), atomic, with the existing file's mode or 0644.
 */
export function stagePointer(deps: CheckDeps, hotfixes: Record<string, string>, legacyVersion?: string): HotfixPointer {
  const path = deps.paths.hotfixPointer;
  const where = deps.paths.strip(path);
  let existingText: string | null = null;
  let mode = 0o644;
  try {
    const stat = deps.fs.stat(path);
    if (stat) {
      mode = stat.mode & 0o777;
      existingText = deps.fs.readText(path);
    }
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `reading existing hotfix pointer ${where}: ${shortIoError(error)}`);
  }
  let existing = emptyPointer();
  try {
    existing = parsePointer(existingText, where);
  } catch (error) {
    // download-hotfix cannot read it either: replacing it is the only way forward.
    deps.log.warn('existing hotfix pointer is not valid; replacing it', { path: where, error: errorMessage(error) });
  }
  const merged = mergePointer(existing, hotfixes, legacyVersion);
  try {
    const dir = path.slice(0, path.lastIndexOf('/')) || '/';
    if (!deps.fs.exists(dir)) deps.fs.mkdirp(dir, 0o755);
    deps.fs.atomicWrite(path, serializePointer(merged), { mode, tempPrefix: '.aks-node-controller-hotfix-' });
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `staging hotfix pointer ${where}: ${shortIoError(error)}`);
  }
  deps.log.info('staged hotfix pointer for download-hotfix', { path: where });
  return merged;
}

/** `EACCES: permission denied` from a Node fs error, without the sandboxed path it names. */
function shortIoError(error: unknown): string {
  const message = errorMessage(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && message.startsWith(code) ? message.split(', ')[0]! : message;
}

/** Go encoding/json key matching: the exact key, else the last case-insensitive match. */
function lookupFolded(obj: Record<string, unknown>, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(obj, name)) return obj[name];
  let found: unknown;
  for (const key of Object.keys(obj)) if (key.toLowerCase() === name) found = obj[key];
  return found;
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

// check-hotfix (spec 6.6; D1-D3): fetch the fleet's pointer from the anc-hotfix-version ConfigMap, stage it
// at the pointer-file path for download-hotfix, report ONE outcome. Never installs anything and always
// exits 0: runCheckHotfix is the single fail-open wrapper (STYLE 9). Inside it, helpers return or throw
// AgentErrors normally. The fetch comes in as a function (hotfix/ does not import kube/).
import type { Deps } from '../platform/deps.ts';
import { AgentError, clip, clipEchoes, errorMessage, isAgentError } from '../platform/errors.ts';
import { jsonSyntaxProblem } from '../config/json-offset.ts';
import { readConfigurationFile, withoutBom } from '../config/read.ts';
import { goJsonKind, goLookupField, parseGoJson } from '../platform/json.ts';
import { emptyPointer, mergePointer, parsePointer, serializePointer, type HotfixPointer } from './document.ts';
import type { Verdict } from './gate.ts';
import type { SignedPointer } from './payload.ts';
import { configMapEntry, parseConfigMapPointer } from './configmap-body.ts';
import { resolveVersion } from './resolve.ts';
import { removeLeftoverTemps, TEMP_PREFIX } from '../platform/temp-files.ts';
import { startAttrs } from '../platform/build-info.ts';

/** D3: the closed set of outcomes; the last five are pointer-signing rejections (docs/pointer-signing.md). */
export type CheckHotfixOutcome =
  | 'configMapRead'
  | 'noHotfixForBase'
  | 'customDataFallback'
  | 'failed'
  | 'unsigned'
  | 'signatureInvalid'
  | 'expired'
  | 'rolledBack'
  | 'outOfScope';

export interface CheckHotfixReport {
  outcome: CheckHotfixOutcome;
  error?: string;
}

export interface CheckHotfixRun {
  /** Positional arguments: none are expected; extras are ignored with a WARN (D3). */
  args: readonly string[];
  /** Returns the ConfigMap JSON body; any rejection counts as a failed fetch (cold-start fallback). */
  fetchConfigMap: () => Promise<string>;
  /** The whole command's bound; CHECK_TOTAL_BOUND_MS unless a test shortens it. */
  totalBoundMs?: number;
}

/** `env`: ANC_HOTFIX_POINTER_SIGNING, as the launcher passes it from enabled_features.sh (docs/pointer-signing.md). */
export type CheckDeps = Pick<Deps, 'fs' | 'paths' | 'log' | 'events' | 'clock' | 'version' | 'env' | 'execPath'>;

const TASK = 'CheckHotfix';

/** The whole command's bound (the request's own 10 s bound sits inside it); it starts before the first read. */
export const CHECK_TOTAL_BOUND_MS = 12_000;

/** The fail-open wrapper: every throw, expected or not, becomes outcome `failed`; the exit code is 0. */
export async function runCheckHotfix(deps: CheckDeps, run: CheckHotfixRun): Promise<number> {
  const start = deps.clock.now();
  let report: CheckHotfixReport = { outcome: 'failed', error: 'check-hotfix did not finish' };
  try {
    deps.log.info('aks-node-controller check-hotfix started', startAttrs(deps, TASK));
    removeLeftoverTemps(deps, deps.paths.containersDir, TEMP_PREFIX.pointer, start);
    if (run.args.length > 0) deps.log.warn('ignoring unexpected check-hotfix arguments', { args: clip(run.args.join(' ')) });
    report = await withinTotalBound(deps, run.fetchConfigMap, run.totalBoundMs ?? CHECK_TOTAL_BOUND_MS);
  } catch (error) {
    report = { outcome: 'failed', error: isAgentError(error) ? error.message : `unexpected error: ${errorMessage(error)}` };
  } finally {
    // The log and the event sink swallow their own I/O errors, so reporting cannot throw.
    reportOutcome(deps, start, report);
  }
  return 0;
}

/**
 * Runs the workflow against CHECK_TOTAL_BOUND_MS. When the bound passes first the outcome is `failed`, and
 * a fetch that answers later is dropped (it never resolves), so nothing is staged after the report.
 */
async function withinTotalBound(deps: CheckDeps, fetchConfigMap: () => Promise<string>, boundMs: number): Promise<CheckHotfixReport> {
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<CheckHotfixReport>((resolve) => {
    timer = setTimeout(() => {
      expired = true;
      resolve({ outcome: 'failed', error: `check-hotfix did not finish within ${boundMs / 1000} s` });
    }, boundMs);
  });
  const never = new Promise<string>(() => {});
  const fetch = () =>
    fetchConfigMap().then(
      (body) => (expired ? never : body),
      (error: unknown) => (expired ? never : Promise.reject(error)),
    );
  try {
    return await Promise.race([checkHotfix(deps, fetch), bound]);
  } finally {
    clearTimeout(timer);
  }
}

function reportOutcome(deps: CheckDeps, start: Date, reported: CheckHotfixReport): void {
  const report = reported.error === undefined ? reported : { ...reported, error: clipEchoes(reported.error) };
  if (report.error === undefined) deps.log.info('check-hotfix completed', { outcome: report.outcome });
  else deps.log.warn('check-hotfix completed with error (fail-open)', { outcome: report.outcome, error: report.error });
  const message = `check-hotfix outcome=${report.outcome}${report.error === undefined ? '' : ` error=${report.error}`}`;
  const ok = ['configMapRead', 'noHotfixForBase', 'customDataFallback'].includes(report.outcome);
  deps.events.emit({ task: TASK, message, level: ok ? 'Informational' : 'Error', start, end: deps.clock.now() });
  deps.log.say(`check-hotfix: ${CHECK_SAYS[report.outcome](report.error ?? '', deps.paths.strip(deps.paths.hotfixPointer))}`);
}

/** The outcome in one sentence for a person at a terminal. */
const CHECK_SAYS: Record<CheckHotfixOutcome, (error: string, pointer: string) => string> = {
  configMapRead: (_e, pointer) => `staged the cluster's pointer at ${pointer}; download-hotfix acts on it`,
  noHotfixForBase: (_e, pointer) => `staged the cluster's pointer at ${pointer}; it lists no hotfix for this image's base`,
  customDataFallback: (_e, pointer) => `the ConfigMap could not be read; staged the node configuration's cold-start pointer at ${pointer}`,
  failed: (error) => `failed (fail-open): ${error}; nothing staged`,
  unsigned: (error) => `refused an unsigned pointer (fail-open): ${error}; nothing staged`,
  signatureInvalid: (error) => `refused a pointer whose signature does not verify (fail-open): ${error}; nothing staged`,
  expired: (error) => `refused an expired pointer (fail-open): ${error}; nothing staged`,
  rolledBack: (error) => `refused a rolled-back pointer (fail-open): ${error}; nothing staged`,
  outOfScope: (error) => `refused a pointer signed for other nodes (fail-open): ${error}; nothing staged`,
};

/** The workflow: returns a success outcome or throws an AgentError that names the failure. */
export async function checkHotfix(deps: CheckDeps, fetchConfigMap: () => Promise<string>): Promise<CheckHotfixReport> {
  let body: string;
  try {
    body = await fetchConfigMap();
  } catch (fetchError) {
    return coldStart(deps, fetchError);
  }
  const { ENVELOPE_KEY, gateOnNode, nodeSigning } = await import('./node-gate.ts');
  const envelope = configMapEntry(body, ENVELOPE_KEY);
  const signing = nodeSigning(deps);
  const gate = gateOnNode(deps, signing, envelope === undefined ? {} : { envelope }, 'configMap');
  if (!gate.verdict.accepted) return rejection(gate.verdict);
  let served: HotfixPointer;
  try {
    // With an envelope only its signed bytes are read; without one, the ConfigMap as before.
    served = gate.verdict.signed ? signedPointer(gate.verdict.pointer) : parseConfigMapPointer(body);
  } catch (error) {
    // A ConfigMap that was fetched but cannot be parsed does NOT fall back (spec 6.6).
    throw new AgentError('ANC_HOTFIX', `parsing anc-hotfix-version ConfigMap: ${errorMessage(error)}`);
  }
  const staged = stagePointer(deps, served.hotfixes, served.version, served.rollout, served.recall);
  // D3: judged on what download-hotfix will read (the staged file), against our own version.
  const { resolved } = resolveVersion(staged, deps.version);
  gate.commit();
  const { EVIDENCE_KEY } = await import('./evidence.ts');
  const evidence = configMapEntry(body, EVIDENCE_KEY);
  (await import('./evidence-stage.ts')).stageEvidence(
    deps,
    evidence,
    signing.keys,
    gate.verdict.signed ? gate.verdict.pointer.serial : null,
  );
  return { outcome: resolved === '' ? 'noHotfixForBase' : 'configMapRead' };
}

/**
 * What a node stages from signed bytes: exactly what the signature check read (payload.ts), the one
 * reader `hotfix pointer verify` and `sign` use too; a signed payload has no legacy `version`.
 */
function signedPointer(pointer: SignedPointer): HotfixPointer {
  return {
    ...emptyPointer(),
    hotfixes: pointer.hotfixes,
    ...(pointer.rollout ? { rollout: pointer.rollout } : {}),
    ...(pointer.recall ? { recall: pointer.recall } : {}),
  };
}

/** A refused pointer: its outcome names why; nothing was staged (fail-open, exit 0). */
function rejection(verdict: Verdict & { accepted: false }): CheckHotfixReport {
  const outcome = verdict.outcome === 'invalidPayload' ? 'failed' : verdict.outcome;
  return { outcome, error: verdict.reason };
}

/**
 * Only after a failed FETCH: the node config's signed cold-start envelope (`hotfixPointerEnvelope`), else
 * its top-level `hotfixes` (plain JSON, spec 6.6), under the same signing rules as the ConfigMap.
 */
async function coldStart(deps: CheckDeps, fetchError: unknown): Promise<CheckHotfixReport> {
  const e1 = errorMessage(fetchError);
  deps.log.warn('failed to read anc-hotfix-version ConfigMap, attempting cold-start fallback', { error: e1 });
  (await import('./evidence-stage.ts')).stageEvidence(deps, undefined, [], null);
  const { gateOnNode, nodeSigning, NODE_CONFIG_ENVELOPE_KEY } = await import('./node-gate.ts');
  const signing = nodeSigning(deps);
  let envelope: unknown;
  try {
    envelope = readColdStartField(deps, NODE_CONFIG_ENVELOPE_KEY);
  } catch {
    envelope = undefined;
  }
  if (envelope !== undefined && envelope !== null) {
    const gate = gateOnNode(deps, signing, { envelope }, 'customData');
    if (!gate.verdict.accepted) return rejection(gate.verdict);
    const signed = gate.verdict.signed ? signedPointer(gate.verdict.pointer) : emptyPointer();
    stagePointer(deps, signed.hotfixes, undefined, signed.rollout, signed.recall);
    gate.commit();
    return { outcome: 'customDataFallback' };
  }
  let hotfixes: Record<string, string> | undefined;
  try {
    hotfixes = readColdStartHotfixes(deps);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `configmap fetch failed (${e1}) and cold-start fallback failed: ${errorMessage(error)}`);
  }
  if (!hotfixes || Object.keys(hotfixes).length === 0) {
    throw new AgentError('ANC_HOTFIX', `configmap fetch failed and no cold-start pointer present: ${e1}`);
  }
  const gate = gateOnNode(deps, signing, {}, 'customData');
  if (!gate.verdict.accepted) return rejection(gate.verdict);
  stagePointer(deps, hotfixes);
  return { outcome: 'customDataFallback' };
}

/** undefined when the node config is missing or has no `hotfixes`; throws when it cannot be used. */
export function readColdStartHotfixes(deps: Pick<Deps, 'fs' | 'paths'>): Record<string, string> | undefined {
  const value = readColdStartField(deps, 'hotfixes');
  if (value === undefined || value === null) return undefined;
  return parsePointer(JSON.stringify({ hotfixes: value }), deps.paths.strip(deps.paths.nodeConfig)).hotfixes;
}

/** One top-level field of the node config read as plain JSON (Go key matching); undefined when absent. */
function readColdStartField(deps: Pick<Deps, 'fs' | 'paths'>, field: string): unknown {
  const path = deps.paths.nodeConfig;
  const where = deps.paths.strip(path);
  let text: string;
  try {
    if (!deps.fs.stat(path)) return undefined;
    text = readConfigurationFile(deps.fs, path, where);
  } catch (error) {
    throw new AgentError('ANC_HOTFIX', `reading node config ${where}: ${shortIoError(error)}`);
  }
  let doc: unknown;
  try {
    doc = parseGoJson(withoutBom(text));
  } catch {
    // Never quote the parser's message: it may echo a piece of the file, which holds the bootstrap token.
    throw new AgentError('ANC_HOTFIX', `parsing node config ${where}: ${jsonSyntaxProblem(withoutBom(text)) ?? 'not valid JSON'}`);
  }
  if (doc === null) return undefined;
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new AgentError('ANC_HOTFIX', `parsing node config ${where}: cannot unmarshal ${goJsonKind(doc)} into an object`);
  return goLookupField(doc as Record<string, unknown>, field);
}

/**
 * D2 staging: read-modify-write of the pointer file (keep `version` / `scripts_version`, replace
 * `hotfixes` and its `rollout` waves together, a served legacy `version` replaces ours), atomic, with the
 * existing file's mode or 0644.
 */
export function stagePointer(
  deps: CheckDeps,
  hotfixes: Record<string, string>,
  legacyVersion?: string,
  rollout?: HotfixPointer['rollout'],
  recall?: string[],
): HotfixPointer {
  const path = deps.paths.hotfixPointer;
  const where = deps.paths.strip(path);
  let existingText: string | null = null;
  let mode = 0o644;
  try {
    const stat = deps.fs.stat(path);
    if (stat) {
      mode = stat.mode & 0o777;
      existingText = deps.fs.readText(path, 'pointer');
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
  const merged = mergePointer(existing, hotfixes, legacyVersion, rollout, recall);
  try {
    const dir = path.slice(0, path.lastIndexOf('/')) || '/';
    if (!deps.fs.exists(dir)) deps.fs.mkdirp(dir, 0o755);
    deps.fs.atomicWrite(path, serializePointer(merged), { mode, tempPrefix: TEMP_PREFIX.pointer });
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

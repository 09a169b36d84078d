// What `hotfix explain` decides FOR and what it shows beside the decision: the node's baked agent version
// (not the version of whichever copy of the binary runs explain) and check-hotfix's last outcome from the
// agent log (a refused pointer stages nothing, so the decision alone would just say `no-request`).
import type { Deps } from '../platform/deps.ts';
import { definedEnv } from '../platform/deps.ts';
import { AgentError, ECHO_LIMIT } from '../platform/errors.ts';
import { parseRfc3339 } from './time.ts';
import { STAMPED_VERSION } from './version.ts';
import { normaliseProductUuid } from './wave.ts';

export interface DecidedFor {
  version: string;
  /** `baked`: the image's agent; `given`: --current-version; `this binary`: no baked agent could answer. */
  source: 'baked' | 'given' | 'this binary';
  note?: string;
}

/** The baked agent's version: ours when we are it, else its `version` answer (read-only, bounded). */
export async function bakedAgentVersion(deps: Deps): Promise<DecidedFor> {
  const baked = deps.paths.bakedBinary;
  if (deps.execPath === baked) return { version: deps.version, source: 'baked' };
  if (!deps.fs.exists(baked)) {
    return {
      version: deps.version,
      source: 'this binary',
      note: `no baked agent at ${deps.paths.strip(baked)}: decided for this binary's version`,
    };
  }
  try {
    const run = await deps.proc.run({ program: baked, args: ['version'], env: definedEnv(deps.env), timeoutMs: 10_000 });
    const version = run.stdout.trim();
    if (run.exitCode === 0 && STAMPED_VERSION.test(version)) return { version, source: 'baked' };
  } catch {
    // fall through: said in the note
  }
  return {
    version: deps.version,
    source: 'this binary',
    note: `the baked agent did not answer \`version\`: decided for this binary's version`,
  };
}

export interface LastCheck {
  outcome: string;
  error?: string;
  time?: string;
}

const TAIL_BYTES = 1024 * 1024;

/** check-hotfix's last `completed` line in the agent log, or null (no log, never ran, unreadable). */
export function lastCheckHotfix(deps: Pick<Deps, 'fs' | 'paths'>): LastCheck | null {
  let text: string;
  try {
    if (!deps.fs.exists(deps.paths.logFile)) return null;
    text = deps.fs.readText(deps.paths.logFile, 'status');
  } catch {
    return null;
  }
  const lines = text.slice(-TAIL_BYTES).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.includes('"msg":"check-hotfix completed')) continue;
    try {
      const line = JSON.parse(lines[i]!) as Record<string, unknown>;
      return {
        outcome: String(line.outcome ?? 'unknown'),
        ...(line.error === undefined ? {} : { error: String(line.error) }),
        ...(typeof line.time === 'string' ? { time: line.time } : {}),
      };
    } catch {}
  }
  return null;
}

/** The pointer file's text when it can be read; otherwise explainHotfix reports it as a node would. */
export function peekPointer(deps: Pick<Deps, 'fs'>, path: string): string | undefined {
  try {
    return deps.fs.readText(path, 'pointer');
  } catch {
    return undefined;
  }
}

/** `hotfix explain`'s flags that must be right before anything is read: image versions and the mode. */
export function checkExplainFlags(versions: readonly string[], mode: string | undefined): void {
  for (const v of versions) {
    if (v.length > ECHO_LIMIT)
      throw new AgentError('ANC_USAGE', `--current-version is ${v.length} characters long; an image version is YYYYMM.DD.PATCH`);
    if (!STAMPED_VERSION.test(v))
      throw new AgentError(
        'ANC_USAGE',
        `--current-version ${JSON.stringify(v)} is not an image version YYYYMM.DD.PATCH (e.g. 202604.01.0)`,
      );
  }
  if (mode !== undefined && !['unsigned-allowed', 'enforce'].includes(mode))
    throw new AgentError('ANC_USAGE', `--mode must be unsigned-allowed or enforce (got ${JSON.stringify(mode)})`);
}

/** `hotfix explain --uuid/--at`, checked: who and when a scheduled wave is decided for. */
export function waveContext(options: { uuid?: string; at?: string }): { uuid?: string; now?: Date } {
  const uuid = options.uuid === undefined ? undefined : normaliseProductUuid(String(options.uuid));
  if (options.uuid !== undefined && uuid === undefined)
    throw new AgentError('ANC_USAGE', '--uuid is not a usable SMBIOS product UUID (8-4-4-4-12 hex, not all 0 or all f)');
  const now = options.at === undefined ? undefined : parseRfc3339(String(options.at));
  if (options.at !== undefined && now === undefined)
    throw new AgentError(
      'ANC_USAGE',
      `--at ${JSON.stringify(String(options.at).slice(0, 64))} is not an RFC 3339 time, e.g. 2026-12-01T00:00:00Z`,
    );
  return { ...(uuid ? { uuid } : {}), ...(now ? { now } : {}) };
}

/**
 * `--uuid` asks about another node: never answered for the version of this machine's own binary (a release
 * machine has no baked agent), only for that node's version or image (issue 40).
 */
export function checkUuidTarget(context: { uuid?: string }, decidedFor: DecidedFor, manifests: string[]): string[] {
  if (context.uuid === undefined || manifests.length > 0 || decidedFor.source !== 'this binary') return manifests;
  throw new AgentError(
    'ANC_USAGE',
    `--uuid ${context.uuid} decides for that node, but its version is not known here (${decidedFor.note ?? 'no baked agent'}); give the node's version (--current-version V) or its image (--image-manifest FILE)`,
  );
}

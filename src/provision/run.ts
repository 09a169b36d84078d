// `provision` (spec 4.1): the whole flow from flags to exit code. Every failure ends in one place that
// writes the status-file fallback (spec 4.5) so provision-wait can never hang, and every unexpected
// exception is caught there too (D6: ExitCode "240", exit 1). Secrets never reach logs, events, stdout
// or provision.json (D14): values are Secret objects until the child's environment is built, and the
// child's captured output is redacted before it is logged or stored.
import { definedEnv, type Deps } from '../platform/deps.ts';
import { AgentError, clipEchoes, ERROR_CODES, errorMessage, isAgentError } from '../platform/errors.ts';
import { isSecret, type Secret } from '../platform/secret.ts';
import { removeLeftoverTemps, TEMP_PREFIX } from '../platform/temp-files.ts';
import { dirname } from 'node:path';
import { prepareConfig } from './config-file.ts';
import { CAPTURE_LIMIT, execute } from './execute.ts';
import { nbcCommand } from './nbc.ts';
import { launcherFallsBack, markScriptsStarted } from './scripts-marker.ts';
import { CONFIG_ERROR_EXIT_CODE, writeCompleteFileOnError, type ProvisionResult } from './status.ts';
import { startAttrs } from '../platform/build-info.ts';
import { type HeldLock, takeScriptsLock } from '../platform/lock.ts';

/** The script hotfix step (hotfix/scripts/step.ts), handed in by the command so provision/ stays below hotfix/. */
export interface ScriptsBeforeStart {
  plan(deps: Deps): { view: unknown; refused?: AgentError } | undefined;
  apply(deps: Deps): { scripts: 'baked' | 'hotfix'; label?: string; replaced: string[] };
  cleanup?(deps: Deps, start: Date): void;
}

export interface ProvisionRequest {
  provisionConfig?: string;
  nbcCmd?: string;
  dryRun: boolean;
  showSecrets: boolean;
  /** With dryRun: the component table to use instead of the image's components.json. */
  componentsFile?: string;
  scripts?: ScriptsBeforeStart;
}

export interface ProvisionOutcome {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

interface StepOutcome {
  exitCode: number;
  /** Set when provisioning failed: what the fallback provision.json records. */
  failure?: ProvisionResult;
  stdout?: string;
  /** Logged with the finish line (D7: configuration issues); never part of the Completed event (N8). */
  note?: string;
  /** Printed on stderr for the person running a dry run. */
  warnings?: string[];
  hint?: string;
}

/** Whether the provisioning scripts were started (the marker was written) during this run. */
interface Progress {
  scriptsStarted: boolean;
}

/** The dry-run view with the script hotfix plan; a payload refused on this node fails the dry run. */
function dryRunOutcome(req: ProvisionRequest, deps: Deps, view: object, note?: string): StepOutcome {
  const scripts = req.scripts?.plan(deps);
  const stdout = JSON.stringify(scripts ? { ...view, scripts: scripts.view } : view) + '\n';
  if (!scripts?.refused) return { exitCode: 0, stdout, note };
  const failure = { ExitCode: CONFIG_ERROR_EXIT_CODE, Error: scripts.refused.message, Output: '' };
  return { exitCode: scripts.refused.exitCode, stdout, failure, hint: scripts.refused.hint, note };
}

function startScripts(req: ProvisionRequest, deps: Deps, progress: Progress): void {
  // The script hotfix goes first: any failure of it is an agent error before the scripts (fallback).
  const applied = req.scripts?.apply(deps);
  if (applied) deps.log.info('provisioning scripts', { scripts: applied.scripts, label: applied.label, replaced: applied.replaced });
  markScriptsStarted(deps);
  progress.scriptsStarted = true;
}

const NAME = 'aks-node-controller';

function secretValues(env: Record<string, string | Secret>): Secret[] {
  return Object.values(env).filter(isSecret);
}

async function runWithConfig(req: ProvisionRequest, path: string, deps: Deps, progress: Progress): Promise<StepOutcome> {
  const prepared = await prepareConfig(deps, path, { dryRun: req.dryRun, componentsFile: req.componentsFile });
  const { dryRunView, mergeEnv } = await import('../cse/command.ts');
  const command = prepared.command;
  // prepare.ts logs every issue (D7) and `status` lists them; the Completed event stays the reference's
  // bytes (N8), so the issue count goes to the log's finish line only.
  const issues = prepared.issues.map((i) => `${i.kind} ${i.path}`);
  const note = issues.length === 0 ? undefined : `config issues (${issues.length}): ${issues.slice(0, 20).join('; ')}`;
  if (req.dryRun) {
    deps.log.info('dry-run', { cmd: [command.program, ...command.args].join(' ') });
    for (const warning of prepared.warnings) deps.log.warn('dry-run', { warning });
    const outcome = dryRunOutcome(req, deps, dryRunView(command, { showSecrets: req.showSecrets }), note);
    return { ...outcome, warnings: prepared.warnings };
  }
  const env = mergeEnv(definedEnv(deps.env), command.cseEnv);
  startScripts(req, deps, progress);
  const run = await execute(deps, { program: command.program, args: command.args, env, secrets: secretValues(command.cseEnv) });
  return { exitCode: run.exitCode, failure: run.failed ? run.result : undefined, note };
}

async function runWithNbc(req: ProvisionRequest, file: string, deps: Deps, progress: Progress): Promise<StepOutcome> {
  // nodecustomdata.yml is no longer applied here (spec 11.2, D19): download-hotfix applies it, gated by
  // the pointer's scripts_version, as the reference does since mismatched scripts broke nodes.
  const command = nbcCommand(deps, file);
  deps.log.info('Using NBC command for scriptless phase 2', { NBCCmdFile: file });
  if (req.dryRun) {
    deps.log.info('dry-run', { cmd: [command.program, ...command.args].join(' ') });
    return dryRunOutcome(req, deps, { command: [command.program, ...command.args], env: {} });
  }
  startScripts(req, deps, progress);
  const run = await execute(deps, { ...command, env: definedEnv(deps.env), secrets: [] });
  if (req.provisionConfig) {
    const { compareEnvsStep } = await import('./compare-step.ts');
    await compareEnvsStep(deps, req.provisionConfig, file);
  }
  return { exitCode: run.exitCode, failure: run.failed ? run.result : undefined };
}

async function steps(req: ProvisionRequest, deps: Deps, progress: Progress): Promise<StepOutcome> {
  if (!req.provisionConfig && !req.nbcCmd) {
    throw new AgentError('ANC_CONFIG_MISSING_FLAGS', '--provision-config or --nbc-cmd is required');
  }
  // --nbc-cmd takes priority over --provision-config (spec 4.1 step 4).
  if (req.nbcCmd) return runWithNbc(req, req.nbcCmd, deps, progress);
  return runWithConfig(req, req.provisionConfig!, deps, progress);
}

/**
 * provision.json's Error and the event carry the reference's text whole (N10). The one bound: 1 MiB, the
 * cap each captured child stream has (CAPTURE_LIMIT), so the file stays inside provision-wait's read
 * cap (INPUT_LIMITS.status). Only stderr, which a person reads, clips long runs (clipEchoes).
 */
function wireErrorText(text: string): string {
  return text.length <= CAPTURE_LIMIT ? text : `${text.slice(0, CAPTURE_LIMIT)}... (${text.length - CAPTURE_LIMIT} more characters)`;
}

/** A thrown error as a step outcome: expected faults keep their text, anything else is a crash (D6). */
function fromThrown(error: unknown, deps: Deps): StepOutcome & { hint: string } {
  if (isAgentError(error)) {
    return {
      exitCode: error.exitCode,
      // The one agent error with its own provisioning exit code: the image's scripts are not restorable.
      failure: {
        ExitCode: error.code === 'ANC_SCRIPTS_UNRESTORABLE' ? String(error.exitCode) : CONFIG_ERROR_EXIT_CODE,
        Error: wireErrorText(error.message),
        Output: '',
      },
      hint: error.hint,
    };
  }
  deps.log.error('panic recovered in runProvision', { panic: errorMessage(error) });
  const message = `panic during provisioning: ${errorMessage(error)}`;
  return { exitCode: 1, failure: { ExitCode: CONFIG_ERROR_EXIT_CODE, Error: message, Output: '' }, hint: ERROR_CODES.ANC_INTERNAL.hint };
}

export async function provision(req: ProvisionRequest, deps: Deps): Promise<ProvisionOutcome> {
  const start = deps.clock.now();
  deps.log.info('aks-node-controller started', { ...startAttrs(deps, 'Provision'), dryRun: req.dryRun });
  // D9: a dry run (the hotfix health gate's self-test, for one) writes nothing, events included.
  const emit: Deps['events']['emit'] = (event) => (req.dryRun ? undefined : deps.events.emit(event));
  if (!req.dryRun) {
    removeLeftoverTemps(deps, dirname(deps.paths.provisionJson), TEMP_PREFIX.status, start);
    removeLeftoverTemps(deps, deps.paths.eventsDir, TEMP_PREFIX.event, start);
  }
  emit({ task: 'Provision', message: 'Starting', level: 'Informational', start, end: start });
  if (req.showSecrets && !req.dryRun) deps.log.warn('--show-secrets has no effect without --dry-run');
  const progress: Progress = { scriptsStarted: false };
  let outcome: StepOutcome & { hint?: string };
  // One writer at a time on the scripts (R4-8): held from the cleanup through the scripts' end.
  let lock: HeldLock | undefined;
  let lockedOut = false;
  try {
    if (!req.dryRun) {
      lock = await takeScriptsLock(deps, 'provision').catch((error: unknown) => {
        lockedOut = true;
        throw error;
      });
      req.scripts?.cleanup?.(deps, start);
    }
    outcome = await steps(req, deps, progress);
  } catch (error) {
    outcome = fromThrown(error, deps);
  } finally {
    await lock?.release();
  }
  const end = deps.clock.now();
  if (!outcome.failure) {
    emit({ task: 'Provision', message: 'Completed', level: 'Informational', start, end });
    if (outcome.note) deps.log.warn('provisioned with configuration issues', { issues: outcome.note });
    deps.log.info('aks-node-controller finished successfully.');
    const warnings = outcome.warnings?.map((w) => `warning: ${w}\n`).join('');
    return { exitCode: outcome.exitCode, stdout: outcome.stdout, ...(warnings ? { stderr: warnings } : {}) };
  }
  // D9: a dry run writes nothing, not even the failure fallback. Before the scripts, under a launcher
  // that falls back to the baked agent, the baked run writes the status files (provision-wait must see
  // the node's final result, not this attempt's).
  const fallsBack = !req.dryRun && !progress.scriptsStarted && launcherFallsBack(deps);
  if (fallsBack) deps.log.info('failed before the provisioning scripts; the launcher falls back to the baked agent and writes the status');
  // Locked out: the writer that holds the scripts (another provision) writes the status, never this attempt.
  else if (lockedOut) deps.log.info('the scripts lock is held by another writer; its status files stand, this attempt writes none');
  else if (!req.dryRun) writeCompleteFileOnError(deps, outcome.failure);
  const error = outcome.failure.Error;
  emit({ task: 'Provision', message: `${NAME} exited with error ${error}`, level: 'Error', start, end });
  deps.log.error('aks-node-controller failed', { error: clipEchoes(error) });
  const stderr = outcome.hint ? `${NAME}: ${clipEchoes(error)}\nhint: ${outcome.hint}\n` : undefined;
  return { exitCode: outcome.exitCode, stdout: outcome.stdout, stderr };
}

// What a binary's script payload would do on this node, for operators (`hotfix scripts`, `hotfix
// explain`): the payload (label, platforms, entries, digest) and the plan (replace / unchanged / missing /
// refused per entry). Another executable (a candidate, the staged hotfix) is asked by running its own
// `hotfix scripts -o json`, bounded: its payload lives inside it. Reads only; writes nothing.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import { describePayload, embeddedPayload } from './embedded.ts';
import { planPayload, planView } from './plan.ts';

export interface ScriptsExplanation {
  binary: string;
  payload: ReturnType<typeof describePayload>;
  plan: ReturnType<typeof planView> | null;
  error?: string;
}

/** This executable's own payload and its plan on this node. */
export function ownScripts(deps: Pick<Deps, 'fs' | 'paths' | 'execPath'>): ScriptsExplanation {
  try {
    const embedded = embeddedPayload();
    return { binary: deps.execPath, payload: describePayload(embedded), plan: embedded ? planView(planPayload(deps, embedded)) : null };
  } catch (error) {
    return { binary: deps.execPath, payload: null, plan: null, error: errorMessage(error) };
  }
}

const ASK_TIMEOUT_MS = 10_000;

/** The payload of `candidate` (another executable) as it reports it, or why it could not say. */
export async function candidateScripts(deps: Deps, candidate: string): Promise<ScriptsExplanation> {
  if (candidate === deps.execPath) return ownScripts(deps);
  const unknown = (error: string): ScriptsExplanation => ({ binary: candidate, payload: null, plan: null, error });
  try {
    const run = await deps.proc.run({
      program: candidate,
      args: ['hotfix', 'scripts', '-o', 'json'],
      env: definedEnv(deps.env),
      timeoutMs: ASK_TIMEOUT_MS,
      captureLimit: 1024 * 1024,
    });
    if (run.exitCode !== 0) return unknown(`${candidate} hotfix scripts exited ${run.exitCode} (a build before script payloads?)`);
    const answer = JSON.parse(run.stdout) as ScriptsExplanation;
    return { ...answer, binary: candidate };
  } catch (error) {
    return unknown(`asking ${candidate}: ${errorMessage(error)}`);
  }
}

/** The text screen of `hotfix scripts`. */
export function renderScriptsText(s: ScriptsExplanation): string {
  if (s.error) return `${s.binary}: ${s.error}\n`;
  if (!s.payload || !s.plan) return `${s.binary} carries no script payload: provisioning runs the image's own scripts.\n`;
  const p = s.payload;
  const out = [`script payload ${p.label} (${p.entries} entries for ${p.platforms.join(', ')}; ${p.digest})`];
  if (s.plan.skipped) out.push(s.plan.skipped);
  else
    out.push(
      `on this node (${s.plan.platform}):`,
      ...s.plan.entries.map((e) => `  ${e.action.padEnd(9)} ${e.destination}${e.reason ? ` (${e.reason})` : ''}`),
    );
  return `${out.join('\n')}\n`;
}

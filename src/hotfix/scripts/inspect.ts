// What a binary's script payload would do on this node, for operators (`hotfix scripts`, `hotfix
// explain`): the payload (label, platforms, entries, digest) and the plan (replace / unchanged / missing /
// refused per entry). Another executable (a candidate, the staged hotfix) is asked by running its own
// `hotfix scripts -o json`, bounded: its payload lives inside it. Reads only; writes nothing.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { errorMessage } from '../../platform/errors.ts';
import type { ImageManifest } from '../../image/manifest.ts';
import { describePayload, embeddedPayload } from './embedded.ts';
import { type ImagePlan, planOnImage, renderImagePlan } from '../../image/plan.ts';
import { planPayload, planView } from './plan.ts';

export interface ScriptsExplanation {
  binary: string;
  payload: ReturnType<typeof describePayload>;
  plan: ReturnType<typeof planView> | null;
  /** With image manifests: the plan on each image instead of this machine (`plan` is then null). */
  images?: ImagePlan[];
  error?: string;
}

/** This executable's own payload and its plan on this node, or on each given image. */
export function ownScripts(
  deps: Pick<Deps, 'fs' | 'paths' | 'execPath'>,
  images?: ReadonlyArray<{ source: string; manifest: ImageManifest }>,
): ScriptsExplanation {
  try {
    const embedded = embeddedPayload();
    if (images) {
      const plans = embedded ? images.map((i) => planOnImage(embedded.payload, i.manifest, i.source)) : [];
      return { binary: deps.execPath, payload: describePayload(embedded), plan: null, images: plans };
    }
    return { binary: deps.execPath, payload: describePayload(embedded), plan: embedded ? planView(planPayload(deps, embedded)) : null };
  } catch (error) {
    return { binary: deps.execPath, payload: null, plan: null, error: errorMessage(error) };
  }
}

const ASK_TIMEOUT_MS = 10_000;

/**
 * The payload of `candidate` (another executable) as it reports it, or why it could not say; with
 * `manifests` (absolute paths) the candidate plans on those images itself, with its own code.
 */
export async function candidateScripts(deps: Deps, candidate: string, manifests: readonly string[] = []): Promise<ScriptsExplanation> {
  if (candidate === deps.execPath && manifests.length === 0) return ownScripts(deps);
  const unknown = (error: string): ScriptsExplanation => ({ binary: candidate, payload: null, plan: null, error });
  try {
    const run = await deps.proc.run({
      program: candidate,
      args: ['hotfix', 'scripts', '-o', 'json', ...manifests.flatMap((m) => ['--image-manifest', m])],
      env: definedEnv(deps.env),
      timeoutMs: ASK_TIMEOUT_MS,
      captureLimit: 1024 * 1024,
    });
    // 3: the preview over images says the payload would not take (the answer is still whole).
    if (run.exitCode !== 0 && !(run.exitCode === 3 && manifests.length > 0)) {
      const why = manifests.length > 0 ? 'a build before image manifests?' : 'a build before script payloads?';
      return unknown(`${candidate} hotfix scripts exited ${run.exitCode} (${why}) ${run.stderr.trim().split('\n').pop() ?? ''}`.trim());
    }
    const answer = JSON.parse(run.stdout) as ScriptsExplanation;
    return { ...answer, binary: candidate };
  } catch (error) {
    return unknown(`asking ${candidate}: ${errorMessage(error)}`);
  }
}

/** The text screen of `hotfix scripts`. */
export function renderScriptsText(s: ScriptsExplanation): string {
  if (s.error) return `${s.binary}: ${s.error}\n`;
  if (!s.payload || (!s.plan && !s.images)) return `${s.binary} carries no script payload: provisioning runs the image's own scripts.\n`;
  const p = s.payload;
  const out = [`script payload ${p.label} (${p.entries} entries for ${p.platforms.join(', ')}; ${p.digest})`];
  if (s.images) {
    if (p.checkedAgainst?.length) out.push(`built against: ${p.checkedAgainst.join('; ')}`);
    else out.push('built without image manifests: no entry is pinned (replace-only)');
    for (const plan of s.images) out.push(...renderImagePlan(plan));
    return `${out.join('\n')}\n`;
  }
  if (!s.plan) return `${out.join('\n')}\n`;
  if (s.plan.skipped) out.push(s.plan.skipped);
  else
    out.push(
      `on this node (${s.plan.platform}):`,
      ...s.plan.entries.map((e) => `  ${e.action.padEnd(9)} ${e.destination}${e.reason ? ` (${e.reason})` : ''}`),
    );
  return `${out.join('\n')}\n`;
}

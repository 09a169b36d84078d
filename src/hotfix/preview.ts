// The pre-publish preview of a hotfix over the images it targets (`hotfix explain --image-manifest`,
// `npm run release`): per image, the one node decision for its baked agent's version and, with a
// candidate, its script payload's plan on that image. An image takes the hotfix when the decision
// upgrades and the payload neither is refused there nor changes nothing on a platform it lists.
import type { GivenManifest } from '../image/read.ts';
import { imageName } from '../image/manifest.ts';
import type { Deps } from '../platform/deps.ts';
import { definedEnv } from '../platform/deps.ts';
import type { ConfigMapGate } from '../pointer/configmap-check.ts';
import type { HotfixPointer } from '../pointer/document.ts';
import type { WaveContext } from '../pointer/eligibility.ts';
import { explainPointer, type HotfixExplanation } from '../pointer/explain.ts';
import { SIGNING_MODES, type SigningMode } from '../pointer/gate.ts';
import type { ImagePlan } from '../image/plan.ts';
import type { ScriptsExplanation } from './scripts/inspect.ts';

export interface ImageVerdict {
  image: string;
  version: string;
  decision: HotfixExplanation;
  scripts: ImagePlan | null;
  takes: boolean;
  why: string;
  /**
   * Without --uuid, a partial or scheduled wave as the fleet sees it: each step's share of the image's nodes
   * (`at` null: a fixed percent, in force now). Never the release machine's own identity (issue 40).
   */
  waves?: Array<{ at: string | null; percent: number }>;
}

/** The base's wave steps when the only refusal is this machine's place in the wave (not the fleet's). */
function fleetWaves(pointer: HotfixPointer, d: HotfixExplanation, context: WaveContext): ImageVerdict['waves'] {
  const base = d.base;
  if (context.uuid !== undefined || d.reason !== 'notInWave' || base === null || !pointer.rollout || !Object.hasOwn(pointer.rollout, base))
    return undefined;
  const entry = pointer.rollout[base]!;
  return entry.schedule
    ? entry.schedule.map((s: { at: string; percent: number }) => ({ at: s.at, percent: s.percent }))
    : [{ at: null, percent: entry.percent }];
}

const wavesText = (waves: NonNullable<ImageVerdict['waves']>) =>
  waves.map((w) => (w.at === null ? `${w.percent}% of its nodes now` : `${w.percent}% of its nodes from ${w.at}`)).join(', ');

export function previewImages(
  deps: Pick<Deps, 'fs' | 'paths'>,
  pointer: HotfixPointer,
  images: readonly GivenManifest[],
  scripts: ScriptsExplanation | undefined,
  fallbackVersion: string,
  context: WaveContext = {},
): ImageVerdict[] {
  return images.map((img, i) => {
    const version = img.manifest.agentVersion ?? fallbackVersion;
    const decision = explainPointer(deps, pointer, version, context);
    const plan = scripts?.images?.[i] ?? null;
    const scriptsBlock = plan !== null && !plan.skipped && !plan.takes;
    const waves = fleetWaves(pointer, decision, context);
    const inWaves = waves?.some((w) => w.percent > 0) === true;
    const takes = (decision.upgrade || inWaves) && !scriptsBlock;
    const why =
      inWaves && !scriptsBlock
        ? `takes hotfix ${decision.resolved} in waves: ${wavesText(waves)} (--uuid U: one node's answer)`
        : !decision.upgrade
          ? `stays on ${version} (${decision.reason}${decision.detail ? `: ${decision.detail}` : ''})`
          : scriptsBlock
            ? `no fix: ${plan.noop ?? `the script payload is refused here (${plan.entries.find((e) => e.action === 'refused')?.reason})`}`
            : `takes hotfix ${decision.resolved}${plan && !plan.skipped ? ` (scripts: ${plan.entries.filter((e) => e.action === 'replace').length} replaced)` : ''}`;
    return { image: imageName(img.manifest, img.source), version, decision, scripts: plan, takes, why, ...(waves ? { waves } : {}) };
  });
}

/** The text: one line per image, then each image's script plan when there is one. */
/** `hotfix explain` with a ConfigMap or images: the decisions, each image's verdict, the repository check. */
export async function previewFleet(
  deps: Deps,
  input: {
    path: string;
    configMap: { gate: ConfigMapGate; pointer: HotfixPointer } | undefined;
    pointer: HotfixPointer;
    decisions: HotfixExplanation[];
    images: readonly GivenManifest[];
    scripts: ScriptsExplanation | undefined;
    context: WaveContext;
    fallbackVersion: string;
    options: { repository?: string; repositoryKeyring?: string; arch?: string };
  },
) {
  const { path, configMap, decisions, images, options } = input;
  const verdicts = previewImages(deps, input.pointer, images, input.scripts, input.fallbackVersion, input.context);
  const wanted = [...decisions.filter((d) => d.upgrade), ...verdicts.filter((v) => v.takes).map((v) => v.decision)].map((d) => d.resolved);
  const repository = options.repository ? await checkRepository(deps, options.repository, wanted, options) : undefined;
  const listed = (v: string) => !repository || repository.some((a) => a.version === v && a.listed);
  const takes = decisions.some((d) => d.upgrade && listed(d.resolved)) || verdicts.some((v) => v.takes && listed(v.decision.resolved));
  const value = { pointer: configMap?.gate ?? { file: path }, decisions, images: verdicts, takes, scripts: input.scripts, repository };
  const { renderImagePlan } = await import('../image/plan.ts');
  const { configMapText } = await import('../pointer/explain-views.ts');
  const screen = (v: typeof value) =>
    [
      configMap ? configMapText({ pointer: configMap.gate, decisions }).trimEnd() : `${path}: the pointer file`,
      ...renderPreview(verdicts, renderImagePlan),
      ...renderRepository(repository ?? []),
      ...(images.length + (repository?.length ?? 0) === 0
        ? []
        : [v.takes ? 'at least one image takes the hotfix' : 'NO image takes the hotfix (exit 3)']),
    ].join('\n') + '\n';
  return { value, screen };
}

export function renderPreview(verdicts: readonly ImageVerdict[], renderPlan: (p: ImagePlan) => string[]): string[] {
  const out: string[] = [];
  for (const v of verdicts) {
    out.push(`  ${v.image}: ${v.takes ? 'TAKES' : 'does not take'} the hotfix: ${v.why}`);
    if (v.scripts && !v.scripts.skipped) out.push(...renderPlan(v.scripts).map((l) => `    ${l}`));
  }
  return out;
}

/** The signing mode a candidate binary enforces (its `version -o json`), or undefined when it cannot say. */
export async function candidateMode(deps: Deps, candidate: string): Promise<SigningMode | undefined> {
  try {
    const run = await deps.proc.run({
      program: candidate,
      args: ['version', '-o', 'json'],
      env: definedEnv(deps.env),
      timeoutMs: 10_000,
      captureLimit: 1024 * 1024,
    });
    const mode = (JSON.parse(run.stdout) as { pointerSigning?: unknown }).pointerSigning;
    return (SIGNING_MODES as readonly unknown[]).includes(mode) ? (mode as SigningMode) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `--repository URL`: for each version an image would take, whether the repository's signed hotfix index
 * lists it for `arch` (the node's verified path); an image whose version is not listed takes nothing.
 */
export async function checkRepository(
  deps: Deps,
  url: string,
  versions: readonly string[],
  flags: { arch?: string; repositoryKeyring?: string },
): Promise<Array<import('./repository/index-lookup.ts').IndexAnswer>> {
  const { checkHotfixIndex } = await import('./repository/index-lookup.ts');
  const arch = flags.arch ?? (process.arch === 'arm64' ? 'arm64' : 'amd64');
  const answers = [];
  for (const v of [...new Set(versions)]) answers.push(await checkHotfixIndex(deps, url, v, arch, flags.repositoryKeyring));
  return answers;
}

export const renderRepository = (
  answers: ReadonlyArray<{ index: string; version: string; arch: string; listed: boolean; reason?: string }>,
) =>
  answers.map((a) =>
    a.listed
      ? `  repository: ${a.index} lists aks-node-controller ${a.version} for ${a.arch} (signed index verified as a node verifies it)`
      : `  repository: ${a.index} does NOT list aks-node-controller ${a.version} for ${a.arch}: ${a.reason}`,
  );

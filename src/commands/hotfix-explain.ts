// `hotfix explain [-o text|json|yaml]`: which hotfix download-hotfix would install, and why (wave,
// quarantine), and which binary would run. `--pointer` takes a pointer file or a ConfigMap as rendered
// for publishing (gated as check-hotfix gates it, in --mode or the candidate's mode), then one decision
// per `--current-version`, or per `--image-manifest` (with --candidate: its script plan on each image).
// Exit status with a ConfigMap or images: 0 when any image takes the hotfix, 3 when none does.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, plainText, render } from '../cli/output.ts';

type Options = { currentVersion?: string[]; pointer?: string; candidate?: string; imageManifest?: string[]; mode?: string } & {
  uuid?: string;
  at?: string;
  repository?: string;
  repositoryKeyring?: string;
  arch?: string;
};

export const hotfixExplainCommand = {
  name: 'hotfix explain',
  description: 'Show which hotfix download-hotfix would install and why (wave, quarantine), and which binary would run',
  options: [
    {
      flag: '--current-version <version>',
      description: "Version to decide for (default: the baked agent's); repeat it for one decision per image",
      repeatable: true,
    },
    {
      flag: '--pointer <file>',
      description: 'Pointer file, or a ConfigMap from `hotfix pointer render`/`sign` (default: the on-node hotfix pointer)',
    },
    { flag: '--candidate <file>', description: 'A hotfix executable: also show what its script payload would replace' },
    {
      flag: '--image-manifest <file>',
      description: 'Decide for this image (its baked version, its scripts); repeatable',
      repeatable: true,
    },
    {
      flag: '--mode <mode>',
      description: "The fleet's signing mode (default: what the candidate, else this binary, enforces)",
      values: ['unsigned-allowed', 'enforce'],
    },
    {
      flag: '--repository <url>',
      description: 'An apt release directory (…/dists/SUITE/): does its signed hotfix index list the version?',
    },
    { flag: '--repository-keyring <file>', description: "The repository's key (default: this machine's apt trusted keyrings)" },
    { flag: '--arch <arch>', description: "Architecture for --repository (default: this machine's)", values: ['amd64', 'arm64'] },
    { flag: '--uuid <uuid>', description: "Decide the wave for this VM identity (SMBIOS product UUID) instead of this node's" },
    { flag: '--at <time>', description: 'Decide a scheduled wave as of this RFC 3339 time (default: now)' },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix explain', "the decision for this node: its pointer file and this binary's version"],
    [
      'hotfix explain --pointer configmap.yaml --uuid 4b1e0c9a-3f6d-4f7e-9a1b-2c3d4e5f6a7b',
      'when the node with that identity joins a scheduled wave (joinsAt)',
    ],
    [
      'hotfix explain --pointer configmap.yaml --current-version 202604.01.0 --current-version 202605.02.1',
      'a ConfigMap you are about to publish: one decision per image version, as those nodes would decide',
    ],
    [
      'hotfix explain --pointer signed.yaml --candidate ./aks-node-controller --image-manifest ubuntu-2204.json --mode enforce',
      'before publishing: does each image take the hotfix, scripts included, in an enforce fleet?',
    ],
  ],
  exitCodes: [[3, 'with a ConfigMap or --image-manifest: no image would take the hotfix']],
  async run({ options }, deps) {
    const { explainHotfix, explainPointer } = await import('../pointer/explain.ts');
    const given = options.pointer === undefined ? undefined : String(options.pointer);
    const absolute = (p: string) => (p.startsWith('/') ? p : `${deps.cwd}/${p}`);
    const path = given === undefined ? deps.paths.hotfixPointer : absolute(given);
    const versions = (options.currentVersion ?? []).map(String);
    const { bakedAgentVersion, checkExplainFlags, checkUuidTarget, lastCheckHotfix, peekPointer, waveContext } = await import(
      '../pointer/explain-context.ts'
    );
    checkExplainFlags(versions, options.mode);
    const context = waveContext(options);
    // By default the node's baked agent: it is what download-hotfix runs as, whichever copy runs explain.
    const decidedFor = versions.length === 0 ? await bakedAgentVersion(deps) : { version: '', source: 'given' as const };
    const currents = versions.length === 0 ? [decidedFor.version] : versions;
    const { isConfigMapText, pointerFromConfigMap } = await import('../pointer/configmap-check.ts');
    const [views, preview] = await Promise.all([import('../pointer/explain-views.ts'), import('../hotfix/preview.ts')]);
    const manifests = (options.imageManifest ?? []).map((m) => absolute(String(m)));
    const images = (await import('../image/read.ts')).readManifestFiles(deps, checkUuidTarget(context, decidedFor, manifests));
    // --candidate: what that executable's script payload would replace here, or on each given image.
    const candidate = options.candidate === undefined ? undefined : absolute(String(options.candidate));
    const inspect = await import('../hotfix/scripts/inspect.ts');
    const scripts = candidate === undefined ? undefined : await inspect.candidateScripts(deps, candidate, manifests);
    const mode = (options.mode ?? (candidate ? await preview.candidateMode(deps, candidate) : undefined)) as 'enforce' | undefined;
    const text = given === undefined ? undefined : peekPointer(deps, path);
    const configMap = text !== undefined && isConfigMapText(text) ? await pointerFromConfigMap(deps, text, given!, mode) : undefined;
    if (configMap || images.length > 0) {
      const pointer = configMap?.pointer ?? (await import('../pointer/file.ts')).readPointerFile(deps.fs, path);
      const at = { ...context, ...configMap?.wave };
      const decisions = images.length > 0 && versions.length === 0 ? [] : currents.map((c) => explainPointer(deps, pointer, c, at));
      const fleet = await preview.previewFleet(deps, {
        ...{ path, configMap, pointer, decisions, images, scripts, context, options },
        fallbackVersion: decidedFor.version,
      });
      return {
        exitCode: fleet.value.takes ? 0 : 3,
        stdout: await render(options.output, fleet.value, fleet.screen),
      };
    }
    const checkHotfix = lastCheckHotfix(deps);
    const one = (current: string) => views.withCheck(explainHotfix(deps, path, current, context), checkHotfix);
    // One version keeps the shape scripts read (plus what it was decided for); several give one each.
    const value =
      currents.length === 1
        ? { ...one(currents[0]!), decidedFor: views.decidedForView(decidedFor), ...(scripts === undefined ? {} : { scripts }) }
        : { decisions: currents.map(one) };
    return { exitCode: 0, stdout: await render(options.output, value, leadWithSummary) };
  },
} satisfies Command<Options & { output?: OutputFormat }>;

/** Text for people: the sentence first, then the fields. */
const leadWithSummary = (v: { summary?: string }) =>
  v.summary ? `${v.summary}\n\n${plainText({ ...v, summary: undefined })}` : plainText(v);

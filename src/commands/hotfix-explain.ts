// `hotfix explain [-o text|json|yaml]`: which hotfix download-hotfix would install, and why (wave,
// quarantine), and which binary would run. `--pointer` takes a pointer file or a ConfigMap as rendered
// for publishing (YAML or JSON, signed or not): the ConfigMap is gated as check-hotfix gates it, then one
// decision is made per `--current-version` (one per image in the fleet).
import { AgentError, ECHO_LIMIT } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';
import { type OutputFormat, plainText, render } from '../cli/output.ts';
import type { Deps } from '../platform/deps.ts';

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
    { flag: '--candidate <file>', description: 'A hotfix executable: also show what its script payload would replace here' },
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
  ],
  async run({ options }, deps) {
    const { explainHotfix, explainPointer } = await import('../pointer/explain.ts');
    const given = options.pointer === undefined ? undefined : String(options.pointer);
    const path = given === undefined ? deps.paths.hotfixPointer : given.startsWith('/') ? given : `${deps.cwd}/${given}`;
    const versions = (options.currentVersion ?? []).map(String);
    const { STAMPED_VERSION } = await import('../pointer/version.ts');
    for (const v of versions) {
      if (v.length > ECHO_LIMIT)
        throw new AgentError('ANC_USAGE', `--current-version is ${v.length} characters long; an image version is YYYYMM.DD.PATCH`);
      if (!STAMPED_VERSION.test(v))
        throw new AgentError(
          'ANC_USAGE',
          `--current-version ${JSON.stringify(v)} is not an image version YYYYMM.DD.PATCH (e.g. 202604.01.0)`,
        );
    }
    const { bakedAgentVersion, lastCheckHotfix, waveContext } = await import('../pointer/explain-context.ts');
    const context = waveContext(options);
    // By default the node's baked agent: it is what download-hotfix runs as, whichever copy runs explain.
    const decidedFor = versions.length === 0 ? await bakedAgentVersion(deps) : { version: '', source: 'given' as const };
    const currents = versions.length === 0 ? [decidedFor.version] : versions;
    const { isConfigMapText, pointerFromConfigMap } = await import('../pointer/configmap-check.ts');
    const views = await import('../pointer/explain-views.ts');
    const text = given === undefined ? undefined : peek(deps, path);
    if (text !== undefined && isConfigMapText(text)) {
      const { pointer, gate } = await pointerFromConfigMap(deps, text, given!);
      const value = { pointer: gate, decisions: currents.map((current) => explainPointer(deps, pointer, current, context)) };
      return { exitCode: 0, stdout: await render(options.output, value, views.configMapText, { compactJson: true }) };
    }
    const checkHotfix = lastCheckHotfix(deps);
    const one = (current: string) => views.withCheck(explainHotfix(deps, path, current, context), checkHotfix);
    // --candidate: what that executable's script payload would replace here (it is run, bounded, to ask).
    const candidate = options.candidate === undefined ? undefined : String(options.candidate);
    const scripts =
      candidate === undefined
        ? undefined
        : await (await import('../hotfix/scripts/inspect.ts')).candidateScripts(
            deps,
            candidate.startsWith('/') ? candidate : `${deps.cwd}/${candidate}`,
          );
    // One version keeps the shape scripts read (plus what it was decided for); several give one each.
    const value =
      currents.length === 1
        ? { ...one(currents[0]!), decidedFor: views.decidedForView(decidedFor), ...(scripts === undefined ? {} : { scripts }) }
        : { decisions: currents.map(one) };
    return { exitCode: 0, stdout: await render(options.output, value, leadWithSummary, { compactJson: true }) };
  },
} satisfies Command<{
  currentVersion?: string[];
  pointer?: string;
  candidate?: string;
  uuid?: string;
  at?: string;
  output?: OutputFormat;
}>;

/** Text for people: the sentence first, then the fields. */
const leadWithSummary = (v: { summary?: string }) =>
  v.summary ? `${v.summary}\n\n${plainText({ ...v, summary: undefined })}` : plainText(v);

/** The pointer file's text when it can be read; otherwise explainHotfix reports it as a node would. */
function peek(deps: Deps, path: string): string | undefined {
  try {
    return deps.fs.readText(path, 'pointer');
  } catch {
    return undefined;
  }
}

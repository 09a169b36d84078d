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
      description: "Version to decide for (default: this binary's version); repeat it for one decision per image",
      repeatable: true,
    },
    {
      flag: '--pointer <file>',
      description: 'Pointer file, or a ConfigMap from `hotfix pointer render`/`sign` (default: the on-node hotfix pointer)',
    },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix explain', "the decision for this node: its pointer file and this binary's version"],
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
    const { bakedAgentVersion, lastCheckHotfix } = await import('../pointer/explain-context.ts');
    // By default the node's baked agent: it is what download-hotfix runs as, whichever copy runs explain.
    const decidedFor = versions.length === 0 ? await bakedAgentVersion(deps) : { version: '', source: 'given' as const };
    const currents = versions.length === 0 ? [decidedFor.version] : versions;
    const { isConfigMapText, pointerFromConfigMap } = await import('../pointer/configmap-check.ts');
    const text = given === undefined ? undefined : peek(deps, path);
    if (text === undefined || !isConfigMapText(text)) {
      const checkHotfix = lastCheckHotfix(deps);
      const one = (current: string) => withCheck(explainHotfix(deps, path, current), checkHotfix);
      // One version keeps the shape scripts read (plus what it was decided for); several give one each.
      const value =
        currents.length === 1
          ? { ...one(currents[0]!), decidedFor: { source: decidedFor.source, ...(decidedFor.note ? { note: decidedFor.note } : {}) } }
          : { decisions: currents.map(one) };
      const leadWith = (v: { summary?: string }) =>
        v.summary ? `${v.summary}\n\n${plainText({ ...v, summary: undefined })}` : plainText(v);
      return { exitCode: 0, stdout: await render(options.output, value, leadWith, { compactJson: true }) };
    }
    const { pointer, gate } = await pointerFromConfigMap(deps, text, given!);
    const value = { pointer: gate, decisions: currents.map((current) => explainPointer(deps, pointer, current)) };
    return { exitCode: 0, stdout: await render(options.output, value, configMapText, { compactJson: true }) };
  },
} satisfies Command<{ currentVersion?: string[]; pointer?: string; output?: OutputFormat }>;

type Explained = import('../pointer/explain.ts').HotfixExplanation;

/** The last check-hotfix outcome beside the decision; a refused pointer is why nothing is requested. */
function withCheck(e: Explained, check: import('../pointer/explain-context.ts').LastCheck | null): Explained & { checkHotfix: unknown } {
  const refused = check && !['configMapRead', 'noHotfixForBase', 'customDataFallback'].includes(check.outcome);
  const summary =
    refused && e.reason === 'no-request'
      ? `${e.summary.slice(0, -1)}: check-hotfix refused the cluster's pointer (${check.outcome}${check.error ? `: ${check.error}` : ''}), so nothing is staged.`
      : e.summary;
  return { ...e, summary, checkHotfix: check };
}

/** The pointer file's text when it can be read; otherwise explainHotfix reports it as a node would. */
function peek(deps: Deps, path: string): string | undefined {
  try {
    return deps.fs.readText(path, 'pointer');
  } catch {
    return undefined;
  }
}

type Checked = {
  pointer: import('../pointer/configmap-check.ts').ConfigMapGate;
  decisions: import('../pointer/explain.ts').HotfixExplanation[];
};

/** For people: what a node does with this ConfigMap, then one line per image version. */
function configMapText({ pointer, decisions }: Checked): string {
  const how = `${pointer.signed ? `signed${pointer.serial === undefined ? '' : `, serial ${pointer.serial}`}` : 'unsigned'}, mode ${pointer.mode}`;
  const lines = [
    pointer.accepted
      ? `${pointer.file}: a node would stage this pointer (${how}; scope not matched here)`
      : `${pointer.file}: a node would refuse this pointer (${pointer.outcome}: ${pointer.reason}); it stages nothing (${how})`,
  ];
  for (const d of decisions) {
    const target = d.upgrade ? ` -> ${d.resolved}` : d.resolved ? ` (requested ${d.resolved})` : '';
    lines.push(`  ${d.current}${target}: ${d.upgrade ? 'takes the hotfix' : 'stays'} (${d.reason}${d.detail ? `: ${d.detail}` : ''})`);
  }
  return `${lines.join('\n')}\n`;
}

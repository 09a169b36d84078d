// `hotfix scripts [-o text|json|yaml] [--binary FILE] [--image-manifest M]...`: the script payload a binary
// carries and what it would replace on this node, or on each image whose manifest is given (docs/hotfix.md
// "script payload"). Reads only. With manifests it exits 3 when an entry would be refused or nothing applies.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const hotfixScriptsCommand = {
  name: 'hotfix scripts',
  description: 'Show the script payload a binary carries and what it would replace on this node, or on given images',
  options: [
    { flag: '--binary <file>', description: 'Executable to ask (default: this one), e.g. a candidate hotfix' },
    {
      flag: '--image-manifest <file>',
      description: 'Plan on this image (its `image manifest -o json`) instead of this machine; repeat it per image',
      repeatable: true,
    },
  ],
  output: true,
  readOnly: true,
  examples: [
    ['hotfix scripts', "this binary's payload and its plan on this node"],
    ['hotfix scripts --binary ./aks-node-controller -o json', 'what a candidate hotfix would replace here'],
    [
      'hotfix scripts --binary ./aks-node-controller --image-manifest ubuntu-2204.json --image-manifest mariner.json',
      'what it would do on each image it targets, before it leaves',
    ],
  ],
  exitCodes: [[3, 'with --image-manifest: an entry would be refused on an image, or nothing would apply']],
  async run({ options }, deps) {
    const { candidateScripts, ownScripts, renderScriptsText } = await import('../hotfix/scripts/inspect.ts');
    const absolute = (p: string) => (p.startsWith('/') ? p : `${deps.cwd}/${p}`);
    const given = options.binary === undefined ? undefined : String(options.binary);
    const binary = given === undefined ? undefined : absolute(given);
    const manifests = (options.imageManifest ?? []).map((m) => absolute(String(m)));
    let answer;
    if (binary !== undefined) answer = await candidateScripts(deps, binary, manifests);
    else if (manifests.length === 0) answer = ownScripts(deps);
    else {
      const { readManifestFiles } = await import('../image/read.ts');
      answer = ownScripts(deps, readManifestFiles(deps, manifests));
    }
    const { imagePlansFail } = await import('../image/plan.ts');
    const exitCode = answer.error ? 1 : answer.images && (answer.payload === null || imagePlansFail(answer.images)) ? 3 : 0;
    return { exitCode, stdout: await render(options.output, answer, renderScriptsText) };
  },
} satisfies Command<{ binary?: string; imageManifest?: string[]; output?: OutputFormat }>;

// `image manifest [--root DIR] [-o json] [--diff IMAGE-MANIFEST]`: what an image holds (docs/node.md
// "image manifest"), deterministic JSON; the image build's last step runs it. On a node, --diff lists
// what changed since the image was built: replaced by a script hotfix, or edited by hand. Reads only.
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';
import { AgentError } from '../platform/errors.ts';

export const imageManifestCommand = {
  name: 'image manifest',
  description: 'Print the image manifest (its provisioning scripts, platform, baked version); --diff: what changed since',
  options: [
    { flag: '--root <dir>', description: 'The image root to read, e.g. the mounted image at build time (default: this node)' },
    { flag: '--diff <image-manifest>', description: "The image's manifest: list what changed on this node since the image was built" },
  ],
  output: true,
  outputHelp:
    'Output format: json (default, the manifest; -o text prints the same JSON) or yaml; with --diff: text (default, for people), json or yaml',
  readOnly: true,
  details:
    "The manifest is JSON in every output format but yaml: the same tree gives the same bytes. Left out: the agent's own files (aks-node-controller*) and the boot's inputs and outputs (the node configuration, provision.complete, ...).",
  examples: [
    ['image manifest --root /mnt/image -o json > image-manifest.json', "the image build's last step: publish it beside the image"],
    ['image manifest --diff image-manifest.json', 'what changed on this node since the image was built (its published manifest)'],
  ],
  async run({ options }, deps) {
    const { resolveNodePaths } = await import('../platform/paths.ts');
    const { collectManifest } = await import('../image/collect.ts');
    const { renderManifest } = await import('../image/manifest.ts');
    const absolute = (p: string) => (p.startsWith('/') ? p : `${deps.cwd}/${p}`);
    if (options.root !== undefined && String(options.root) === '') throw new AgentError('ANC_USAGE', '--root needs a directory');
    const paths = options.root === undefined ? deps.paths : resolveNodePaths(absolute(String(options.root)));
    const now = await collectManifest(deps, paths);
    if (options.diff === undefined) {
      const text = renderManifest(now);
      return { exitCode: 0, stdout: options.output === 'yaml' ? await render('yaml', JSON.parse(text)) : text };
    }
    const source = String(options.diff);
    const { readManifestFile } = await import('../image/read.ts');
    const image = readManifestFile(deps, absolute(source)).manifest;
    const { diffManifests, renderDiff } = await import('../image/diff.ts');
    const { hotfixExplainer } = await import('../hotfix/scripts/written.ts');
    const diff = diffManifests(image, now, hotfixExplainer({ ...deps, paths }));
    return { exitCode: 0, stdout: await render(options.output, diff, (d) => renderDiff(d, source)) };
  },
} satisfies Command<{ root?: string; diff?: string; output?: OutputFormat }>;

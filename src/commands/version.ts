// `version [-o text|json|yaml]`: the stamped version. Text is the bare version (what install.sh, the
// packaging and the hotfix self-test read); `--version` alone prints the reference's
// `aks-node-controller version <v>` line instead (commands/cli.ts).
import { BUILD_COMMIT, BUILD_TIME, binaryKind, buildTarget, runtimeVersion } from '../platform/build-info.ts';
import type { Command } from '../cli/command.ts';
import { type OutputFormat, render } from '../cli/output.ts';

export const versionCommand = {
  name: 'version',
  description: 'Print the version (with -o json: commit, commit time, target, runtime, baked or hotfix, pointer key ids, script payload)',
  options: [],
  output: true,
  readOnly: true,
  examples: [
    ['version', 'the bare version, for scripts'],
    ['version -o json', 'everything about this build, and whether it is the baked or the hotfix binary'],
  ],
  async run({ options }, deps) {
    if (options.output === 'text') return { exitCode: 0, stdout: `${deps.version}\n` };
    const [{ bakedKeys }, scripts, { signingMode }] = await Promise.all([
      import('../pointer/keys.ts'),
      import('../hotfix/scripts/embedded.ts'),
      import('../pointer/gate.ts'),
    ]);
    const info = {
      version: deps.version,
      commit: BUILD_COMMIT,
      // The commit's time, not the time of the build: a reproducible build of a commit has the same bytes.
      commitTime: BUILD_TIME,
      target: buildTarget(),
      runtime: runtimeVersion(),
      binary: binaryKind(deps.execPath, deps.paths.hotfixBinary),
      path: deps.execPath,
      pointerKeyIds: bakedKeys().map((k) => k.keyid),
      // The mode this binary enforces here (ANC_HOTFIX_POINTER_SIGNING, else its default): `hotfix explain` asks a candidate.
      pointerSigning: signingMode(deps.env.ANC_HOTFIX_POINTER_SIGNING).mode,
      scriptPayload: scripts.describeEmbedded(),
    };
    return { exitCode: 0, stdout: await render(options.output, info) };
  },
} satisfies Command<{ output?: OutputFormat }>;

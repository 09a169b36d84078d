// provision (spec 4, D6, D9): run the provisioning scripts from a node configuration or an NBC command file.
import { AgentError } from '../platform/errors.ts';
import type { Deps } from '../platform/deps.ts';
import type { Command } from '../cli/command.ts';

interface ProvisionOptions {
  provisionConfig?: string | number;
  nbcCmd?: string | number;
  dryRun?: boolean;
  showSecrets?: boolean;
  components?: string | number;
}

/** A path flag: cac hands a value-less `--flag` over as `true`, which is a usage error (spec 1.1). */
function asPath(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new AgentError('ANC_USAGE', `flag needs an argument: -${flag}`);
}

export const provisionCommand = {
  name: 'provision',
  description: 'Run node provisioning',
  options: [
    { flag: '--provision-config <file>', description: 'path to the provision config file' },
    { flag: '--nbc-cmd <file>', description: 'path to the NBC command file' },
    { flag: '--dry-run', description: 'print the command that would be run without executing it', boolean: true },
    { flag: '--show-secrets', description: 'with --dry-run: print secret values instead of <redacted>', boolean: true },
    {
      flag: '--components <file>',
      description: "with --dry-run: the image's components.json to use (off a node; default: the image's own)",
    },
  ],
  // --dry-run only prints: no node log, no events, runs as any user.
  readOnly: (argv) => argv.some((a) => a === '--dry-run' || a === '--dry-run=true'),
  examples: [
    ['provision --provision-config=node.json', 'what the launcher runs at boot (with the node configuration file)'],
    ['provision --dry-run --provision-config=node.json', 'the command and environment it would run, secrets redacted (works anywhere)'],
    ['provision --dry-run --components components.json --provision-config=node.json', "the same off a node, with the image's GPU table"],
  ],
  exitCodes: [
    [1, 'configuration or usage error (provision.json records ExitCode 240)'],
    [255, 'the provisioning script was killed by a signal'],
  ],
  details: "Any other exit code is the provisioning script's own (see `status` for its name).",
  async run(input, deps) {
    const provisionConfig = asPath(input.options.provisionConfig, 'provision-config');
    const nbcCmd = asPath(input.options.nbcCmd, 'nbc-cmd');
    const componentsFile = asPath(input.options.components, 'components');
    if (componentsFile !== undefined && input.options.dryRun !== true) {
      // A real provision reads the image's own table; another one would provision with the wrong drivers.
      throw new AgentError(
        'ANC_USAGE',
        `--components is for --dry-run only: a real provision reads only the image's own ${deps.paths.strip(deps.paths.componentsJson)}`,
      );
    }
    const [{ provision }, { scriptStep }] = await Promise.all([import('../provision/run.ts'), import('../hotfix/scripts/step.ts')]);
    const started = deps.clock.now().getTime();
    const result = await provision(
      {
        provisionConfig,
        nbcCmd,
        dryRun: input.options.dryRun === true,
        showSecrets: input.options.showSecrets === true,
        componentsFile:
          componentsFile === undefined ? undefined : componentsFile.startsWith('/') ? componentsFile : `${deps.cwd}/${componentsFile}`,
        scripts: scriptStep,
      },
      deps,
    );
    if (input.options.dryRun !== true) await sayOutcome(result, (deps.clock.now().getTime() - started) / 1000, deps);
    return result;
  },
} satisfies Command<ProvisionOptions>;

/** One line for a person at a terminal; a rejected configuration already printed its error and hint. */
async function sayOutcome(result: { exitCode: number; stderr?: string }, seconds: number, deps: Deps): Promise<void> {
  // Never `0.0 s`: under a second in milliseconds, under ten with a decimal, else whole seconds.
  const took = seconds < 1 ? `${Math.round(seconds * 1000)} ms` : seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
  if (result.exitCode === 0) return deps.log.say(`provision: provisioning succeeded in ${took}`);
  if (result.stderr) return;
  const { nameExitCode } = await import('../status/exit-codes.ts');
  const named = nameExitCode(result.exitCode === 255 ? -1 : result.exitCode);
  const name = named ? ` ${named.name} (${named.meaning})` : '';
  deps.log.say(
    `provision: the provisioning scripts failed after ${took} with exit code ${result.exitCode}${name}; run \`aks-node-controller status\``,
  );
}

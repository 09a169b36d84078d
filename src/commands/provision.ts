// provision (spec 4, D6, D9): run the provisioning scripts from a node configuration or an NBC command file.
import { AgentError } from '../platform/errors.ts';
import type { Command } from '../cli/command.ts';

interface ProvisionOptions {
  provisionConfig?: string | number;
  nbcCmd?: string | number;
  dryRun?: boolean;
  showSecrets?: boolean;
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
  ],
  // --dry-run only prints: no node log, no events, runs as any user.
  readOnly: (argv) => argv.some((a) => a === '--dry-run' || a === '--dry-run=true'),
  examples: [
    ['provision --provision-config=node.json', 'what the launcher runs at boot (with the node configuration file)'],
    ['provision --dry-run --provision-config=node.json', 'the command and environment it would run, secrets redacted (works anywhere)'],
  ],
  exitCodes: [
    [1, 'configuration or usage error (provision.json records ExitCode 240)'],
    [255, 'the provisioning script was killed by a signal'],
  ],
  details: "Any other exit code is the provisioning script's own (see `status` for its name).",
  async run(input, deps) {
    const provisionConfig = asPath(input.options.provisionConfig, 'provision-config');
    const nbcCmd = asPath(input.options.nbcCmd, 'nbc-cmd');
    const [{ provision }, { scriptStep }] = await Promise.all([import('../provision/run.ts'), import('../hotfix/scripts/step.ts')]);
    return provision(
      {
        provisionConfig,
        nbcCmd,
        dryRun: input.options.dryRun === true,
        showSecrets: input.options.showSecrets === true,
        scripts: scriptStep,
      },
      deps,
    );
  },
} satisfies Command<ProvisionOptions>;

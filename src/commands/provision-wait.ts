// provision-wait (spec 5, D10): block until provisioning finished, print provision.json, exit 0/1.
import { clip } from '../platform/errors.ts';
import { parseSeconds } from '../cli/argv.ts';
import type { Command } from '../cli/command.ts';
import { startAttrs } from '../platform/build-info.ts';

interface ProvisionWaitOptions {
  timeout?: string | number;
}

/** `--timeout <seconds>` (D10): positive decimal seconds; absent means wait forever like the reference. */
function parseTimeout(value: string | number | undefined): number | undefined {
  return value === undefined ? undefined : Math.round(parseSeconds('timeout', value) * 1000);
}

export const provisionWaitCommand = {
  name: 'provision-wait',
  description: 'Wait for provisioning to complete',
  options: [{ flag: '--timeout <seconds>', description: 'give up after this many seconds (default: wait forever)' }],
  examples: [['provision-wait --timeout 900', 'what the CustomScript extension runs: wait, print provision.json']],
  exitCodes: [[1, 'provisioning failed, or the timeout passed']],
  async run(input, deps) {
    const timeoutMs = parseTimeout(input.options.timeout);
    const { waitForProvision } = await import('../provision/wait.ts');
    const start = deps.clock.now();
    deps.log.info('aks-node-controller started', startAttrs(deps, 'ProvisionWait'));
    deps.events.emit({ task: 'ProvisionWait', message: 'Starting', level: 'Informational', start, end: start });
    const outcome = await waitForProvision(deps, { timeoutMs });
    const end = deps.clock.now();
    // Spec 5: the raw provision.json is printed on every path, an empty line when there is none; its
    // bytes as read (N14, docs/provisioning-runtime.md): no U+FFFD, no escape for a raw control byte.
    const stdout = `${outcome.output}\n`;
    const stdoutBytes = outcome.raw ? Buffer.concat([outcome.raw, Buffer.from('\n')]) : undefined;
    // An unparsable file is not echoed in full (it may be megabytes of anything).
    const unparsable = outcome.error?.startsWith('parse provision.json:') ?? false;
    deps.log.info('provision-wait finished', { provisionOutput: unparsable ? clip(outcome.output) : outcome.output });
    if (outcome.error === undefined) {
      deps.log.say('provision-wait: provisioning succeeded (provision.json printed on stdout)');
      deps.events.emit({ task: 'ProvisionWait', message: 'Completed', level: 'Informational', start, end });
      deps.log.info('aks-node-controller finished successfully.');
      return { exitCode: 0, stdout, stdoutBytes };
    }
    deps.events.emit({
      task: 'ProvisionWait',
      message: `aks-node-controller exited with error ${outcome.error}`,
      level: 'Error',
      start,
      end,
    });
    deps.log.error('aks-node-controller failed', { error: outcome.error });
    // The event keeps the reference's `provision failed: exitCode=…` text; a person gets it once, the code named.
    const code = /^provision failed: exitCode=(-?\d+)/.exec(outcome.error)?.[1];
    const named = code === undefined ? undefined : (await import('../status/exit-codes.ts')).nameExitCode(code);
    deps.log.say(
      outcome.error.startsWith('context deadline exceeded') && timeoutMs !== undefined
        ? `provision-wait: provision.complete did not appear within ${timeoutMs / 1000} s; provisioning has not finished: run \`aks-node-controller status\``
        : named
          ? `provision-wait: provisioning failed with exit code ${named.code} ${named.name} (${named.meaning}); run \`aks-node-controller status\``
          : `provision-wait: provisioning failed: ${clip(outcome.error.replace(/^provision failed: /, ''))}; run \`aks-node-controller status\``,
    );
    return { exitCode: 1, stdout, stdoutBytes };
  },
} satisfies Command<ProvisionWaitOptions>;

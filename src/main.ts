// Entry point: wiring only. Builds the real Deps, runs the CLI in-process and sets process.exitCode
// (never process.exit, which can cut off piped stdout in the compiled binary).
import { COMMANDS } from './commands/index.ts';
import { isReadOnlyInvocation, run } from './commands/cli.ts';
import { createRealDeps } from './platform/deps.ts';
import { errorMessage } from './platform/errors.ts';
import { stderr, stdout } from './platform/stdio.ts';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let deps;
  try {
    deps = createRealDeps({ readOnly: isReadOnlyInvocation(argv, COMMANDS) });
  } catch (error) {
    // check-hotfix always exits 0 (spec 1.4, fail-open): run by a person without root, it says why in one line.
    if (argv[0] === 'check-hotfix') {
      stderr.write(
        `aks-node-controller check-hotfix: nothing checked: ${errorMessage(error)}; it needs root (the launcher runs it at boot as root); exit 0 (fail-open)\n`,
      );
      return 0;
    }
    // Spec 2: a log that cannot be opened is reported on stdout before anything else runs.
    stdout.write(`${errorMessage(error)}\n`);
    return 1;
  }
  try {
    return await run(argv, deps, COMMANDS);
  } finally {
    deps.log.close();
  }
}

main().then(
  (code) => {
    // A child killed by a signal reports -1; the reference then exits with status 255 (spec 1.4).
    process.exitCode = code < 0 ? 255 : code;
  },
  (error: unknown) => {
    stderr.write(`aks-node-controller: unexpected error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);

// Entry point: wiring only. Builds the real Deps, runs the CLI in-process and sets process.exitCode
// (never process.exit, which can cut off piped stdout in the compiled binary).
import { COMMANDS } from './commands/index.ts';
import { isReadOnlyInvocation, run } from './commands/cli.ts';
import { createRealDeps } from './platform/deps.ts';
import { printableError } from './platform/errors.ts';

async function main(): Promise<number> {
  // A reader that goes away early (`| head`) is not an error of ours: stop writing, keep the exit code.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => stream.destroy());
  const argv = process.argv.slice(2);
  let deps;
  try {
    deps = createRealDeps({ readOnly: isReadOnlyInvocation(argv, COMMANDS) });
  } catch (error) {
    // Spec 2: a log that cannot be opened is reported on stdout before anything else runs.
    process.stdout.write(`${printableError(error)}\n`);
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
    process.stderr.write(`aks-node-controller: unexpected error: ${printableError(error)}\n`);
    process.exitCode = 1;
  },
);

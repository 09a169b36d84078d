// Issue 40 item 2: help, --version, usage errors and did-you-mean run nothing, so they write nothing. Every
// command in the help tree (walked from the binary's own help) runs its help, a typo'd flag and a typo'd
// word in an empty root that is also the working directory (the log's fallback place); the root stays empty.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';

const root = mkdtempSync(join(tmpdir(), 'anc-nosidefx-'));
test.after(() => rmSync(root, { recursive: true, force: true }));
const run = (args: string[]) => runAnc(args, { root, cwd: root });

/** The words under "Commands:" in a help text. */
function commandWords(help: string): string[] {
  const section = help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((w): w is string => w !== undefined);
}

async function walk(path: string[]): Promise<string[][]> {
  const help = await run([...path, '--help']);
  assert.is(help.exitCode, 0, `${path.join(' ')} --help: ${help.stderr}`);
  const words = commandWords(help.stdout);
  if (words.length === 0) return [path];
  const nested = await Promise.all(words.map((w) => walk([...path, w])));
  return [path, ...nested.flat()];
}

test('every command: --help, -h, help <cmd>, a typo flag and a did-you-mean leave an empty root empty', async () => {
  const commands = (await walk([])).filter((p) => p.length > 0);
  // The boot-path commands that used to open the node log for --help are all there.
  for (const name of ['provision', 'provision-wait', 'report-status', 'download-hotfix', 'check-hotfix', 'apply-embedded-hotfix']) {
    assert.ok(
      commands.some((c) => c.join(' ') === name),
      `${name} in the help tree`,
    );
  }
  assert.ok(commands.length >= 20, `walked ${commands.length} commands`);
  for (const cmd of commands) {
    for (const args of [
      [...cmd, '--help'],
      [...cmd, '-h'],
      ['help', ...cmd],
      [...cmd, '--no-such-flag-x'],
      [...cmd.slice(0, -1), `${cmd.at(-1)}x`],
    ]) {
      const r = await run(args);
      assert.ok(r.exitCode === 0 || r.exitCode === 1 || r.exitCode === 2, `${args.join(' ')}: exit ${r.exitCode}`);
      // The fail-open boot commands (check-hotfix, report-status) take unknown flags as the reference does and run.
      if (args.includes('--no-such-flag-x') && r.exitCode === 0 && !/Incorrect Usage/.test(r.stderr)) {
        for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
        continue;
      }
      assert.equal(readdirSync(root), [], `${args.join(' ')} wrote into the root`);
    }
  }
  for (const args of [['--version'], ['-v'], ['--versoin'], ['provison'], ['provision-wait', '--timout', '3'], []]) {
    await run(args);
    assert.equal(readdirSync(root), [], `${args.join(' ')} wrote into the root`);
  }
});

test.run();

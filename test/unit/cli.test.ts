// The whole CLI in-process (STYLE 8.1): run(argv, deps) with a fake Deps, no process spawned.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isReadOnlyInvocation, run } from '../../src/commands/cli.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { fakeDeps } from '../fakes/deps.ts';

test("version prints the bare Deps version; --version and -v the reference's line", async () => {
  const deps = fakeDeps({ version: '202604.01.5' });
  assert.is(await run(['version'], deps, COMMANDS), 0);
  assert.is(await run(['--version'], deps, COMMANDS), 0);
  assert.is(await run(['-v'], deps, COMMANDS), 0);
  assert.equal(deps.out, ['202604.01.5\n', 'aks-node-controller version 202604.01.5\n', 'aks-node-controller version 202604.01.5\n']);
  assert.ok(isReadOnlyInvocation(['--version'], COMMANDS));
  deps.cleanup();
});

test('provision-wait prints provision.json as read and exits 1 for a failed provisioning', async () => {
  const deps = fakeDeps();
  deps.fs.mkdirp(deps.paths.containersDir);
  deps.fs.mkdirp(join(deps.paths.provisionJson, '..'));
  writeFileSync(deps.paths.provisionJson, '{"ExitCode":"7","Error":"boom","Output":""}');
  writeFileSync(deps.paths.provisionComplete, '');
  assert.is(await run(['provision-wait'], deps, COMMANDS), 1);
  assert.equal(deps.out, ['{"ExitCode":"7","Error":"boom","Output":""}\n']);
  deps.cleanup();
});

test('flag values stay text exactly as typed (no number coercion of versions)', async () => {
  const deps = fakeDeps();
  const pointer = join(deps.cwd, 'pointer.json');
  writeFileSync(pointer, '{"hotfixes":{"202604.10":"202604.10.3"}}');
  assert.is(await run(['hotfix', 'explain', '-o', 'json', '--current-version', '202604.10.0', `--pointer=${pointer}`], deps, COMMANDS), 0);
  assert.is(JSON.parse(deps.out.join('')).current, '202604.10.0');
  // A number-like value is refused quoting it exactly as typed (202604.10, not 202604.1).
  assert.is(await run(['hotfix', 'explain', '--current-version', '202604.10', `--pointer=${pointer}`], deps, COMMANDS), 1);
  assert.match(deps.err.join(''), '--current-version "202604.10" is not an image version');
  deps.cleanup();
});

test('usage errors: unknown command, unknown flag, bad boolean value', async () => {
  const deps = fakeDeps();
  assert.is(await run(['nope'], deps, COMMANDS), 1);
  assert.is(await run(['provision', '--nope'], deps, COMMANDS), 1);
  assert.is(await run(['provision', '--dry-run=maybe', '--provision-config=x'], deps, COMMANDS), 1);
  assert.match(deps.err.join(''), /unknown command "nope"; valid commands: provision, /);
  assert.match(deps.err.join(''), /flag provided but not defined: --nope/);
  assert.match(deps.err.join(''), /invalid boolean value "maybe" for flag --dry-run/);
  deps.cleanup();
});

test('read-only invocations: decided from the command table and, for provision, --dry-run', () => {
  const cases: [string[], boolean][] = [
    [['config', 'validate', 'x'], true],
    [['status'], true],
    [['version'], true],
    [['--version'], true],
    [['hotfix', 'explain'], true],
    [['provision', '--dry-run', '--provision-config=x'], true],
    [['provision', '--provision-config=x'], false],
    [['provision-wait'], false],
    [['check-hotfix'], false],
    [['download-hotfix'], false],
    [['config'], true],
    [['nope'], true],
  ];
  for (const [argv, readOnly] of cases) assert.is(isReadOnlyInvocation(argv, COMMANDS), readOnly, argv.join(' '));
});

test('three-word commands (a group inside a group) need no change in the CLI', async () => {
  const deps = fakeDeps();
  const render = {
    name: 'hotfix sample render',
    description: 'Render a sample',
    options: [],
    run: async () => ({ exitCode: 0, stdout: 'rendered\n' }),
  };
  const commands = [...COMMANDS, render];
  assert.is(await run(['hotfix', 'sample', 'render'], deps, commands), 0);
  assert.is(await run(['hotfix'], deps, commands), 0);
  assert.is(await run(['hotfix', 'sample'], deps, commands), 0);
  assert.is(await run(['hotfix', 'sample', 'rendr'], deps, commands), 1);
  assert.match(deps.out.join(''), /rendered\n/);
  assert.match(deps.out.join(''), /\n  sample +Commands: render\n/);
  assert.match(deps.err.join(''), /did you mean hotfix sample render\?/);
  deps.cleanup();
});

test('an unexpected exception is reported once with a hint, never a stack trace', async () => {
  const deps = fakeDeps();
  const boom = {
    name: 'boom',
    description: 'x',
    options: [],
    run: async () => {
      throw new TypeError('kaput');
    },
  };
  assert.is(await run(['boom'], deps, [boom]), 1);
  const err = deps.err.join('');
  assert.match(err, /^aks-node-controller: unexpected error: kaput\nhint: /);
  assert.not.match(err, /at .*\.ts:\d+/);
  deps.cleanup();
});

test.run();

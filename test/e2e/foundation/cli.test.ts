// The CLI contract of spec 1 on the compiled binary: exit codes, version output, help, usage errors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

const sandbox = makeSandbox();
const run = (args: string[]) => runAnc(args, { root: sandbox.root });
const VERSION = /^\d{6}\.\d{2}\.\d+$/;

test('`version` prints the stamped YYYYMM.DD.PATCH version and a newline', async () => {
  const r = await run(['version']);
  assert.is(r.exitCode, 0);
  assert.ok(VERSION.test(r.stdout.trimEnd()), r.stdout);
  assert.ok(r.stdout.endsWith('\n'));
  assert.is(r.stderr, '');
});

test("--version and -v print the reference's `aks-node-controller version <v>`; `version` stays bare, -o json rich", async () => {
  const version = (await run(['version'])).stdout;
  assert.match(version, /^\S+\n$/);
  for (const flag of ['--version', '-v']) {
    const r = await run([flag]);
    assert.is(r.exitCode, 0);
    assert.is(r.stdout, `aks-node-controller version ${version}`);
    assert.is(r.stderr, '');
  }
  const rich = JSON.parse((await run(['version', '-o', 'json'])).stdout);
  assert.is(rich.version, version.trim());
  assert.ok(typeof rich.commit === 'string' && typeof rich.target === 'string', JSON.stringify(rich));
  assert.equal(JSON.parse((await run(['-v', '-o', 'json'])).stdout), rich);
});

test('no command: exit 1, one line on stderr naming the valid commands, then its hint', async () => {
  const r = await run([]);
  assert.is(r.exitCode, 1);
  assert.is(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.is(lines.length, 2);
  assert.match(lines[1]!, /^hint: /);
  for (const name of ['provision', 'provision-wait', 'version', 'download-hotfix', 'check-hotfix']) {
    assert.ok(lines[0]!.includes(name), `missing ${name} in: ${lines[0]}`);
  }
});

test('unknown command: exit 1 and the valid commands on stderr', async () => {
  const r = await run(['unknown']);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /unknown command "unknown"; valid commands: provision, /);
  assert.match(r.stderr, /\nhint: Run `aks-node-controller --help`/);
  assert.is(r.stderr.trimEnd().split('\n').length, 2);
});

test('--help, -h, help and help <cmd> exit 0 with help text on stdout', async () => {
  for (const args of [['--help'], ['-h'], ['help'], ['help', 'provision'], ['provision', '--help']]) {
    const r = await run(args);
    assert.is(r.exitCode, 0, args.join(' '));
    assert.match(r.stdout, /aks-node-controller/);
  }
  const provisionHelp = await run(['help', 'provision']);
  assert.match(provisionHelp.stdout, /--provision-config/);
});

test('an undefined flag is a usage error (exit 1) naming the flag', async () => {
  const r = await run(['version', '--bogus']);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /Incorrect Usage: flag provided but not defined: --bogus/);
  const root = await run(['--bogus']);
  assert.is(root.exitCode, 1);
  assert.match(root.stderr, /flag provided but not defined: --bogus/);
});

test('check-hotfix is fail-open even for unknown flags: a WARN, exit 0 (D3)', async () => {
  const r = await run(['check-hotfix', '--foo', 'extra']);
  assert.is(r.exitCode, 0);
  assert.match(r.stderr, /"msg":"ignoring unexpected check-hotfix arguments","args":"--foo extra"/);
});

test('Go-style single-dash long flags are accepted like the reference CLI', async () => {
  const r = await run(['provision', '-bogus-flag=1']);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /flag provided but not defined: --bogus-flag/);
});

test.after(() => sandbox.cleanup());
test.run();

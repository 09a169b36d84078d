// A CLI for people on the compiled binary: command groups with their own help, per-command help with
// description, flags, examples and exit codes, did-you-mean, extra arguments, one `-o` flag, errors as
// one line plus `hint:`, JSON log lines only for machines, read-only commands anywhere.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, baseEnv, makeSandbox, runAnc } from '../harness.ts';

const sandbox = makeSandbox();
const run = (args: string[], env: Record<string, string | undefined> = {}) => runAnc(args, { root: sandbox.root, env });
const CONFIG = JSON.stringify({ version: 'v1', vmSize: 'Standard_D2s_v3', clusterConfig: { location: 'westeurope' } });

test('config and hotfix are groups: alone, with --help and via help they list their commands', async () => {
  for (const args of [['config'], ['config', '--help'], ['help', 'config']]) {
    const r = await run(args);
    assert.is(r.exitCode, 0, args.join(' '));
    for (const sub of ['validate', 'schema', 'hash', 'diff'])
      assert.match(r.stdout, new RegExp(`\\n  ${sub} `), `${args.join(' ')}: ${sub}`);
  }
  const hotfix = await run(['hotfix']);
  assert.is(hotfix.exitCode, 0);
  assert.match(hotfix.stdout, /\n  explain /);
  const root = await run(['--help']);
  assert.match(root.stdout, /\n  config +Work with node configuration files/);
  assert.match(root.stdout, /\n  status +Show how provisioning went/);
});

test('per-command help: description, usage, flags, examples and exit codes', async () => {
  const r = await run(['config', 'diff', '--help']);
  assert.is(r.exitCode, 0);
  for (const part of [
    /^aks-node-controller config diff: Classify/,
    /\nUsage:\n  aks-node-controller config diff \[flags\] <old> <new>\n/,
    /\nFlags:\n  -o, --output <format>/,
    /\nExamples:\n/,
    /\nExit codes:\n  0  none/,
    /\n  2  management-drift/,
    /\n  3  rollout/,
  ]) {
    assert.match(r.stdout, part);
  }
  assert.equal((await run(['help', 'config', 'diff'])).stdout, r.stdout);
  // Every listed command has all four parts.
  const all = [
    'status',
    'version',
    'provision',
    'provision-wait',
    'download-hotfix',
    'check-hotfix',
    'hotfix explain',
    'config validate',
    'config schema',
    'config hash',
    'config diff',
    'custom-data',
    'completion',
  ];
  for (const name of all) {
    const help = await run([...name.split(' '), '--help']);
    assert.is(help.exitCode, 0, name);
    for (const part of ['Usage:', 'Flags:', 'Examples:', 'Exit codes:']) assert.ok(help.stdout.includes(`\n${part}\n`), `${name}: ${part}`);
  }
});

test('typos: did you mean <command>, <subcommand>, <flag>; each error is one line plus hint:', async () => {
  const cases: [string[], RegExp][] = [
    [['statsu'], /unknown command "statsu"; did you mean status\?/],
    [['config', 'valdate', 'x'], /unknown command "config valdate"; did you mean config validate\?/],
    [['hotfix', 'explian'], /did you mean hotfix explain\?/],
    [['provision', '--dry-rn'], /flag provided but not defined: --dry-rn \(did you mean --dry-run\?\)/],
    [['config', 'diff', '--outptu', 'json', 'a', 'b'], /did you mean --output\?/],
    [['--verison'], /did you mean --version\?/],
  ];
  for (const [args, message] of cases) {
    const r = await run(args, { ANC_LOG_STDERR: '0' });
    assert.is(r.exitCode, 1, args.join(' '));
    assert.match(r.stderr, message);
    const lines = r.stderr.trimEnd().split('\n');
    assert.is(lines.length, 2, r.stderr);
    assert.match(lines[1]!, /^hint: /);
  }
});

test('extra positional arguments exit 1; the fail-open check-hotfix keeps warning and ignoring them', async () => {
  for (const args of [
    ['version', 'extra'],
    ['status', 'now'],
    ['provision-wait', 'x'],
    ['config', 'schema', 'x'],
    ['download-hotfix', 'x'],
  ]) {
    const r = await run(args);
    assert.is(r.exitCode, 1, args.join(' '));
    assert.match(r.stderr, new RegExp(`unexpected ${args.slice(0, -1).join(' ')} arguments: ${args.at(-1)}`));
  }
  const file = sandbox.write('/in/one.json', CONFIG);
  assert.is((await run(['config', 'hash', file, file])).exitCode, 1);
  const failOpen = await run(['check-hotfix', 'extra']);
  assert.is(failOpen.exitCode, 0);
  assert.match(failOpen.stderr, /ignoring unexpected check-hotfix arguments/);
});

test('-o text|json|yaml right after the command words on every command that prints a result', async () => {
  const file = sandbox.write('/in/config.json', CONFIG);
  const commands = [
    ['config', 'validate', '-o', 'FORMAT', file],
    ['config', 'hash', '-o', 'FORMAT', file],
    ['config', 'diff', '-o', 'FORMAT', file, file],
    ['hotfix', 'explain', '-o', 'FORMAT'],
    ['version', '-o', 'FORMAT'],
    ['status', '-o', 'FORMAT'],
  ];
  // status exits with its verdict's code (4 = not-started here), the same in every format.
  const STATUS_CODES: Record<string, number> = { succeeded: 0, failed: 2, 'in-progress': 3, 'not-started': 4 };
  for (const command of commands) {
    const json = await run(command.map((a) => (a === 'FORMAT' ? 'json' : a)));
    const value = JSON.parse(json.stdout);
    const expected = command[0] === 'status' ? STATUS_CODES[value.state as string] : 0;
    assert.is(json.exitCode, expected, `${command.join(' ')}: ${json.stderr}`);
    const yaml = await run(command.map((a) => (a === 'FORMAT' ? 'yaml' : a)));
    assert.is(yaml.exitCode, expected);
    const firstKey = Object.keys(value)[0]!;
    assert.match(yaml.stdout, new RegExp(`^${firstKey}:`), command.join(' '));
    const text = await run(command.filter((a) => a !== 'FORMAT' && a !== '-o'));
    assert.is(text.exitCode, expected);
    assert.not.ok(text.stdout.startsWith('{'), `${command.join(' ')} text output is JSON`);
  }
  const bad = await run(['version', '-o', 'xml']);
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, /unknown output format "xml"; use one of text, json, yaml\nhint: /);
});

test('version -o json: version, commit, build time, target, runtime, binary baked|hotfix', async () => {
  const baked = JSON.parse((await run(['version', '-o', 'json'])).stdout);
  assert.is(baked.version, (await run(['version'])).stdout.trim());
  assert.match(baked.commit, /^([0-9a-f]{12}(\+dirty)?|unknown)$/);
  // Named for what it is: the commit's time (a reproducible build has no time of its own).
  assert.match(baked.commitTime, /^(\d{4}-\d\d-\d\dT|unknown)/);
  assert.is(baked.buildTime, undefined);
  assert.match(baked.target, /^(linux|darwin)-(amd64|arm64)$/);
  assert.match(baked.runtime, /^bun \d+\.\d+\.\d+$/);
  assert.is(baked.binary, 'baked');
  // The same executable at the staged hotfix path says hotfix.
  const hotfix = sandbox.path('/opt/azure/containers/aks-node-controller-hotfix');
  sandbox.write('/opt/azure/containers/.keep', '');
  writeFileSync(hotfix, spawnSync('cat', [BIN], { maxBuffer: 1 << 30 }).stdout);
  chmodSync(hotfix, 0o755);
  const staged = JSON.parse((await runAnc(['version', '-o', 'json'], { root: sandbox.root, bin: hotfix })).stdout);
  assert.is(staged.binary, 'hotfix');
});

test('config diff: exit code by decision, old -> new values, secrets never shown, - reads stdin (custom-data too)', async () => {
  const old = sandbox.write('/in/old.json', CONFIG);
  const drift = sandbox.write(
    '/in/drift.json',
    JSON.stringify({
      ...JSON.parse(CONFIG),
      bootstrappingConfig: { tlsBootstrappingToken: 'sekrit.token123' },
      kubeBinaryConfig: { podInfraContainerImageUrl: 'mcr/pause:3.10' },
    }),
  );
  const rollout = sandbox.write('/in/rollout.json', JSON.stringify({ ...JSON.parse(CONFIG), vmSize: 'Standard_D4s_v3' }));
  assert.is((await run(['config', 'diff', old, old])).exitCode, 0);
  const d = await run(['config', 'diff', old, drift]);
  assert.is(d.exitCode, 2, d.stderr);
  assert.match(d.stdout, /bootstrappingConfig\.tlsBootstrappingToken: <redacted> -> <redacted>/);
  assert.match(d.stdout, /podInfraContainerImageUrl: - -> "mcr\/pause:3\.10"/);
  assert.not.match(d.stdout, /sekrit/);
  const r = await run(['config', 'diff', '-o', 'json', old, rollout]);
  assert.is(r.exitCode, 3);
  assert.equal(JSON.parse(r.stdout).changes, [{ path: 'vmSize', before: 'Standard_D2s_v3', after: 'Standard_D4s_v3' }]);
  const stdin = spawnSync(BIN, ['config', 'diff', old, '-'], {
    input: CONFIG.replace('D2s', 'D8s'),
    env: baseEnv(sandbox.root),
    encoding: 'utf8',
  });
  assert.is(stdin.status, 3, stdin.stderr);
  assert.match(stdin.stdout, /vmSize: "Standard_D2s_v3" -> "Standard_D8s_v3"/);
  const rendered = spawnSync(BIN, ['custom-data', '--raw', '-'], { input: CONFIG, env: baseEnv(sandbox.root), encoding: 'utf8' });
  assert.is(rendered.status, 0, rendered.stderr);
  assert.match(rendered.stdout, /^MIME-Version: 1\.0\r?\n/);
  const missing = await run(['config', 'diff', old, '/nonexistent.json']);
  assert.is(missing.exitCode, 1);
});

test('JSON log lines: on stderr for machines (a pipe, the journal), not for a terminal, on request with ANC_LOG_STDERR', async () => {
  const piped = await run(['provision-wait', '--timeout', '0.2']);
  assert.match(piped.stderr, /^\{"time":/m, 'a pipe gets the log lines');
  const quiet = await run(['provision-wait', '--timeout', '0.2'], { ANC_LOG_STDERR: '0' });
  assert.not.match(quiet.stderr, /"time":/);
  // Read-only commands keep stderr for people even on a pipe, unless asked.
  const readOnly = await run(['config', 'validate', '/nonexistent.json']);
  assert.is(
    readOnly.stderr,
    `aks-node-controller: cannot read configuration file /nonexistent.json: ENOENT: no such file or directory, open '/nonexistent.json'\nhint: Check that the file exists, is a regular file and is readable by the user running this command.\n`,
  );
  const asked = await run(['config', 'validate', '/nonexistent.json'], { ANC_LOG_STDERR: '1' });
  assert.match(asked.stderr, /^\{"time":.*"msg":"aks-node-controller failed"/m);
  if (process.platform !== 'linux' || !existsSync('/usr/bin/script')) return;
  // On a terminal (util-linux script gives the command one), a node command's error is one line plus its hint.
  const tty = spawnSync('script', ['-qec', `${BIN} provision`, '/dev/null'], { env: baseEnv(sandbox.root), encoding: 'utf8' });
  assert.not.match(tty.stdout, /"time":/, tty.stdout);
  assert.match(tty.stdout, /aks-node-controller: .*\r?\nhint: /);
  assert.match(sandbox.read('/var/log/azure/aks-node-controller.log'), /"msg":"aks-node-controller failed"/);
});

test('read-only commands work as a non-root user without a node root: no /var/log/azure, no log in the cwd', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'anc-laptop-'));
  chmodSync(cwd, 0o777);
  const file = join(cwd, 'node.json');
  writeFileSync(file, CONFIG, { mode: 0o644 });
  // provision --dry-run with the image's components.json: a read-only copy of an image's files (the user
  // cannot write there) stands in for the image, as docs/operators.md shows.
  const image = makeSandbox('anc-image-');
  image.write('/opt/azure/components.json', '{}');
  chmodSync(image.root, 0o755);
  const asUser = (args: string[], env: Record<string, string> = {}) => {
    const argv =
      process.getuid?.() === 0 ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', BIN, ...args] : [BIN, ...args];
    return spawnSync(argv[0]!, argv.slice(1), {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env },
      encoding: 'utf8',
    });
  };
  try {
    for (const args of [
      ['config', 'validate', file],
      ['config', 'hash', file],
      ['config', 'diff', file, file],
      ['config', 'schema'],
      ['custom-data', file],
      ['hotfix', 'explain'],
      ['version'],
      ['--help'],
    ]) {
      const r = asUser(args);
      assert.ok(r.status === 0, `${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    // No node here: status reports not-started (its own exit code, 4) and writes nothing.
    const status = asUser(['status']);
    assert.is(status.status, 4, status.stderr);
    assert.match(status.stdout, /^not-started: /);
    // On a laptop with no image at all: the command and env, and a warning that the GPU table is empty.
    const laptop = asUser(['provision', '--dry-run', `--provision-config=${file}`]);
    assert.is(laptop.status, 0, laptop.stderr);
    assert.ok(JSON.parse(laptop.stdout).command, 'the dry run printed the command');
    assert.match(laptop.stderr, /^warning: \/opt\/azure\/components\.json not found: the GPU driver variables are empty in this dry run/);
    const dry = asUser(['provision', '--dry-run', `--provision-config=${file}`], { AKS_NODE_ROOT: image.root });
    assert.is(dry.status, 0, dry.stderr);
    assert.ok(JSON.parse(dry.stdout).env, 'the dry run printed the environment');
    assert.equal(readdirSync(cwd), ['node.json'], 'a read-only command left a file in the working directory');
    assert.equal(readdirSync(image.root), ['opt'], 'the dry run wrote into the image root');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    image.cleanup();
  }
});

test.after(() => sandbox.cleanup());
test.run();

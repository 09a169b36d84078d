// vhd/aks-node-controller-launcher.sh with a fake agent (a script recording argv and env) in a sandbox
// root: the D15 / reference 8.3 flow, feature-flag parsing, clean environment, exit codes.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, recordedCalls, runLauncher, writeFakeAgent, writeHostname, type FakeAgentOptions } from '../../fakes/node-image.ts';

interface Node {
  root: string;
  rec: string;
  p: ReturnType<typeof imagePaths>;
}

const nodes: string[] = [];
function node(agent: FakeAgentOptions = {}): Node {
  const root = mkdtempSync(join(tmpdir(), 'anc-launcher-'));
  nodes.push(root);
  const p = imagePaths(root);
  const rec = join(root, 'calls');
  writeFakeAgent(p.binary, rec, agent);
  writeHostname(root);
  return { root, rec, p };
}
const put = (path: string, text: string, mode = 0o644) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text, { mode });
};
const argsOf = (n: Node) => recordedCalls(n.rec).map((c) => c.args.join(' '));

test.after(() => nodes.forEach((r) => rmSync(r, { recursive: true, force: true })));

test('no config and no nbc cmd: graceful exit 0, the agent never runs', async () => {
  const n = node();
  put(n.p.features, 'ENABLE_PROVISIONING_HOTFIX=true\n');
  put(n.p.hotfixPointer, '{"version":"202604.01.9"}');
  const out = await runLauncher(n.root);
  assert.is(out.exitCode, 0);
  assert.ok(out.stdout.includes('Gracefully exit aks-node-controller without provision config or nbc cmd'), out.stdout);
  assert.equal(recordedCalls(n.rec), []);
});

test('config only / nbc only / both: provision gets a flag for each file that exists', async () => {
  const cases: Array<[boolean, boolean]> = [
    [true, false],
    [false, true],
    [true, true],
  ];
  for (const [config, nbc] of cases) {
    const n = node();
    if (config) put(n.p.config, '{"version":"v1"}');
    if (nbc) put(n.p.nbcCmd, 'echo hi');
    const out = await runLauncher(n.root);
    assert.is(out.exitCode, 0, out.stdout + out.stderr);
    const expected = ['provision', ...(config ? [`--provision-config=${n.p.config}`] : []), ...(nbc ? [`--nbc-cmd=${n.p.nbcCmd}`] : [])];
    assert.equal(argsOf(n), [expected.join(' ')]);
    assert.is(recordedCalls(n.rec)[0]!.program, n.p.binary);
    assert.is(out.stdout.includes(`Launching aks-node-controller with config ${n.p.config}`), config);
    assert.is(out.stdout.includes(`Launching aks-node-controller with nbc cmd ${n.p.nbcCmd}`), nbc);
    assert.ok(out.stdout.includes(`Using VHD-baked binary: ${n.p.binary}`));
    assert.match(out.stdout, /Spawned aks-node-controller \(pid \d+\)\n/);
    assert.ok(out.stdout.includes('aks-node-controller completed successfully'));
  }
});

test('features file: parsed line by line, never executed, bad keys skipped, last line without newline read', async () => {
  const n = node();
  const pwned = join(n.root, 'pwned');
  put(n.p.config, '{}');
  const lines = [
    '# a comment',
    '#COMMENTED=1',
    '',
    'GOOD_ONE=yes',
    'KEY=a=b',
    `X=$(touch ${pwned})`,
    `Y=\`touch ${pwned}\``,
    '=novalue',
    'bad-key=1',
    '1ABC=2',
    'SPACED KEY=3',
    ' LEADING=4',
    'no equals sign',
    'EMPTY=',
    'PATH=/evil',
    'BUN_OPTIONS=--preload /tmp/x.js',
    'LD_PRELOAD=/tmp/x.so',
    'CRLF=value\r',
    'LAST=final',
  ];
  put(n.p.features, lines.join('\n'));
  const out = await runLauncher(n.root);
  assert.is(out.exitCode, 0, out.stderr);
  assert.ok(out.stdout.includes(`Reading feature flags from ${n.p.features}`));
  assert.not.ok(existsSync(pwned), 'a features line was executed');
  const env = recordedCalls(n.rec)[0]!.env;
  assert.is(env.GOOD_ONE, 'yes');
  assert.is(env.KEY, 'a=b');
  assert.is(env.X, `$(touch ${pwned})`);
  assert.is(env.Y, `\`touch ${pwned}\``);
  assert.is(env.EMPTY, '');
  assert.is(env.CRLF, 'value');
  assert.is(env.LAST, 'final');
  for (const bad of ['COMMENTED', '#COMMENTED', 'bad-key', '1ABC', 'SPACED KEY', 'LEADING', ' LEADING', 'BUN_OPTIONS', 'LD_PRELOAD']) {
    assert.is(env[bad], undefined, bad);
  }
  assert.is.not(env.PATH, '/evil');
});

test('check-hotfix runs (with the VHD binary, first) only when ENABLE_PROVISIONING_HOTFIX is exactly true', async () => {
  const values: Array<[string, boolean]> = [
    ['true', true],
    ['True', false],
    ['TRUE', false],
    ['1', false],
    ['yes', false],
    ['true ', false],
    ['', false],
  ];
  for (const [value, runs] of values) {
    const n = node();
    put(n.p.config, '{}');
    put(n.p.features, `ENABLE_PROVISIONING_HOTFIX=${value}\n`);
    writeFakeAgent(n.p.hotfixBinary, n.rec, { label: 'hotfix' });
    const out = await runLauncher(n.root);
    assert.is(out.exitCode, 0);
    const calls = recordedCalls(n.rec);
    assert.equal(
      calls.map((c) => c.args[0]),
      runs ? ['check-hotfix', 'provision'] : ['provision'],
      `value ${JSON.stringify(value)}`,
    );
    if (runs) {
      assert.is(calls[0]!.label, 'agent');
      assert.is(calls[0]!.program, n.p.binary);
      assert.is(calls[0]!.env.ENABLE_PROVISIONING_HOTFIX, 'true');
      assert.ok(out.stdout.includes('ENABLE_PROVISIONING_HOTFIX=true; running check-hotfix to refresh hotfix pointer'));
      assert.ok(out.stdout.includes('ANC check-hotfix completed; hotfix pointer refresh attempted'));
    }
  }
});

test('check-hotfix: the flag may come from the environment; a failure is logged and provisioning continues', async () => {
  const n = node({ exitCodes: { 'check-hotfix': 3 } });
  put(n.p.config, '{}');
  const out = await runLauncher(n.root, { ENABLE_PROVISIONING_HOTFIX: 'true' });
  assert.is(out.exitCode, 0);
  assert.equal(
    argsOf(n).map((a) => a.split(' ')[0]),
    ['check-hotfix', 'provision'],
  );
  assert.ok(out.stdout.includes('ANC check-hotfix failed; continuing (fail-open)'));
});

test('download-hotfix runs when the pointer exists (failure tolerated), not otherwise', async () => {
  const without = node();
  put(without.p.config, '{}');
  await runLauncher(without.root);
  assert.equal(
    argsOf(without).map((a) => a.split(' ')[0]),
    ['provision'],
  );

  for (const code of [0, 5]) {
    const n = node({ exitCodes: { 'download-hotfix': code } });
    put(n.p.config, '{}');
    put(n.p.hotfixPointer, '{"version":"202604.01.9"}');
    const out = await runLauncher(n.root);
    assert.is(out.exitCode, 0);
    assert.equal(
      argsOf(n).map((a) => a.split(' ')[0]),
      ['download-hotfix', 'provision'],
    );
    assert.ok(out.stdout.includes(`Found ANC hotfix config at ${n.p.hotfixPointer}; running download-hotfix`));
    assert.ok(
      out.stdout.includes(
        code === 0 ? 'ANC download-hotfix completed; binary selection follows' : 'ANC download-hotfix failed; binary selection follows',
      ),
    );
  }
});

test('order check-hotfix -> download-hotfix -> provision; a hotfix staged by download-hotfix is used', async () => {
  const n = node();
  writeFakeAgent(n.p.binary, n.rec, { stageHotfixTo: n.p.hotfixBinary });
  put(n.p.config, '{}');
  put(n.p.features, 'ENABLE_PROVISIONING_HOTFIX=true');
  put(n.p.hotfixPointer, '{}');
  const out = await runLauncher(n.root);
  assert.is(out.exitCode, 0);
  const calls = recordedCalls(n.rec);
  assert.equal(
    calls.map((c) => [c.args[0], c.program]),
    [
      ['check-hotfix', n.p.binary],
      ['download-hotfix', n.p.binary],
      ['provision', n.p.hotfixBinary],
    ],
  );
  assert.ok(out.stdout.includes(`Using hotfix binary: ${n.p.hotfixBinary}`));
});

test('a leftover hotfix binary is preferred only when executable', async () => {
  for (const mode of [0o755, 0o644]) {
    const n = node();
    put(n.p.config, '{}');
    writeFakeAgent(n.p.hotfixBinary, n.rec, { label: 'hotfix' });
    chmodSync(n.p.hotfixBinary, mode);
    const out = await runLauncher(n.root);
    const calls = recordedCalls(n.rec);
    assert.is(calls.length, 1);
    assert.is(calls[0]!.program, mode === 0o755 ? n.p.hotfixBinary : n.p.binary);
    assert.ok(out.stdout.includes(mode === 0o755 ? 'Using hotfix binary:' : 'Using VHD-baked binary:'));
  }
});

test('clean environment: runtime hooks and stray variables never reach the agent', async () => {
  const n = node();
  put(n.p.config, '{}');
  put(n.p.features, 'FEATURE_A=1\n');
  const hooks = {
    BUN_OPTIONS: '--preload /tmp/evil.js',
    BUN_BE_BUN: '1',
    NODE_OPTIONS: '--require /tmp/evil.js',
    LD_PRELOAD: '/tmp/evil.so',
    SOME_SECRET: 'x',
  };
  await runLauncher(n.root, { ...hooks, LANG: 'C.UTF-8', LAUNCHER_PASS_ENV: 'EXTRA_ONE BUN_BE_BUN', EXTRA_ONE: 'kept' });
  const env = recordedCalls(n.rec)[0]!.env;
  for (const name of Object.keys(hooks)) assert.is(env[name], undefined, name);
  const names = Object.keys(env)
    .filter((k) => k !== '_' && k !== 'PWD' && k !== 'SHLVL')
    .sort();
  assert.equal(names, ['AKS_NODE_ROOT', 'EXTRA_ONE', 'FEATURE_A', 'HOME', 'LANG', 'PATH']);
  assert.is(env.AKS_NODE_ROOT, n.root);
  assert.is(env.EXTRA_ONE, 'kept');
});

test("exit code: provision's code is the launcher's", async () => {
  for (const code of [0, 1, 7, 240]) {
    const n = node({ exitCodes: { provision: code } });
    put(n.p.nbcCmd, 'true');
    const out = await runLauncher(n.root);
    assert.is(out.exitCode, code);
    assert.ok(
      out.stdout.includes(code === 0 ? 'aks-node-controller completed successfully' : `aks-node-controller exited with code ${code}`),
    );
  }
});

test('paths are overridable by environment; each message also goes to logger -t aks-node-controller-launcher', async () => {
  const n = node();
  const elsewhere = join(n.root, 'elsewhere');
  const bin = writeFakeAgent(join(elsewhere, 'anc'), n.rec);
  const config = join(elsewhere, 'cfg.json');
  put(config, '{}');
  const logged = join(n.root, 'logger.txt');
  const logger = join(elsewhere, 'logger');
  put(logger, `#!/bin/bash\nprintf '%s|' "$@" >> ${JSON.stringify(logged)}\necho >> ${JSON.stringify(logged)}\n`, 0o755);
  const out = await runLauncher(n.root, { BIN_PATH: bin, CONFIG_PATH: config, LOGGER_CMD: logger });
  assert.is(out.exitCode, 0);
  assert.equal(
    recordedCalls(n.rec).map((c) => [c.program, ...c.args]),
    [[bin, 'provision', `--provision-config=${config}`]],
  );
  const lines = readFileSync(logged, 'utf8').trim().split('\n');
  assert.is(lines[0], `-t|aks-node-controller-launcher|--|Using VHD-baked binary: ${bin}|`);
  assert.is(lines.length, out.stdout.trim().split('\n').length);
  const missing = await runLauncher(n.root, { BIN_PATH: bin, CONFIG_PATH: config, LOGGER_CMD: join(n.root, 'no-such-logger') });
  assert.is(missing.exitCode, 0, 'a missing logger is tolerated');
});

test('waits for the hostname to match /etc/hostname (1 s steps), optionally bounded', async () => {
  const n = node();
  put(n.p.nbcCmd, 'true');
  writeHostname(n.root, 'not-yet-' + Date.now());
  const pending = runLauncher(n.root);
  setTimeout(() => writeHostname(n.root), 1500);
  const out = await pending;
  assert.is(out.exitCode, 0);
  assert.ok(out.durationMs >= 1400, `returned after ${out.durationMs} ms`);
  assert.is(recordedCalls(n.rec).length, 1);
  // It says once what it waits for (not once per second).
  const waiting = out.stdout.split('\n').filter((l) => l.startsWith('Waiting for the hostname'));
  assert.is(waiting.length, 1, out.stdout);
  assert.match(
    waiting[0]!,
    /^Waiting for the hostname: running as '.+', \S+\/etc\/hostname says 'not-yet-\d+'; provisioning starts when they match$/,
  );

  const m = node();
  put(m.p.nbcCmd, 'true');
  writeHostname(m.root, 'never-matches');
  const bounded = await runLauncher(m.root, { HOSTNAME_WAIT_TIMEOUT: '1' });
  assert.is(bounded.exitCode, 0);
  assert.ok(bounded.stdout.includes('Hostname did not match'), bounded.stdout);
});

test('the launcher and install.sh are shellcheck clean', async () => {
  const { spawnSync } = await import('node:child_process');
  const { LAUNCHER, INSTALL } = await import('../../fakes/node-image.ts');
  const r = spawnSync('shellcheck', [LAUNCHER, INSTALL], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test.run();

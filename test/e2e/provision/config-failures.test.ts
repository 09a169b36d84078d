// Fail-fast rows of spec 4.5 and the robustness cases: every bad config gives a clear error naming the
// file, provision.json ExitCode "240", provision.complete, exit 1, no stack trace, no hang, no secret.
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';
import {
  PROVISION_COMPLETE,
  PROVISION_JSON,
  SECRETS,
  assertNoSecrets,
  configWithSecrets,
  eventMessages,
  everything,
  makeNode,
  mode,
  provisionJson,
  startWait,
  successScript,
  type Node,
} from './support.ts';

async function failFast(node: Node, args: string[]) {
  const waiter = startWait(node);
  const run = await runAnc(['provision', ...args], { root: node.root, timeoutMs: 20_000 });
  const wait = await waiter;
  assert.is(run.exitCode, 1, `exit 1, got ${run.exitCode}: ${run.stderr}`);
  assert.ok(run.durationMs < 10_000, `no hang (${run.durationMs} ms)`);
  assert.not.match(run.stderr, /\n\s+at /, 'no stack trace');
  const parsed = JSON.parse(provisionJson(node)!);
  assert.equal(Object.keys(parsed), ['ExitCode', 'Error', 'Output']);
  assert.is(parsed.ExitCode, '240');
  assert.is(parsed.Output, '');
  assert.is(mode(node, PROVISION_JSON), 0o600);
  assert.is(mode(node, PROVISION_COMPLETE), 0o600);
  assert.is(wait.exitCode, 1);
  assert.is(wait.stdout, provisionJson(node)! + '\n');
  const later = await startWait(node);
  assert.equal([later.exitCode, later.stdout], [1, wait.stdout], 'a waiter started afterwards sees the same');
  assertNoSecrets(everything(node, [run, wait, later]));
  return { run, error: parsed.Error as string };
}

function withNode(config: unknown, body: (node: Node) => Promise<void>) {
  return async () => {
    const node = makeNode(successScript(), config);
    try {
      await body(node);
    } finally {
      node.cleanup();
    }
  };
}

test(
  'missing flags -> the reference text',
  withNode(configWithSecrets(), async (node) => {
    const { error } = await failFast(node, []);
    assert.is(provisionJson(node), '{"ExitCode":"240","Error":"--provision-config or --nbc-cmd is required","Output":""}');
    assert.is(error, '--provision-config or --nbc-cmd is required');
  }),
);

test(
  'missing config file',
  withNode(configWithSecrets(), async (node) => {
    const missing = node.path('/nope/config.json');
    const { error, run } = await failFast(node, [`--provision-config=${missing}`]);
    assert.is(error, `open provision file ${missing}: open ${missing}: no such file or directory`);
    assert.ok(run.stderr.includes(missing));
    assert.equal(
      eventMessages(node)
        .filter((m) => m.includes('.Provision|'))
        .slice(-1),
      [`AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error ${error}`],
    );
  }),
);

test(
  'empty config',
  withNode('', async (node) => {
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.is(error, `provision config ${node.configPath} is empty`);
  }),
);

test(
  'truncated config (valid prefix with version and secrets)',
  withNode(JSON.stringify(configWithSecrets()).slice(0, 90), async (node) => {
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.ok(error.startsWith(`provision config ${node.configPath} is not valid JSON: `), error);
  }),
);

test(
  'binary config',
  withNode(new Uint8Array([0x7b, 0x00, 0xff, 0xfe, 0x01]), async (node) => {
    writeFileSync(node.configPath, new Uint8Array([0x7b, 0x22, 0x00, 0xff, 0xfe, 0x01]));
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.is(error, `provision config ${node.configPath} is not a text file (NUL byte at offset 2)`);
  }),
);

test(
  'invalid UTF-8 config',
  withNode('', async (node) => {
    writeFileSync(node.configPath, new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]));
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.is(error, `provision config ${node.configPath} is not valid UTF-8 text`);
  }),
);

test(
  'huge (100 MB) config is refused without being read',
  withNode('', async (node) => {
    truncateSync(node.configPath, 100 * 1024 * 1024);
    const { error, run } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.is(error, `provision config ${node.configPath} is too large: 104857600 bytes (limit 4194304 bytes)`);
    assert.ok(run.durationMs < 3000, `fast: ${run.durationMs} ms`);
  }),
);

test(
  'unreadable configs: a directory, a dangling symlink, a symlink loop',
  withNode('', async (node) => {
    const dir = node.path('/cfgdir');
    mkdirSync(dir);
    let r = await failFast(node, [`--provision-config=${dir}`]);
    assert.is(r.error, `provision config ${dir} must be a regular file`);
    for (const [name, target, text] of [
      ['dangling', node.path('/missing-target'), 'no such file or directory'],
      ['loop', node.path('/loop'), 'too many levels of symbolic links'],
    ] as const) {
      node.cleanup();
      const fresh = makeNode(successScript(), configWithSecrets());
      const link = fresh.path(`/${name}`);
      symlinkSync(name === 'loop' ? fresh.path('/loop') : target, link);
      try {
        r = await failFast(fresh, [`--provision-config=${link}`]);
        assert.ok(r.error.includes(link) && r.error.endsWith(text), r.error);
      } finally {
        fresh.cleanup();
      }
    }
  }),
);

test(
  'bad version -> unsupported version (reference text)',
  withNode(configWithSecrets({ version: 'v9' }), async (node) => {
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.is(error, 'unsupported version: v9');
  }),
);

test(
  'missing components.json -> failed to load GPU config',
  withNode(configWithSecrets(), async (node) => {
    node.write('/opt/azure/components.json', '');
    const { error } = await failFast(node, [`--provision-config=${node.configPath}`]);
    assert.ok(error.startsWith('failed to load GPU config: '), error);
  }),
);

test(
  'a secret given with the wrong type is not echoed',
  withNode(configWithSecrets({ bootstrappingConfig: { tlsBootstrappingToken: 987654321987 } }), async (node) => {
    const run = await runAnc(['provision', `--provision-config=${node.configPath}`], { root: node.root });
    assert.is(run.exitCode, 0, run.stderr);
    assertNoSecrets(everything(node, [run]), ['987654321987']);
  }),
);

test(
  'dry-run writes nothing, redacts secrets, and --show-secrets reveals them only on stdout',
  withNode(configWithSecrets(), async (node) => {
    const run = await runAnc(['provision', `--provision-config=${node.configPath}`, '--dry-run'], { root: node.root });
    assert.is(run.exitCode, 0, run.stderr);
    const view = JSON.parse(run.stdout);
    assert.is(view.command[0], '/bin/bash');
    assert.is(view.env.TLS_BOOTSTRAP_TOKEN, '<redacted>');
    assert.is(provisionJson(node), undefined);
    assertNoSecrets(everything(node, [run]));
    const shown = await runAnc(['provision', `--provision-config=${node.configPath}`, '--dry-run', '--show-secrets'], { root: node.root });
    assert.is(JSON.parse(shown.stdout).env.TLS_BOOTSTRAP_TOKEN, SECRETS.token);
    assertNoSecrets(everything(node, [{ ...shown, stdout: '' }]));
    const failed = await runAnc(['provision', '--provision-config=/does/not/exist', '--dry-run'], { root: node.root });
    assert.is(failed.exitCode, 1);
    assert.is(provisionJson(node), undefined, 'a failing dry run writes no status either');
  }),
);

test.run();

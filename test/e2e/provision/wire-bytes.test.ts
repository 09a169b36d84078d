// Bytes on the wire (issue 39, N8-N15 and N17), each with its smallest reproducer on the compiled binary:
// what reaches the events, provision.json and provision-wait's stdout is the reference's bytes; our own
// words stay in status, the log and stderr.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, baseEnv, runAnc } from '../harness.ts';
import {
  LOG,
  PROVISION_COMPLETE,
  PROVISION_JSON,
  eventMessages,
  everything,
  makeNode,
  provisionJson,
  startWait,
  successScript,
  type Node,
} from './support.ts';

async function provision(node: Node) {
  return runAnc(['provision', `--provision-config=${node.configPath}`], { root: node.root, timeoutMs: 30_000 });
}

const errorEvent = (node: Node, task = 'Provision') =>
  eventMessages(node).find((m) => m.startsWith(`AKS.AKSNodeController.${task}|Error|`));

test('N8: an unknown field -> the Completed event reads `Completed`; the issue stays in the log and status', async () => {
  const node = makeNode(successScript(), { version: 'v1', x: 1 });
  try {
    const run = await provision(node);
    assert.is(run.exitCode, 0, run.stderr);
    assert.equal(eventMessages(node), [
      'AKS.AKSNodeController.Provision|Informational|Starting',
      'AKS.AKSNodeController.Provision|Informational|Completed',
    ]);
    const completed = node.events().find((e) => e.Message!.startsWith('Completed'))!;
    assert.match(completed.Message!, /^Completed \| startTime=\S+ \S+ endTime=\S+ \S+ durationMs=\d+$/);
    assert.match(node.read(LOG), /"issues":"config issues \(1\): unknown-field \$\.x"/);
    const status = await runAnc(['status'], { root: node.root });
    assert.match(status.stdout, /unknown field "x" in Configuration/);
  } finally {
    node.cleanup();
  }
});

test('N9 (security): a NUL in the bootstrap token -> `exec: environment variable contains NUL`, the token nowhere', async () => {
  const token = 'abcdef.0123456789abcdef';
  const node = makeNode(
    successScript(),
    '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef\\u0000x"}}',
  );
  try {
    const waiter = startWait(node);
    const run = await provision(node);
    const wait = await waiter;
    assert.is(run.exitCode, 1);
    assert.is(provisionJson(node), '{"ExitCode":"-1","Error":"exec: environment variable contains NUL","Output":"\\n"}');
    assert.is(
      errorEvent(node),
      'AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error exec: environment variable contains NUL',
    );
    assert.is(wait.exitCode, 1);
    const all = everything(node, [run, wait]);
    for (const form of [token, '0123456789abcdef', 'YWJjZGVm']) assert.not.ok(all.includes(form), `leaked ${form}`);
  } finally {
    node.cleanup();
  }
});

test('N9: an environment past the kernel limit -> `fork/exec /bin/bash: argument list too long`', async () => {
  // One environment string over MAX_ARG_STRLEN (128 KiB): execve fails with E2BIG.
  const node = makeNode(successScript(), { version: 'v1', customCaCerts: ['c'.repeat(200_000)] });
  try {
    const run = await provision(node);
    assert.is(run.exitCode, 1);
    assert.is(JSON.parse(provisionJson(node)!).Error, 'fork/exec /bin/bash: argument list too long');
    assert.is(
      errorEvent(node),
      'AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error fork/exec /bin/bash: argument list too long',
    );
  } finally {
    node.cleanup();
  }
});

test('N10: a 41-character version is written whole (provision.json, event); stderr clips only long runs', async () => {
  const version = `v${'9'.repeat(40)}`;
  const node = makeNode(successScript(), { version });
  try {
    const run = await provision(node);
    assert.is(run.exitCode, 1);
    assert.is(JSON.parse(provisionJson(node)!).Error, `unsupported version: ${version}`);
    assert.is(
      errorEvent(node),
      `AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error unsupported version: ${version}`,
    );
    assert.match(run.stderr, `aks-node-controller: unsupported version: ${version}\n`);
  } finally {
    node.cleanup();
  }
});

async function componentsError(body: string | Buffer | 'dir'): Promise<string> {
  const node = makeNode(successScript(), { version: 'v1' });
  try {
    const file = node.path('/opt/azure/components.json');
    if (body === 'dir') {
      rmSync(file);
      mkdirSync(file);
    } else writeFileSync(file, body);
    const run = await provision(node);
    assert.is(run.exitCode, 1);
    const error = JSON.parse(provisionJson(node)!).Error as string;
    assert.is(errorEvent(node), `AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error ${error}`);
    return error.replaceAll(file, '<p>');
  } finally {
    node.cleanup();
  }
}

test('N11: components.json type errors name the package (gpu.)', async () => {
  const prefix = 'failed to load GPU config: parse <p>: failed to unmarshal components.json: json: cannot unmarshal';
  assert.is(
    await componentsError('{"GPUContainerImages":{}}'),
    `${prefix} object into Go struct field componentsConfig.GPUContainerImages of type []gpu.gpuContainerImage`,
  );
  assert.is(
    await componentsError('{"GPUContainerImages":[{"gpuVersion":1}]}'),
    `${prefix} number into Go struct field gpuContainerImage.GPUContainerImages.gpuVersion of type gpu.gpuVersion`,
  );
  assert.is(await componentsError('[]'), `${prefix} array into Go value of type gpu.componentsConfig`);
});

test("N12: components.json read and syntax errors in Go's encoding/json and os words", async () => {
  const prefix = 'failed to load GPU config: parse <p>: failed to unmarshal components.json: ';
  assert.is(await componentsError('{}x'), `${prefix}invalid character 'x' after top-level value`);
  assert.is(await componentsError('{"GPUContainerImages":['), `${prefix}unexpected end of JSON input`);
  assert.is(await componentsError('\ufeff{}'), `${prefix}invalid character 'ï' looking for beginning of value`);
  assert.is(await componentsError('dir'), 'failed to load GPU config: read <p>: read <p>: is a directory');
});

test("N13: invalid UTF-8 in the scripts' output -> one \\ufffd escape per byte in provision.json Output", async () => {
  // E2 82 is a cut 3-byte sequence (two invalid bytes for Go), FF one; a real U+FFFD stays the character.
  const script = `#!/bin/bash\nprintf 'a\\xe2\\x82b\\xffc\\xef\\xbf\\xbd'\nexit 7\n`;
  const node = makeNode(script, { version: 'v1' });
  try {
    const run = await provision(node);
    assert.is(run.exitCode, 7);
    const bytes = readFileSync(node.path(PROVISION_JSON));
    assert.is(bytes.toString('utf8'), '{"ExitCode":"7","Error":"exit status 7","Output":"a\\ufffd\\ufffdb\\ufffdc\ufffd\\n"}');
  } finally {
    node.cleanup();
  }
});

test('N14: provision-wait prints the bytes as read: invalid UTF-8 and a raw NUL pass unchanged', async () => {
  const node = makeNode(successScript(), { version: 'v1' });
  try {
    // Invalid UTF-8 inside a string is valid JSON to Go (exit 0); a raw NUL is not (exit 1): both are printed as read.
    const cases: Array<[Buffer, number]> = [
      [Buffer.concat([Buffer.from('{"ExitCode":"0","Output":"x'), Buffer.from([0xff, 0xe2, 0x82]), Buffer.from('y"}')]), 0],
      [Buffer.concat([Buffer.from('{"ExitCode":"0","Output":"x'), Buffer.from([0x00]), Buffer.from('y"}')]), 1],
    ];
    for (const [body, exit] of cases) {
      node.write(PROVISION_JSON, body);
      node.write(PROVISION_COMPLETE, '');
      // The harness decodes stdout as text; the bytes need a direct spawn.
      const wait = spawnSync(BIN, ['provision-wait'], { env: baseEnv(node.root), cwd: node.root, timeout: 30_000 });
      assert.is(wait.status, exit, wait.stderr.toString());
      assert.ok(wait.stdout.equals(Buffer.concat([body, Buffer.from('\n')])), JSON.stringify(wait.stdout.toString('latin1')));
    }
  } finally {
    node.cleanup();
  }
});

test("N15: provision-wait applies Go's 10,000-level nesting limit", async () => {
  const node = makeNode(successScript(), { version: 'v1' });
  try {
    node.write(PROVISION_JSON, `{"ExitCode":"0","x":${'['.repeat(10_001)}${']'.repeat(10_001)}}`);
    node.write(PROVISION_COMPLETE, '');
    const deep = await runAnc(['provision-wait'], { root: node.root });
    assert.is(deep.exitCode, 1);
    assert.is(
      errorEvent(node, 'ProvisionWait'),
      "AKS.AKSNodeController.ProvisionWait|Error|aks-node-controller exited with error parse provision.json: invalid character '[' exceeded max depth",
    );
    writeFileSync(node.path(PROVISION_JSON), `{"ExitCode":"0","x":${'['.repeat(9_999)}${']'.repeat(9_999)}}`);
    const fits = await runAnc(['provision-wait'], { root: node.root });
    assert.is(fits.exitCode, 0, fits.stderr);
  } finally {
    node.cleanup();
  }
});

test('N17: a lone-surrogate escape in an enum name is a D7 bad value, not an unknown-name warning', async () => {
  const node = makeNode(successScript(), '{"version":"v1","workloadRuntime":"\\ud800"}');
  try {
    const r = await runAnc(['config', 'validate', '-o', 'json', node.configPath], { root: node.root });
    assert.is(r.exitCode, 1);
    const out = JSON.parse(r.stdout) as { errors: Array<{ path: string; kind: string }>; warnings: Array<{ path: string }> };
    assert.equal(
      out.errors.map((e) => [e.path, e.kind]),
      [['$.workloadRuntime', 'bad-value']],
    );
    assert.not.ok(out.warnings.some((w) => w.path === '$.workloadRuntime'));
  } finally {
    node.cleanup();
  }
});

test.run();

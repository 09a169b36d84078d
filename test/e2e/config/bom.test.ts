// Issue 32, N6: every command that reads a configuration reads it through the same bytes-to-text step
// (config/read.ts): ONE leading UTF-8 byte order mark is skipped with the documented `syntax` warning, TWO
// are a syntax error (the second is not JSON), invalid UTF-8 is refused naming the file. One test per command.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';
import { LOG, makeNode, provisionJson, successScript } from '../provision/support.ts';

const SAMPLE = readFileSync(join(process.cwd(), 'test/fixtures/sample-config.json'));
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ONE = Buffer.concat([BOM, SAMPLE]);
const TWO = Buffer.concat([BOM, BOM, SAMPLE]);
const BOM_WARNING = 'UTF-8 byte order mark at the start of the file (skipped)';
const SECOND_BOM = 'unexpected character U+FEFF (expected a JSON value) (line 1, column 2)';
const NODE_CONFIG = '/opt/azure/containers/aks-node-controller-config.json';

const box = makeSandbox('anc-e2e-bom-');
const one = box.write('/tmp/one.json', ONE);
const two = box.write('/tmp/two.json', TWO);
const plain = box.write('/tmp/plain.json', SAMPLE);
const run = (args: string[], env: Record<string, string> = {}) => runAnc(args, { root: box.root, env });

test('config validate: one BOM is a warning (valid), two are a syntax error (invalid)', async () => {
  const r1 = await run(['config', 'validate', '-o', 'json', one]);
  assert.is(r1.exitCode, 0, r1.stdout);
  const j1 = JSON.parse(r1.stdout);
  assert.equal(
    j1.warnings.map((w: { message: string; kind: string }) => [w.kind, w.message]),
    [['syntax', BOM_WARNING]],
  );
  const r2 = await run(['config', 'validate', '-o', 'json', two]);
  assert.is(r2.exitCode, 1);
  assert.ok(
    JSON.parse(r2.stdout).errors.some((e: { kind: string; message: string }) => e.kind === 'syntax' && e.message.includes(SECOND_BOM)),
    r2.stdout,
  );
});

test('config hash: one BOM hashes as the plain file (with the warning), two are refused', async () => {
  const [p, r1, r2] = await Promise.all([run(['config', 'hash', plain]), run(['config', 'hash', one]), run(['config', 'hash', two])]);
  assert.is(r1.exitCode, 0, r1.stderr);
  assert.is(r1.stdout, p.stdout);
  assert.match(r1.stderr, `${one}: $: ${BOM_WARNING}`);
  assert.is(r2.exitCode, 1);
  assert.match(r2.stderr, `${two} is not a usable configuration: invalid JSON: ${SECOND_BOM}`);
});

test('config diff: one BOM reads as the plain file, two are refused', async () => {
  const same = await run(['config', 'diff', '-o', 'json', plain, one]);
  assert.is(same.exitCode, 0, same.stderr);
  assert.is(JSON.parse(same.stdout).decision, 'none');
  assert.match(same.stderr, BOM_WARNING);
  const bad = await run(['config', 'diff', plain, two]);
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, SECOND_BOM);
});

test('custom-data: one BOM renders what the plain file renders, two are refused', async () => {
  const [p, r1, r2] = await Promise.all([run(['custom-data', plain]), run(['custom-data', one]), run(['custom-data', two])]);
  assert.is(r1.exitCode, 0, r1.stderr);
  assert.is(r1.stdout, p.stdout);
  assert.match(r1.stderr, `warning: $: ${BOM_WARNING}`);
  assert.is(r2.exitCode, 1);
  assert.match(r2.stderr, SECOND_BOM);
});

test('provision --dry-run: one BOM goes ahead with the warning logged, two are refused as invalid JSON', async () => {
  const r1 = await run(['provision', '--dry-run', `--provision-config=${one}`], { ANC_LOG_STDERR: '1' });
  assert.is(r1.exitCode, 0, r1.stderr);
  assert.match(
    r1.stderr,
    `"level":"WARN","msg":"problem in the node configuration","field":"$","kind":"syntax","problem":"${BOM_WARNING}"`,
  );
  const p = await run(['provision', '--dry-run', `--provision-config=${plain}`]);
  assert.is(r1.stdout, p.stdout);
  const r2 = await run(['provision', '--dry-run', `--provision-config=${two}`]);
  assert.is(r2.exitCode, 1);
  assert.match(r2.stderr, `provision config ${two} is not valid JSON: invalid JSON: ${SECOND_BOM}`);
});

test('provision: one BOM provisions and logs the warning; two fail before the scripts with the syntax error', async () => {
  for (const [bytes, ok] of [
    [ONE, true],
    [TWO, false],
  ] as const) {
    const node = makeNode(successScript());
    try {
      node.write(NODE_CONFIG, bytes, 0o600);
      const r = await runAnc(['provision', `--provision-config=${node.configPath}`], { root: node.root, timeoutMs: 30_000 });
      const status = JSON.parse(provisionJson(node)!);
      if (ok) {
        assert.is(r.exitCode, 0, r.stderr);
        assert.is(status.ExitCode, '0');
        assert.match(node.read(LOG), `"msg":"problem in the node configuration","field":"$","kind":"syntax","problem":"${BOM_WARNING}"`);
      } else {
        assert.is(r.exitCode, 1);
        assert.is(status.ExitCode, '240');
        assert.match(status.Error, `is not valid JSON: invalid JSON: ${SECOND_BOM}`);
        assert.not.match(node.read(LOG), 'provisioning stand-in');
      }
    } finally {
      node.cleanup();
    }
  }
});

test('status: the node configuration read the same way (one BOM a warning, two a syntax error)', async () => {
  const node = makeSandbox('anc-e2e-bom-status-');
  try {
    node.write(NODE_CONFIG, ONE, 0o600);
    const s1 = JSON.parse((await runAnc(['status', '-o', 'json'], { root: node.root })).stdout);
    assert.equal(s1.configWarnings, [`warning: $: ${BOM_WARNING}`]);
    node.write(NODE_CONFIG, TWO, 0o600);
    const s2 = JSON.parse((await runAnc(['status', '-o', 'json'], { root: node.root })).stdout);
    assert.ok(
      s2.configWarnings.some((w: string) => w.includes(SECOND_BOM)),
      JSON.stringify(s2.configWarnings),
    );
  } finally {
    node.cleanup();
  }
});

test('check-hotfix: the node credentials are read past one BOM, not past two', async () => {
  const node = makeSandbox('anc-e2e-bom-check-');
  const config = Buffer.from(
    JSON.stringify({
      version: 'v1',
      apiServerConfig: { apiServerName: '127.0.0.1' },
      bootstrappingConfig: { tlsBootstrappingToken: 'abcdef.0123456789abcdef' },
    }),
  );
  try {
    node.write(NODE_CONFIG, Buffer.concat([BOM, config]), 0o600);
    assert.is((await runAnc(['check-hotfix'], { root: node.root })).exitCode, 0);
    let log = node.read(LOG);
    // Both fields were read: the next thing it needed was the cluster CA; the cold-start read parsed the file.
    assert.match(log, 'reading cluster CA /etc/kubernetes/certs/ca.crt');
    assert.match(log, 'no cold-start pointer present');
    node.write(NODE_CONFIG, Buffer.concat([BOM, BOM, config]), 0o600);
    assert.is((await runAnc(['check-hotfix'], { root: node.root })).exitCode, 0);
    log = node.read(LOG).slice(log.length);
    assert.match(log, 'node config has no api_server_config.api_server_name');
    assert.match(log, 'parsing node config /opt/azure/containers/aks-node-controller-config.json: not valid JSON');
    assert.not.match(log, 'abcdef.0123456789abcdef');
  } finally {
    node.cleanup();
  }
});

test('invalid UTF-8 in a configuration is refused by every command, naming the file', async () => {
  const bad = box.write(
    '/tmp/bad-utf8.json',
    Buffer.concat([Buffer.from('{"version":"v1","vmSize":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
  );
  for (const args of [
    ['config', 'validate', bad],
    ['config', 'hash', bad],
    ['custom-data', bad],
  ]) {
    const r = await run(args);
    assert.is(r.exitCode, 1, args.join(' '));
    assert.match(r.stderr, `configuration file ${bad} is not valid UTF-8 text`, args.join(' '));
  }
  const p = await run(['provision', '--dry-run', `--provision-config=${bad}`]);
  assert.is(p.exitCode, 1);
  assert.match(p.stderr, `provision config ${bad} is not valid UTF-8 text`);
});

test.after(() => box.cleanup());
test.run();

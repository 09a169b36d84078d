// `custom-data` on the compiled binary: determinism, cloud-init's own schema check, ignition shape,
// --decode, and the rendered boothook actually run (paths moved into a sandbox) followed by the launcher.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';
import { imagePaths, mimeParts, recordedCalls, runBoothook, runLauncher, writeFakeAgent, writeHostname } from '../../fakes/node-image.ts';

const sandbox = makeSandbox('anc-e2e-custom-data-');
const DOC_A = JSON.stringify({
  version: 'v1',
  authConfig: { subscriptionId: 'sub-1' },
  clusterConfig: { resourceGroup: 'rg', location: 'westus2' },
  apiServerConfig: { apiServerName: 'api.example' },
  bootstrappingConfig: { tlsBootstrappingToken: 'abcdef.0123456789abcdef' },
  enabledFeatures: { ENABLE_PROVISIONING_HOTFIX: 'true', FEATURE_B: 'b' },
});
const DOC_B = `{"enabled_features":{"FEATURE_B":"b","ENABLE_PROVISIONING_HOTFIX":"true"},
 "bootstrapping_config":{"tls_bootstrapping_token":"abcdef.0123456789abcdef"},
 "api_server_config":{"api_server_name":"api.example"},"cluster_config":{"location":"westus2","resource_group":"rg"},
 "auth_config":{"subscription_id":"sub-1"},"version":"v1"}`;
const fileA = sandbox.write('/in/a.json', DOC_A);
const fileB = sandbox.write('/in/b.json', DOC_B);

async function anc(args: string[]): Promise<string> {
  const out = await runAnc(args, { root: sandbox.root });
  assert.is(out.exitCode, 0, `${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

function cloudInitValid(text: string, name: string): void {
  const file = sandbox.write(`/schema/${name}.yaml`, text);
  const r = spawnSync('cloud-init', ['schema', '--config-file', file], { encoding: 'utf8' });
  assert.is(r.status, 0, `${name}: ${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /Valid cloud-config/);
}

test.after(() => sandbox.cleanup());

test('binary: byte-identical custom data for reordered, re-spelled input in every format', async () => {
  for (const format of ['mime', 'cloud-config', 'ignition']) {
    const a = await anc(['custom-data', '--format', format, fileA]);
    assert.match(a, /^[A-Za-z0-9+/]+=*\n$/);
    assert.is(await anc(['custom-data', `--format=${format}`, fileB]), a, format);
    assert.is(Buffer.from(a, 'base64').toString('utf8'), await anc(['custom-data', '--format', format, '--raw', fileA]));
  }
});

test('cloud-init schema accepts the cloud-config form and the cloud-config part of the MIME form', async () => {
  cloudInitValid(await anc(['custom-data', '--format', 'cloud-config', '--raw', fileA]), 'cloud-config');
  const mime = await anc(['custom-data', '--raw', fileA]);
  const parts = mimeParts(mime);
  assert.equal([...parts.keys()], ['text/cloud-boothook', 'text/cloud-config']);
  // Both parts carry the reference's three headers in its order.
  for (const type of ['text/cloud-boothook', 'text/cloud-config']) {
    assert.match(
      mime,
      new RegExp(
        `\\r\\n--[0-9a-f]{60}\\r\\nContent-Transfer-Encoding: 7bit\\r\\nContent-Type: ${type}\\r\\nMime-Version: 1\\.0\\r\\n\\r\\n#`,
      ),
      type,
    );
  }
  cloudInitValid(parts.get('text/cloud-config')!, 'mime-part');
  // cloud-init reads user data with Python's email parser: the whole document, both parts, their headers.
  const py =
    'import email,json,sys\nm=email.message_from_string(sys.stdin.read())\n' +
    'print(json.dumps([[p.get_content_type(),p["Content-Transfer-Encoding"],p["Mime-Version"]] for p in m.get_payload()]))';
  const parsed = spawnSync('python3', ['-c', py], { input: mime, encoding: 'utf8' });
  assert.is(parsed.status, 0, parsed.stderr);
  assert.equal(JSON.parse(parsed.stdout), [
    ['text/cloud-boothook', '7bit', '1.0'],
    ['text/cloud-config', '7bit', '1.0'],
  ]);
});

test('ignition: valid JSON, version 3.4.0, the config file with mode 0600', async () => {
  const doc = JSON.parse(await anc(['custom-data', '--format', 'ignition', '--raw', fileA]));
  assert.is(doc.ignition.version, '3.4.0');
  const files = doc.storage.files as Array<{ path: string; mode: number; contents: { source: string } }>;
  assert.equal(
    files.map((f) => [f.path, f.mode]),
    [
      ['/opt/azure/containers/aks-node-controller-config.json', 384],
      ['/opt/azure/containers/enabled_features.sh', 384],
    ],
  );
  assert.ok(files[0]!.contents.source.startsWith('data:;base64,'));
});

test('--decode on the binary returns the embedded configuration for every format, credentials redacted unless asked', async () => {
  const configs = new Set<string>();
  const revealed = new Set<string>();
  for (const format of ['mime', 'cloud-config', 'ignition']) {
    const file = sandbox.write(`/cd/${format}.b64`, await anc(['custom-data', '--format', format, fileB]));
    configs.add(await anc(['custom-data', '--decode', file]));
    revealed.add(await anc(['custom-data', '--decode', '--show-secrets', file]));
  }
  assert.is(configs.size, 1);
  assert.is(revealed.size, 1);
  const config = JSON.parse([...configs][0]!);
  assert.is(config.api_server_config.api_server_name, 'api.example');
  assert.is(config.bootstrapping_config.tls_bootstrapping_token, '<redacted>');
  assert.not.match([...configs][0]!, /0123456789abcdef/);
  assert.is(JSON.parse([...revealed][0]!).bootstrapping_config.tls_bootstrapping_token, 'abcdef.0123456789abcdef');
  const bad = sandbox.write('/cd/bad.txt', 'not custom data at all');
  const out = await runAnc(['custom-data', '--decode', bad], { root: sandbox.root });
  assert.is(out.exitCode, 1);
  assert.match(out.stderr, /not custom data/);
});

test('the rendered boothook runs: config and features written 0600, the service started; the launcher provisions', async () => {
  const root = mkdtempSync(join(tmpdir(), 'anc-boothook-'));
  try {
    const boothook = runBoothook(root, await anc(['custom-data', '--raw', fileA]));
    assert.is(boothook.exitCode, 0, boothook.stderr);
    const p = imagePaths(root);
    const rendered = sandbox.write('/cd/boothook.b64', await anc(['custom-data', fileA]));
    assert.is(readFileSync(p.config, 'utf8') + '\n', await anc(['custom-data', '--decode', '--show-secrets', rendered]));
    assert.is(statSync(p.config).mode & 0o777, 0o600);
    assert.is(readFileSync(p.features, 'utf8'), 'ENABLE_PROVISIONING_HOTFIX=true\nFEATURE_B=b\n');
    assert.is(statSync(p.features).mode & 0o777, 0o600);
    assert.equal(boothook.systemctl, ['start --no-block aks-node-controller.service']);

    // What the started unit then does.
    const rec = join(root, 'calls');
    writeFakeAgent(p.binary, rec);
    writeHostname(root);
    const out = await runLauncher(root);
    assert.is(out.exitCode, 0, out.stdout);
    assert.equal(
      recordedCalls(rec).map((c) => c.args),
      [['check-hotfix'], ['provision', `--provision-config=${p.config}`]],
    );
    assert.is(recordedCalls(rec)[1]!.env.FEATURE_B, 'b');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();

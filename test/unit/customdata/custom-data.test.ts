// custom-data (D11): deterministic rendering, MIME / cloud-config / ignition shapes, --decode round trips.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { customDataCommand } from '../../../src/commands/custom-data.ts';
import { AgentError } from '../../../src/platform/errors.ts';
import {
  boothookScript,
  CUSTOM_DATA_FORMATS,
  decodeCustomData,
  featuresFileText,
  renderCloudConfig,
  renderCustomData,
  renderCustomDataDocument,
  renderIgnition,
  renderMime,
  type CustomDataInput,
} from '../../../src/customdata/custom-data.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';

const sha256Hex = (t: string) => createHash('sha256').update(t).digest('hex');
const CONFIG_PATH = '/opt/azure/containers/aks-node-controller-config.json';

// The same configuration three ways: json names, proto names in another order, explicit zero values.
const DOC_A = JSON.stringify({
  version: 'v1',
  authConfig: { subscriptionId: 'sub-1' },
  clusterConfig: { resourceGroup: 'rg', location: 'westus2', clusterNetworkConfig: { vnetName: 'vnet' } },
  apiServerConfig: { apiServerName: 'api.example' },
  workloadRuntime: 'WORKLOAD_RUNTIME_OCI_CONTAINER',
  kubeletConfig: { kubeletFlags: { '--max-pods': '30', '--address': '0.0.0.0' } },
  enabledFeatures: { ENABLE_PROVISIONING_HOTFIX: 'true', ALPHA: 'x=y' },
});
const DOC_B = `{
  "enabled_features": {"ALPHA": "x=y", "ENABLE_PROVISIONING_HOTFIX": "true"},
  "kubelet_config": {"kubelet_flags": {"--address": "0.0.0.0", "--max-pods": "30"}},
  "workload_runtime": 1,
  "api_server_config": {"api_server_name": "api.example", "api_server_public_key": ""},
  "cluster_config": {"cluster_network_config": {"vnet_name": "vnet"}, "location": "westus2", "resource_group": "rg"},
  "auth_config": {"subscription_id": "sub-1"},
  "version": "v1"
}`;

function withDeps<T>(fn: (deps: FakeDeps) => Promise<T>): Promise<T> {
  const deps = fakeDeps();
  return fn(deps).finally(() => deps.cleanup());
}

async function render(doc: string, options: Record<string, unknown>): Promise<string> {
  return withDeps(async (deps) => {
    writeFileSync(join(deps.cwd, 'config.json'), doc);
    const result = await customDataCommand.run({ args: ['config.json'], options }, deps);
    assert.is(result.exitCode, 0);
    return result.stdout ?? '';
  });
}

const input = (configJson: string, enabledFeatures?: Record<string, string>): CustomDataInput => ({
  configJson,
  enabledFeatures,
  sha256Hex,
});

test('byte-identical output whatever the key order, spelling or explicit zero values of the input', async () => {
  for (const format of CUSTOM_DATA_FORMATS) {
    for (const raw of [false, true]) {
      const a = await render(DOC_A, { format, raw });
      const b = await render(DOC_B, { format, raw });
      assert.ok(a.length > 100);
      assert.is(a, b, `${format} raw=${raw}`);
    }
  }
  assert.is(await render(DOC_A, {}), await render(DOC_A, { format: 'mime' }), 'mime is the default');
});

test('a changed configuration changes the output (and the MIME boundary)', async () => {
  const changed = DOC_A.replace('westus2', 'eastus');
  const boundary = (doc: string) => /boundary="([0-9a-f]+)"/.exec(doc)?.[1];
  const a = await render(DOC_A, { raw: true });
  const b = await render(changed, { raw: true });
  assert.is.not(a, b);
  assert.is.not(boundary(a), boundary(b));
});

test('MIME: CRLF headers and delimiters, 60-hex content boundary, boothook then cloud-config', () => {
  const cfg = '{\n  "version": "v1"\n}';
  const doc = renderMime(input(cfg));
  const boundary = /^MIME-Version: 1\.0\r\nContent-Type: multipart\/mixed; boundary="([0-9a-f]{60})"\r\n\r\n/.exec(doc)?.[1];
  assert.ok(boundary, doc.slice(0, 200));
  assert.is(doc.split(`--${boundary}`).length - 1, 3);
  assert.ok(doc.endsWith(`\r\n--${boundary}--\r\n`));
  const parts = doc.split(new RegExp(`\\r?\\n?--${boundary}(?:--)?\\r\\n`)).slice(1, 3);
  assert.ok(
    parts[0]!.startsWith(
      'Content-Transfer-Encoding: 7bit\r\nContent-Type: text/cloud-boothook\r\nMime-Version: 1.0\r\n\r\n#cloud-boothook\n',
    ),
  );
  assert.ok(
    parts[1]!.startsWith(
      'Content-Transfer-Encoding: 7bit\r\nContent-Type: text/cloud-config\r\nMime-Version: 1.0\r\n\r\n#cloud-config\nruncmd:\n',
    ),
  );
  assert.is(
    boundary,
    sha256Hex(
      `${boothookScript(input(cfg))}\0#cloud-config\nruncmd:\n- echo "AKS Node Controller cloud-init completed at $(date)"\n`,
    ).slice(0, 60),
  );
});

test('boothook: the spec lines in order, config written 0600 from a quoted heredoc, service started', () => {
  const cfg = '{"version":"v1"}';
  const script = boothookScript(input(cfg));
  assert.not.ok(script.includes('\r'), 'a bash body must not carry CR');
  const lines = script.split('\n');
  assert.equal(lines.slice(0, 6), [
    '#cloud-boothook',
    '#!/bin/bash',
    'set -euo pipefail',
    'logger -t aks-boothook "boothook start $(date -Ins)"',
    'mkdir -p /opt/azure/containers /var/log/azure',
    'nohup /bin/bash /opt/azure/containers/provision_preload.sh >/dev/null 2>&1 &',
  ]);
  assert.is(lines[6], `(umask 0077 && base64 -d > ${CONFIG_PATH}) <<'ANC_CONFIG_EOF'`);
  assert.is(Buffer.from(lines[7]!, 'base64').toString('utf8'), cfg);
  assert.equal(lines.slice(8), [
    'ANC_CONFIG_EOF',
    `chmod 0600 ${CONFIG_PATH}`,
    'logger -t aks-boothook "launching aks-node-controller service $(date -Ins)"',
    'systemctl start --no-block aks-node-controller.service',
    '',
  ]);
});

test('enabled features: sorted KEY=VALUE lines, invalid keys and CR/LF values dropped, no file when empty', () => {
  const features = { ZED: '1', ALPHA: 'a=b c', 'bad-key': '1', '9X': '2', MULTI: 'a\nb', CR: 'a\rb', _under: '' };
  assert.is(featuresFileText(features), 'ALPHA=a=b c\nZED=1\n_under=\n');
  assert.is(featuresFileText({ 'bad-key': 'x' }), '');
  const script = boothookScript(input('{}', features));
  const at = script.indexOf(`base64 -d > /opt/azure/containers/enabled_features.sh) <<'ANC_FEATURES_EOF'\n`);
  assert.ok(at > 0);
  const b64 = script.slice(script.indexOf('\n', at) + 1).split('\n')[0]!;
  assert.is(Buffer.from(b64, 'base64').toString('utf8'), 'ALPHA=a=b c\nZED=1\n_under=\n');
  assert.ok(script.includes('chmod 0600 /opt/azure/containers/enabled_features.sh'));
  assert.not.ok(boothookScript(input('{}', { 'bad-key': 'x' })).includes('enabled_features'));
  assert.ok(renderCloudConfig(input('{}', features)).includes('- path: /opt/azure/containers/enabled_features.sh'));
  assert.is(JSON.parse(renderIgnition(input('{}', features))).storage.files.length, 2);
});

test('cloud-config: write_files 0600 root b64 at the real config path, runcmd starts the service', () => {
  const cfg = '{"version":"v1"}';
  assert.is(
    renderCloudConfig(input(cfg)),
    [
      '#cloud-config',
      'write_files:',
      `- path: ${CONFIG_PATH}`,
      '  permissions: "0600"',
      '  owner: root',
      '  encoding: b64',
      `  content: ${Buffer.from(cfg).toString('base64')}`,
      'runcmd:',
      '- systemctl start --no-block aks-node-controller.service',
      '',
    ].join('\n'),
  );
});

test('ignition: 3.4.0, one file, mode 384, data:;base64 source', () => {
  const cfg = '{"version":"v1"}';
  const doc = JSON.parse(renderIgnition(input(cfg)));
  assert.equal(doc, {
    ignition: { version: '3.4.0' },
    storage: { files: [{ path: CONFIG_PATH, mode: 384, contents: { source: `data:;base64,${Buffer.from(cfg).toString('base64')}` } }] },
  });
});

test('--decode round trip: every format, base64 (one line or wrapped) and decoded', () => {
  const cfg = '{\n  "version": "v1",\n  "auth_config": {\n    "subscription_id": "\u00e9\u4e2d"\n  }\n}';
  for (const format of CUSTOM_DATA_FORMATS) {
    const data = input(cfg, { A: '1' });
    const b64 = renderCustomData(format, data);
    const wrapped = b64.replace(/(.{76})/g, '$1\n') + '\n';
    for (const text of [b64, wrapped, renderCustomDataDocument(format, data)]) {
      assert.equal(decodeCustomData(text), { format, configJson: cfg }, format);
    }
  }
});

test('--decode reads the older write_files shapes too (!!binary block, base64 encoding)', () => {
  const cfg = '{"version":"v1"}';
  const b64 = Buffer.from(cfg).toString('base64');
  const legacy = `#cloud-config\nwrite_files:\n- path: ${CONFIG_PATH}\n  permissions: "0755"\n  owner: root\n  content: !!binary |\n    ${b64.slice(0, 8)}\n    ${b64.slice(8)}\n`;
  assert.is(decodeCustomData(legacy).configJson, cfg);
  const plain = `#cloud-config\nwrite_files:\n- path: /etc/other\n  content: nope\n- path: "${CONFIG_PATH}"\n  encoding: base64\n  content: ${b64}\n`;
  assert.is(decodeCustomData(Buffer.from(plain).toString('base64')).configJson, cfg);
});

test('--decode rejects what is not custom data, with a code', () => {
  for (const bad of [
    'hello world',
    '#cloud-config\nruncmd: []\n',
    '{"ignition":{"version":"3.4.0"}}',
    '{not json',
    'MIME-Version: 1.0\r\n\r\nnothing',
  ]) {
    try {
      decodeCustomData(bad);
      assert.unreachable(`accepted ${bad}`);
    } catch (e) {
      assert.instance(e, AgentError);
      assert.is((e as AgentError).code, 'ANC_CUSTOM_DATA', bad);
    }
  }
});

test('command: --decode prints the configuration; bad format, bad config and missing file are errors', async () => {
  await withDeps(async (deps) => {
    writeFileSync(join(deps.cwd, 'config.json'), DOC_A);
    const rendered = await customDataCommand.run({ args: ['config.json'], options: { format: 'ignition' } }, deps);
    writeFileSync(join(deps.cwd, 'cd.b64'), rendered.stdout!);
    const decoded = await customDataCommand.run({ args: [join(deps.cwd, 'cd.b64')], options: { decode: true } }, deps);
    assert.is(decoded.exitCode, 0);
    assert.is(JSON.parse(decoded.stdout!).api_server_config.api_server_name, 'api.example');
    const fail = async (args: string[], options: Record<string, unknown>, code: string) => {
      try {
        await customDataCommand.run({ args, options }, deps);
        assert.unreachable(`no error for ${args} ${JSON.stringify(options)}`);
      } catch (e) {
        assert.is((e as AgentError).code, code);
      }
    };
    await fail(['config.json'], { format: 'yaml' }, 'ANC_USAGE');
    await fail([], {}, 'ANC_USAGE');
    await fail(['missing.json'], {}, 'ANC_CONFIG_UNREADABLE');
    writeFileSync(join(deps.cwd, 'bad.json'), '{"version":"v9"}');
    await fail(['bad.json'], {}, 'ANC_CONFIG_INVALID');
  });
});

test('command: unknown fields are dropped from the embedded configuration and reported on stderr', async () => {
  await withDeps(async (deps) => {
    writeFileSync(join(deps.cwd, 'c.json'), '{"version":"v1","someFutureField":1}');
    const result = await customDataCommand.run({ args: ['c.json'], options: { raw: true, format: 'cloud-config' } }, deps);
    assert.is(result.exitCode, 0);
    assert.match(result.stderr ?? '', /warning: .*someFutureField/);
    assert.is(decodeCustomData(result.stdout!).configJson, '{\n  "version": "v1"\n}');
  });
});

test.run();

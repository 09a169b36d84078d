import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import { marshalConfiguration } from '../../../src/config/marshal.ts';
import type { Configuration } from '../../../src/config/types.ts';

const SAMPLE = join(process.cwd(), 'test/fixtures/sample-config.json');

test('proto names, declaration order, enums as names, sorted map keys, 2-space indent', () => {
  const c: Configuration = {
    vmSize: 'Standard_D2s_v3',
    version: 'v1',
    clusterConfig: { vmType: 'VM_TYPE_VMSS', location: 'westus3' },
    kubeletConfig: { kubeletFlags: { '--z': '1', '--a': '2', '--m': '3' } },
  };
  assert.is(
    marshalConfiguration(c),
    [
      '{',
      '  "version": "v1",',
      '  "cluster_config": {',
      '    "location": "westus3",',
      '    "vm_type": "VM_TYPE_VMSS"',
      '  },',
      '  "kubelet_config": {',
      '    "kubelet_flags": {',
      '      "--a": "2",',
      '      "--m": "3",',
      '      "--z": "1"',
      '    }',
      '  },',
      '  "vm_size": "Standard_D2s_v3"',
      '}',
    ].join('\n'),
  );
  assert.is(
    marshalConfiguration(c, { indent: 0 }),
    '{"version":"v1","cluster_config":{"location":"westus3","vm_type":"VM_TYPE_VMSS"},"kubelet_config":{"kubelet_flags":{"--a":"2","--m":"3","--z":"1"}},"vm_size":"Standard_D2s_v3"}',
  );
});

test('KubeletConfigFileConfig follows declaration order (41-45 between 37 and 38), explicit json names use proto names', () => {
  const text = marshalConfiguration(
    {
      kubeletConfig: {
        kubeletConfigFileConfig: {
          allowedUnsafeSysctls: ['a'],
          evictionSoft: { x: '1' },
          enforceNodeAllocatable: ['pods'],
          serverTLSBootstrap: true,
        },
      },
    },
    { indent: 0 },
  );
  assert.is(
    text,
    '{"kubelet_config":{"kubelet_config_file_config":{"server_tls_bootstrap":true,"enforce_node_allocatable":["pods"],"eviction_soft":{"x":"1"},"allowed_unsafe_sysctls":["a"]}}}',
  );
});

test('unset omitted; explicit false/0/"" and empty messages kept; undefined enum numbers stay numbers', () => {
  const c: Configuration = { isVhd: false, cseTimeout: 0, vmSize: '', gpuConfig: {}, networkConfig: { networkPlugin: 99 } };
  assert.is(
    marshalConfiguration(c, { indent: 0 }),
    '{"gpu_config":{},"network_config":{"network_plugin":99},"vm_size":"","is_vhd":false,"cse_timeout":0}',
  );
  assert.equal(loadConfiguration(marshalConfiguration(c)).config, c);
});

test('omitImplicitZero drops zero implicit-presence scalars but keeps optional ones', () => {
  const c: Configuration = {
    version: 'v1',
    isVhd: false,
    vmSize: '',
    enableUnattendedUpgrade: false,
    workloadRuntime: 'WORKLOAD_RUNTIME_UNSPECIFIED',
    cseTimeout: 0,
  };
  assert.is(marshalConfiguration(c, { indent: 0, omitImplicitZero: true }), '{"version":"v1","is_vhd":false,"cse_timeout":0}');
});

test('doubles: NaN / Infinity as protojson strings, -0 kept; all round-trip', () => {
  const c: Configuration = {
    clusterConfig: {
      cloudProviderConfig: { backoffExponent: NaN, backoffJitter: -0, rateLimitQps: Infinity, rateLimitQpsWrite: -Infinity },
    },
  };
  const text = marshalConfiguration(c, { indent: 0 });
  assert.is(
    text,
    '{"cluster_config":{"cloud_provider_config":{"backoff_exponent":"NaN","backoff_jitter":-0,"rate_limit_qps":"Infinity","rate_limit_qps_write":"-Infinity"}}}',
  );
  const back = loadConfiguration(text).config.clusterConfig?.cloudProviderConfig;
  assert.ok(Number.isNaN(back?.backoffExponent));
  assert.ok(Object.is(back?.backoffJitter, -0));
  assert.is(back?.rateLimitQps, Infinity);
});

test('strings are escaped so that they round-trip (quotes, control characters, unicode)', () => {
  const c: Configuration = { messageOfTheDay: 'a"b\\c\n\u0001\u2028😀', customCaCerts: ['x\r\ny'] };
  assert.equal(loadConfiguration(marshalConfiguration(c)).config, c);
});

test('the shared sample config round-trips and is key-order independent', () => {
  const text = readFileSync(SAMPLE, 'utf8');
  const first = loadConfiguration(text);
  assert.equal(first.issues, []);
  const out = marshalConfiguration(first.config);
  assert.equal(loadConfiguration(out).config, first.config);
  const reversed = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(text)).reverse()));
  assert.is(marshalConfiguration(loadConfiguration(reversed).config), out);
  assert.is(marshalConfiguration(loadConfiguration(out).config), out);
});

test.run();

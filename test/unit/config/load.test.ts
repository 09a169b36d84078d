import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration, versionProblem } from '../../../src/config/load.ts';
import type { ConfigIssue } from '../../../src/config/load.ts';

const load = (doc: unknown) => loadConfiguration(typeof doc === 'string' ? doc : JSON.stringify(doc));
const v1 = (extra: Record<string, unknown>) => load({ version: 'v1', ...extra });
const paths = (issues: ConfigIssue[]) => issues.map((i) => i.path);
const only = (issues: ConfigIssue[], kind: ConfigIssue['kind']) => issues.filter((i) => i.kind === kind);

test('json name and proto name are both accepted, mixable, at every depth', () => {
  const a = load({ version: 'v1', vm_size: 'x', clusterConfig: { resource_group: 'rg', cluster_network_config: { vnetName: 'v' } } });
  assert.equal(a.config, { version: 'v1', vmSize: 'x', clusterConfig: { resourceGroup: 'rg', clusterNetworkConfig: { vnetName: 'v' } } });
  assert.equal(a.issues, []);
  const b = load({ version: 'v1', cluster_config: { clusterNetworkConfig: { vnet_name: 'v' } }, vmSize: 'x' });
  assert.equal(b.config.clusterConfig?.clusterNetworkConfig?.vnetName, 'v');
  assert.is(b.config.vmSize, 'x');
});

test('matching is exact and case-sensitive', () => {
  const r = v1({ VmSize: 'a', VMSize: 'b' });
  assert.is(r.config.vmSize, undefined);
  assert.equal(paths(only(r.issues, 'unknown-field')), ['$.VmSize', '$.VMSize']);
});

test('the 9 explicit json names are accepted, with their proto names; the automatic names are unknown', () => {
  const f = {
    serverTLSBootstrap: true,
    eventRecordQPS: 5,
    clusterDNS: ['10.0.0.10'],
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    cgroupsPerQOS: true,
    cpuCFSQuota: false,
    cpuCFSQuotaPeriod: '100ms',
    authentication: { x509: { clientCAFile: '/ca' } },
  };
  const r = v1({ kubeletConfig: { kubeletConfigFileConfig: f } });
  assert.equal(r.config.kubeletConfig?.kubeletConfigFileConfig, f);
  assert.equal(r.issues, []);
  const proto = v1({
    kubeletConfig: {
      kubeletConfigFileConfig: { server_tls_bootstrap: true, cluster_dns: ['a'], authentication: { x509: { client_ca_file: '/c' } } },
    },
  });
  assert.equal(proto.config.kubeletConfig?.kubeletConfigFileConfig, {
    serverTLSBootstrap: true,
    clusterDNS: ['a'],
    authentication: { x509: { clientCAFile: '/c' } },
  });
  const auto = v1({
    kubeletConfig: {
      kubeletConfigFileConfig: { serverTlsBootstrap: true, clusterDns: ['a'], authentication: { x509: { clientCaFile: '/c' } } },
    },
  });
  assert.equal(auto.config.kubeletConfig?.kubeletConfigFileConfig, { authentication: { x509: {} } });
  assert.equal(paths(only(auto.issues, 'unknown-field')), [
    '$.kubeletConfig.kubeletConfigFileConfig.serverTlsBootstrap',
    '$.kubeletConfig.kubeletConfigFileConfig.clusterDns',
    '$.kubeletConfig.kubeletConfigFileConfig.authentication.x509.clientCaFile',
  ]);
});

test('enums: by name, by number (known -> name, unknown -> number kept), unknown name dropped with a warning', () => {
  const r = v1({ clusterConfig: { vmType: 'VM_TYPE_VMSS' }, networkConfig: { networkPlugin: 2, networkPolicy: 99 }, workloadRuntime: 2.0 });
  assert.is(r.config.clusterConfig?.vmType, 'VM_TYPE_VMSS');
  assert.is(r.config.networkConfig?.networkPlugin, 'NETWORK_PLUGIN_AZURE');
  assert.is(r.config.networkConfig?.networkPolicy, 99);
  assert.is(r.config.workloadRuntime, 2);
  assert.equal(r.issues, []);
  const bogus = v1({ clusterConfig: { vmType: 'VM_TYPE_BOGUS', location: 'x' }, networkConfig: { networkPlugin: '2' } });
  assert.equal(bogus.config.clusterConfig, { location: 'x' });
  assert.equal(bogus.config.networkConfig, {});
  assert.equal(
    bogus.issues.map((i) => [i.path, i.severity, i.kind]),
    [
      ['$.clusterConfig.vmType', 'warning', 'bad-value'],
      ['$.networkConfig.networkPlugin', 'warning', 'bad-value'],
    ],
  );
});

test('enums: booleans, fractions and numbers outside int32 are bad values', () => {
  const r = v1({ clusterConfig: { vmType: true }, networkConfig: { networkPlugin: 1.5, networkPolicy: 4294967296 } });
  assert.equal(paths(only(r.issues, 'bad-value')), [
    '$.clusterConfig.vmType',
    '$.networkConfig.networkPlugin',
    '$.networkConfig.networkPolicy',
  ]);
  assert.ok(r.issues.every((i) => i.severity === 'error'));
});

test('int32: numbers and numeric strings, exponent/fraction when integral', () => {
  const cases: Array<[string, number]> = [
    ['"1200"', 1200],
    ['1.2e3', 1200],
    ['"1e3"', 1000],
    ['1.0', 1],
    ['"-0"', 0],
    ['1E2', 100],
    ['0.1e1', 1],
    ['-5', -5],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ];
  for (const [raw, want] of cases) {
    const r = load(`{"version":"v1","cseTimeout":${raw}}`);
    assert.equal(r.issues, [], raw);
    assert.ok(Object.is(r.config.cseTimeout, want), `${raw} -> ${r.config.cseTimeout}`);
  }
});

test('int32: non-integral, out of range, spaces, plus sign, hex, booleans are bad values', () => {
  for (const raw of ['1.5', '2147483648', '-2147483649', '" 12"', '"+5"', '"0x10"', 'true', '"1.5"', '1e400', '"12 "', '""', '[]']) {
    const r = load(`{"version":"v1","cseTimeout":${raw},"vmSize":"kept"}`);
    assert.is(r.config.cseTimeout, undefined, raw);
    assert.is(r.config.vmSize, 'kept', raw);
    assert.equal(
      r.issues.map((i) => [i.path, i.kind, i.severity]),
      [['$.cseTimeout', 'bad-value', 'error']],
      raw,
    );
    assert.match(r.issues[0]?.expected ?? '', 'integer');
  }
});

test('double: numbers, numeric strings, NaN/Infinity strings, -0 keeps its sign', () => {
  const cpc = (v: string) => load(`{"version":"v1","clusterConfig":{"cloudProviderConfig":{"backoffExponent":${v}}}}`);
  const get = (v: string) => cpc(v).config.clusterConfig?.cloudProviderConfig?.backoffExponent;
  assert.is(get('1.5'), 1.5);
  assert.is(get('"1.5e1"'), 15);
  assert.ok(Number.isNaN(get('"NaN"')));
  assert.is(get('"Infinity"'), Infinity);
  assert.is(get('"-Infinity"'), -Infinity);
  assert.ok(Object.is(get('-0'), -0));
  assert.ok(Object.is(get('-0.0'), -0));
  for (const bad of ['1e400', '"1e400"', '"nan"', '"+Infinity"', '" 1.5"', '"0x1p3"', 'false']) {
    const r = cpc(bad);
    assert.is(r.config.clusterConfig?.cloudProviderConfig?.backoffExponent, undefined, bad);
    assert.equal(paths(r.issues), ['$.clusterConfig.cloudProviderConfig.backoffExponent'], bad);
  }
});

test('strings and bools are strict about JSON types; lone surrogate escapes are bad values', () => {
  const r = load(
    '{"version":"v1","vmSize":5,"isVhd":"true","enableSsh":1,"linuxAdminUsername":"\\ud800x","messageOfTheDay":"\\ud83d\\ude00"}',
  );
  assert.equal(paths(r.issues), ['$.vmSize', '$.isVhd', '$.enableSsh', '$.linuxAdminUsername']);
  assert.is(r.config.messageOfTheDay, '\u{1F600}');
});

test('null means unset for every kind of field', () => {
  const r = v1({
    vmSize: null,
    isVhd: null,
    cseTimeout: null,
    clusterConfig: null,
    customCaCerts: null,
    enabledFeatures: null,
    workloadRuntime: null,
  });
  assert.equal(r.config, { version: 'v1' });
  assert.equal(r.issues, []);
});

test('null inside an array or as a map value is a bad value for that element / entry only', () => {
  const r = v1({ customCaCerts: ['a', null, 'b'], kubeletConfig: { kubeletFlags: { x: null, y: '1' } } });
  assert.equal(r.config.customCaCerts, ['a', 'b']);
  assert.equal(r.config.kubeletConfig, { kubeletFlags: { y: '1' } });
  assert.equal(paths(r.issues), ['$.customCaCerts[1]', '$.kubeletConfig.kubeletFlags.x']);
});

test('presence: explicit false / 0 / "" are stored', () => {
  const r = v1({
    isVhd: false,
    enableSsh: false,
    cseTimeout: 0,
    vmSize: '',
    enableUnattendedUpgrade: false,
    clusterConfig: { loadBalancerConfig: { excludeMasterFromStandardLoadBalancer: false } },
  });
  assert.equal(r.config, {
    version: 'v1',
    isVhd: false,
    enableSsh: false,
    cseTimeout: 0,
    vmSize: '',
    enableUnattendedUpgrade: false,
    clusterConfig: { loadBalancerConfig: { excludeMasterFromStandardLoadBalancer: false } },
  });
  assert.ok('isVhd' in r.config);
  assert.equal(v1({ kubeletConfig: {} }).config.kubeletConfig, {});
});

test('empty arrays and maps are the same as absent', () => {
  const r = v1({ customCaCerts: [], httpProxyConfig: { noProxyEntries: [] }, enabledFeatures: {} });
  assert.equal(r.config, { version: 'v1', httpProxyConfig: {} });
});

test('duplicate field (same or other spelling, even null first): error, first value kept', () => {
  const a = load('{"version":"v1","vm_size":"a","vmSize":"b"}');
  assert.is(a.config.vmSize, 'a');
  assert.equal(
    a.issues.map((i) => [i.path, i.kind, i.severity]),
    [['$.vmSize', 'duplicate-field', 'error']],
  );
  const b = load('{"version":"v1","vmSize":null,"vm_size":"a"}');
  assert.is(b.config.vmSize, undefined);
  assert.equal(paths(only(b.issues, 'duplicate-field')), ['$.vm_size']);
  const c = load('{"version":"v1","vmSize":"a","vmSize":"b"}');
  assert.is(c.config.vmSize, 'a');
  assert.equal(paths(c.issues), ['$.vmSize']);
  const m = load('{"version":"v1","kubeletConfig":{"kubeletFlags":{"a":"1","a":"2","b":"3"}}}');
  assert.equal(m.config.kubeletConfig?.kubeletFlags, { a: '1', b: '3' });
  assert.equal(
    m.issues.map((i) => [i.path, i.kind]),
    [['$.kubeletConfig.kubeletFlags.a', 'duplicate-field']],
  );
});

test('a non-object where a message is expected is a bad value; siblings are kept', () => {
  const r = v1({ clusterConfig: 'x', kubeletConfig: [], gpuConfig: 3, vmSize: 'kept' });
  assert.equal(r.config, { version: 'v1', vmSize: 'kept' });
  assert.equal(paths(r.issues), ['$.clusterConfig', '$.kubeletConfig', '$.gpuConfig']);
});

test('maps: non-object, wrong value types, message values; featureGates is map<string,bool>', () => {
  const r = v1({
    kubeletConfig: {
      kubeletFlags: { b: '1', c: 2 },
      kubeletNodeLabels: 'x',
      kubeletConfigFileConfig: { featureGates: { A: true, B: 'true' } },
    },
    localDnsProfile: { vnetDnsOverrides: { '.': { queryLogging: 'Log', cacheDurationInSeconds: '60' }, bad: 'x' } },
  });
  assert.equal(r.config.kubeletConfig, { kubeletFlags: { b: '1' }, kubeletConfigFileConfig: { featureGates: { A: true } } });
  assert.equal(r.config.localDnsProfile?.vnetDnsOverrides, { '.': { queryLogging: 'Log', cacheDurationInSeconds: 60 } });
  assert.equal(paths(r.issues), [
    '$.kubeletConfig.kubeletFlags.c',
    '$.kubeletConfig.kubeletNodeLabels',
    '$.kubeletConfig.kubeletConfigFileConfig.featureGates.B',
    '$.localDnsProfile.vnetDnsOverrides.bad',
  ]);
});

test('three independent bad fields give three issues with three distinct paths; everything else kept', () => {
  const r = v1({
    vmSize: 'ok',
    isVhd: 'yes',
    clusterConfig: { location: 'westus', vmType: true },
    kubeletConfig: { kubeletFlags: { a: 1, b: 'B' } },
    kubernetesVersion: '1.30.0',
  });
  const errors = r.issues.filter((i) => i.severity === 'error');
  assert.is(errors.length, 3);
  assert.equal(new Set(paths(errors)).size, 3);
  assert.equal(r.config, {
    version: 'v1',
    vmSize: 'ok',
    clusterConfig: { location: 'westus' },
    kubeletConfig: { kubeletFlags: { b: 'B' } },
    kubernetesVersion: '1.30.0',
  });
  for (const e of errors) {
    assert.ok(e.expected && e.found, JSON.stringify(e));
    assert.ok(e.message.includes(e.expected as string));
  }
});

test('unknown keys at any depth are warnings, never errors (top-level hotfixes included)', () => {
  const r = v1({ hotfixes: [{ a: 1 }], teleport_config: {}, clusterConfig: { extra: { deep: [1, 2] }, location: 'x' } });
  assert.equal(r.config, { version: 'v1', clusterConfig: { location: 'x' } });
  assert.equal(
    r.issues.map((i) => [i.path, i.kind, i.severity]),
    [
      ['$.hotfixes', 'unknown-field', 'warning'],
      ['$.teleport_config', 'unknown-field', 'warning'],
      ['$.clusterConfig.extra', 'unknown-field', 'warning'],
    ],
  );
  assert.equal(paths(v1({ 'odd key': 1 }).issues), ['$["odd key"]']);
});

test('secret fields: a bad value is described by type, never echoed', () => {
  const r = v1({
    authConfig: { servicePrincipalSecret: 123456789 },
    bootstrappingConfig: { tlsBootstrappingToken: ['abcdef.0123456789abcdef'] },
    httpProxyConfig: { httpProxy: 42 },
  });
  assert.is(r.issues.length, 3);
  for (const i of r.issues) {
    assert.not.match(i.message, '123456789');
    assert.not.match(i.message, 'abcdef.0123');
    assert.not.match(JSON.stringify(i), '42 ');
    assert.match(i.found ?? '', 'not shown');
  }
});

test('long raw values are clipped in messages', () => {
  const long = 'x'.repeat(500);
  const r = v1({ vmSize: 1, isVhd: long, [`k${long}`]: 1 });
  for (const i of r.issues) assert.ok(!i.message.includes(long), i.message.slice(0, 80));
  assert.ok(r.issues.every((i) => i.message.length < 400));
});

test('syntax errors: one error issue with a position; what was completely read is kept', () => {
  const r = loadConfiguration('{"version": "v1", "vmSize": "a", "clusterConfig": {"location": "x", "vmType": tru');
  assert.equal(r.config, { version: 'v1', vmSize: 'a', clusterConfig: { location: 'x' } });
  const syntax = only(r.issues, 'syntax');
  assert.is(syntax.length, 1);
  assert.match(syntax[0]?.message ?? '', /line 1, column \d+/);
});

test('text after a complete top-level object: the config is complete, one warning names the byte offset', () => {
  const trailing = loadConfiguration('{"version":"v1"} {}');
  assert.equal(trailing.config, { version: 'v1' });
  assert.equal(
    trailing.issues.map((i) => [i.kind, i.severity, i.message]),
    [['syntax', 'warning', 'extra text after the configuration object at byte offset 17 (line 1, column 18) is ignored']],
  );
  // The offset counts UTF-8 bytes, as a reader of the file sees them.
  const wide = loadConfiguration('{"version":"v1","vmSize":"\u00e9\u{1F600}"}\n  x');
  assert.equal(wide.config, { version: 'v1', vmSize: '\u00e9\u{1F600}' });
  assert.match(wide.issues[0]!.message, 'byte offset 37 (line 2, column 3)');
  // Still errors: a truncated object, and extra text after a top level that is not an object.
  assert.equal(
    loadConfiguration('{"version":"v1"').issues.map((i) => [i.kind, i.severity]),
    [['syntax', 'error']],
  );
  assert.ok(loadConfiguration('[] x').issues.some((i) => i.kind === 'syntax' && i.severity === 'error'));
});

test('empty input, non-object top level, garbage: config {} and errors; BOM is skipped with a warning', () => {
  for (const text of ['', '   ', '[]', '"v1"', 'null', '{', '}', '{"version":"v1",}', "{'version':'v1'}"]) {
    const r = loadConfiguration(text);
    assert.equal(r.config, text.startsWith('{"version"') ? { version: 'v1' } : {}, text);
    assert.ok(
      r.issues.some((i) => i.severity === 'error'),
      text,
    );
  }
  const bom = loadConfiguration('\uFEFF{"version":"v1"}');
  assert.equal(bom.config, { version: 'v1' });
  assert.equal(
    bom.issues.map((i) => [i.kind, i.severity]),
    [['syntax', 'warning']],
  );
});

test('version gate: exactly v0 or v1', () => {
  for (const v of ['V1', ' v1', '', 'v2']) {
    assert.is(versionProblem({ version: v }), `unsupported version: ${v}`);
    assert.equal(
      only(load({ version: v }).issues, 'version').map((i) => i.severity),
      ['error'],
    );
  }
  assert.is(versionProblem({}), 'unsupported version: ');
  assert.is(versionProblem({ version: 'v1' }), undefined);
  assert.is(versionProblem({ version: 'v0' }), undefined);
  assert.equal(
    load({ version: 'v0' }).issues.map((i) => [i.kind, i.severity]),
    [['version', 'warning']],
  );
  assert.equal(
    load({ vmSize: 'x' }).issues.map((i) => [i.path, i.kind]),
    [['$.version', 'version']],
  );
});

test.run();

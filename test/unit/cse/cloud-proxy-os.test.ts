// Cloud environment, proxy / CA trust, Linux OS config and sysctl (config-contract 3.2.10-3.2.12, 3.3.1-3.3.6).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resourceManagerEndpoint } from '../../../src/cse/env/cloud.ts';
import { portRangeEnd } from '../../../src/cse/templates/sysctl.ts';
import { decode, envOf, golden } from './support.ts';

test('cloud by location (checklist 8)', () => {
  const at = (location: string) => envOf({ clusterConfig: { location } });
  const china = at('chinaeast2');
  assert.equal(
    [china.TARGET_ENVIRONMENT, china.TARGET_CLOUD, china.ARM_RESOURCE_ENDPOINT],
    ['AzureChinaCloud', 'AzureChinaCloud', 'https://management.chinacloudapi.cn/'],
  );
  assert.is(at('China East 2').TARGET_ENVIRONMENT, 'AzureChinaCloud');
  assert.is(at('usgovvirginia').ARM_RESOURCE_ENDPOINT, 'https://management.usgovcloudapi.net/');
  assert.is(at('USDoD Central').TARGET_CLOUD, 'AzureUSGovernmentCloud');
  const german = at('germanycentral');
  assert.equal([german.TARGET_ENVIRONMENT, german.ARM_RESOURCE_ENDPOINT], ['AzureGermanCloud', 'https://management.azure.com/']);
  assert.is(at('germanywestcentral').TARGET_ENVIRONMENT, 'AzurePublicCloud');
  assert.is(envOf({ customCloudConfig: { customCloudEnvName: 'AzureChinaCloud' } }).TARGET_ENVIRONMENT, 'AzurePublicCloud');
});

test('cloud by location splits with Go strings.Fields and lowercases with Go strings.ToLower', () => {
  const at = (location: string) => envOf({ clusterConfig: { location } }).TARGET_ENVIRONMENT;
  assert.is(at('\u0085china\u3000east'), 'AzureChinaCloud', 'U+0085 and U+3000 are Go whitespace');
  assert.is(at('\uFEFFchinaeast'), 'AzurePublicCloud', 'U+FEFF is not Go whitespace: the prefix is not china');
  assert.is(at('CH\u0130NA east'), 'AzureChinaCloud', 'Go lowers U+0130 to a plain i');
});

test('custom cloud (checklist 9)', () => {
  const e = envOf({
    customCloudConfig: {
      customCloudEnvName: 'AKSCustom',
      repoDepotEndpoint: 'https://repo',
      containerRegistryDnsSuffix: 'cr.x',
      customEnvJsonContent: '{"resourceManagerEndpoint":"https://x/"}',
    },
  });
  assert.equal(
    [e.TARGET_ENVIRONMENT, e.TARGET_CLOUD, e.IS_CUSTOM_CLOUD, e.AZURE_ENVIRONMENT_FILEPATH],
    ['akscustom', 'AzureStackCloud', 'true', '/etc/kubernetes/akscustom.json'],
  );
  assert.equal(
    [e.ARM_RESOURCE_ENDPOINT, e.REPO_DEPOT_ENDPOINT, e.AKS_CUSTOM_CLOUD_CONTAINER_REGISTRY_DNS_SUFFIX],
    ['https://x/', 'https://repo', 'cr.x'],
  );
  assert.is(e.CUSTOM_ENV_JSON, '{"resourceManagerEndpoint":"https://x/"}');
  const bad = envOf({ customCloudConfig: { customCloudEnvName: 'akscustom', customEnvJsonContent: '{not-json' } });
  assert.is(bad.ARM_RESOURCE_ENDPOINT, '');
  const notCustom = envOf({ customCloudConfig: { repoDepotEndpoint: 'https://repo' } });
  assert.equal([notCustom.REPO_DEPOT_ENDPOINT, notCustom.AZURE_ENVIRONMENT_FILEPATH, notCustom.IS_CUSTOM_CLOUD], ['', '', 'false']);
  assert.is(envOf({ customCloudConfig: { customCloudEnvName: 'a\u212ascu\u017ftom' } }).IS_CUSTOM_CLOUD, 'true');
});

test('resourceManagerEndpoint decodes like Go encoding/json', () => {
  assert.is(resourceManagerEndpoint('{"RESOURCEMANAGERENDPOINT":"a","resourceManagerEndpoint":"b"}'), 'b');
  assert.is(resourceManagerEndpoint('null'), '');
  assert.is(resourceManagerEndpoint('[1]'), '');
  assert.is(resourceManagerEndpoint('{"resourceManagerEndpoint":1}'), '');
  assert.is(resourceManagerEndpoint('{"other":1}'), '');
  assert.is(resourceManagerEndpoint('eyJ4IjoxfQ=='), '');
  assert.is(resourceManagerEndpoint(''), '');
});

test('resourceManagerEndpoint: the issue 24 table of Go encoding/json behaviour', () => {
  const deep = (n: number) => `{"x":${'['.repeat(n)}${']'.repeat(n)},"resourceManagerEndpoint":"d"}`;
  const table: Array<[string, string, string]> = [
    ['a later null leaves the earlier value', '{"resourceManagerEndpoint":"a","resourceManagerEndpoint":null}', 'a'],
    ['a later case variant replaces it', '{"resourceManagerEndpoint":"a","RESOURCEMANAGERENDPOINT":"b"}', 'b'],
    ['a type error fails the call even if a later duplicate is valid', '{"resourceManagerEndpoint":1,"resourceManagerEndpoint":"b"}', ''],
    ['a type error after a valid value fails it too', '{"resourceManagerEndpoint":"a","resourcemanagerendpoint":true}', ''],
    ['unknown keys of any type are skipped', '{"other":{"resourceManagerEndpoint":1},"resourceManagerEndpoint":"a"}', 'a'],
    ['nesting of 10,000 (the document object included) is fine', deep(9_999), 'd'],
    ['nesting deeper than 10,000 fails the call', deep(10_000), ''],
    ['a syntax error anywhere fails the call', '{"resourceManagerEndpoint":"a"} x', ''],
  ];
  for (const [name, content, want] of table) assert.is(resourceManagerEndpoint(content), want, name);
});

test('custom_env_json_content is a JSON document read later: a lone surrogate escape in it becomes U+FFFD', () => {
  assert.is(resourceManagerEndpoint('{"resourceManagerEndpoint":"https://x/\\ud800"}'), 'https://x/\uFFFD');
  assert.is(resourceManagerEndpoint('{"resourceManagerEndpoint":"https://x/\\ud83d\\ude00"}'), 'https://x/\u{1F600}');
  const e = envOf({
    customCloudConfig: { customCloudEnvName: 'akscustom', customEnvJsonContent: '{"resourceManagerEndpoint":"a\\udc00b"}' },
  });
  assert.is(e.ARM_RESOURCE_ENDPOINT, 'a\uFFFDb');
});

test('PROXY_VARS exact outputs (3.3.5, checklist 11)', () => {
  const p = (httpProxyConfig: object) => envOf({ httpProxyConfig }).PROXY_VARS;
  assert.is(
    p({ httpProxy: 'http://p:80', httpsProxy: 'https://q:443', noProxyEntries: ['a', 'b'] }),
    'export NO_PROXY="a,b"; export HTTPS_PROXY="https://q:443"; export http_proxy="http://p:80";',
  );
  assert.is(p({ httpsProxy: 'https://q:443' }), 'export HTTPS_PROXY="https://q:443"; ');
  assert.is(p({ httpProxy: 'http://p:80' }), 'export http_proxy="http://p:80";');
  assert.is(p({ noProxyEntries: [''] }), 'export NO_PROXY=""; ');
  assert.is(p({ noProxyEntries: [] }), '');
  const e = envOf({
    httpProxyConfig: { httpProxy: 'http://p:80', noProxyEntries: ['a', 'b'], proxyTrustedCa: '-----BEGIN\r\nX\n-----END\n' },
  });
  assert.equal(
    [e.SHOULD_CONFIGURE_HTTP_PROXY, e.SHOULD_CONFIGURE_HTTP_PROXY_CA, e.HTTP_PROXY_TRUSTED_CA],
    ['true', 'true', '-----BEGINX-----END'],
  );
  assert.equal([e.HTTP_PROXY_URLS, e.HTTPS_PROXY_URLS, e.NO_PROXY_URLS], ['http://p:80', '', 'a,b']);
});

test('custom CA certs (checklist 10)', () => {
  const e = envOf({ customCaCerts: ['x\r\ny', 'z', ''] });
  assert.equal([e.SHOULD_CONFIGURE_CUSTOM_CA_TRUST, e.CUSTOM_CA_TRUST_COUNT], ['true', '3']);
  assert.equal([e.CUSTOM_CA_CERT_0, e.CUSTOM_CA_CERT_1, e.CUSTOM_CA_CERT_2], ['xy', 'z', '']);
});

test('ulimits, swap, transparent huge pages (3.3.4, checklist 15)', () => {
  const u = (ulimitConfig: object) => envOf({ customLinuxOsConfig: { ulimitConfig } });
  assert.equal([u({}).SHOULD_CONFIG_CONTAINERD_ULIMITS, u({}).CONTAINERD_ULIMITS], ['true', '[Service] ']);
  assert.is(
    u({ noFile: '1048576', maxLockedMemory: 'unlimited' }).CONTAINERD_ULIMITS,
    '[Service] LimitMEMLOCK=unlimited LimitNOFILE=1048576 ',
  );
  assert.is(u({ noFile: '9999' }).CONTAINERD_ULIMITS, '[Service] LimitNOFILE=9999 ');
  assert.equal([envOf({}).SHOULD_CONFIG_CONTAINERD_ULIMITS, envOf({}).CONTAINERD_ULIMITS], ['false', '']);
  const os = envOf({ customLinuxOsConfig: { enableSwapConfig: true, swapFileSize: 512, transparentDefrag: 'madvise' } });
  assert.equal(
    [os.SHOULD_CONFIG_SWAP_FILE, os.SWAP_FILE_SIZE_MB, os.SHOULD_CONFIG_TRANSPARENT_HUGE_PAGE, os.THP_ENABLED, os.THP_DEFRAG],
    ['true', '512', 'true', '', 'madvise'],
  );
  assert.is(envOf({ customLinuxOsConfig: { enableSwapConfig: true } }).SHOULD_CONFIG_SWAP_FILE, 'false');
  assert.is(envOf({ customLinuxOsConfig: { swapFileSize: 5 } }).SHOULD_CONFIG_SWAP_FILE, 'false');
});

const ALL_SYSCTL = {
  netCoreSomaxconn: 1,
  netCoreNetdevMaxBacklog: 2,
  netCoreRmemDefault: 3,
  netCoreRmemMax: 4,
  netCoreWmemDefault: 5,
  netCoreWmemMax: 6,
  netCoreOptmemMax: 7,
  netIpv4TcpMaxSynBacklog: 8,
  netIpv4TcpMaxTwBuckets: 9,
  netIpv4TcpFinTimeout: 10,
  netIpv4TcpKeepaliveTime: 11,
  netIpv4TcpKeepaliveProbes: 12,
  netIpv4TcpkeepaliveIntvl: 13,
  netIpv4TcpTwReuse: false,
  netIpv4IpLocalPortRange: '32768 65400',
  netIpv4NeighDefaultGcThresh1: 0,
  netIpv4NeighDefaultGcThresh2: 17,
  netIpv4NeighDefaultGcThresh3: 18,
  netNetfilterNfConntrackMax: 19,
  netNetfilterNfConntrackBuckets: 20,
  fsInotifyMaxUserWatches: 21,
  fsFileMax: 22,
  fsAioMaxNr: 23,
  fsNrOpen: 24,
  kernelThreadsMax: 25,
  vmMaxMapCount: 26,
  vmSwappiness: 27,
  vmVfsCachePressure: 28,
};

test('sysctl with every field set: order, tcp_tw_reuse=0, explicit 0 kept (checklist 14)', () => {
  const text = decode(envOf({ customLinuxOsConfig: { sysctlConfig: ALL_SYSCTL } }).SYSCTL_CONTENT!);
  const keys = text
    .trimEnd()
    .split('\n')
    .map((l) => l.split('=')[0]);
  assert.equal(keys, [
    'fs.aio-max-nr',
    'fs.file-max',
    'fs.inotify.max_user_watches',
    'fs.nr_open',
    'kernel.threads-max',
    'net.core.message_burst',
    'net.core.message_cost',
    'net.core.netdev_max_backlog',
    'net.core.optmem_max',
    'net.core.rmem_default',
    'net.core.rmem_max',
    'net.core.somaxconn',
    'net.core.wmem_default',
    'net.core.wmem_max',
    'net.ipv4.ip_local_port_range',
    'net.ipv4.ip_local_reserved_ports',
    'net.ipv4.neigh.default.gc_thresh1',
    'net.ipv4.neigh.default.gc_thresh2',
    'net.ipv4.neigh.default.gc_thresh3',
    'net.ipv4.tcp_fin_timeout',
    'net.ipv4.tcp_keepalive_intvl',
    'net.ipv4.tcp_keepalive_probes',
    'net.ipv4.tcp_keepalive_time',
    'net.ipv4.tcp_max_syn_backlog',
    'net.ipv4.tcp_max_tw_buckets',
    'net.ipv4.tcp_retries2',
    'net.ipv4.tcp_tw_reuse',
    'net.netfilter.nf_conntrack_buckets',
    'net.netfilter.nf_conntrack_max',
    'vm.max_map_count',
    'vm.swappiness',
    'vm.vfs_cache_pressure',
  ]);
  assert.ok(text.includes('net.ipv4.tcp_tw_reuse=0\n'));
  assert.ok(text.includes('net.ipv4.neigh.default.gc_thresh1=0\n'));
  assert.ok(text.includes('net.ipv4.ip_local_port_range=32768 65400\n'));
  golden('sysctl-all-fields.conf', text);
});

test('ip_local_reserved_ports rule (3.3.3)', () => {
  const cases: Array<[string, boolean]> = [
    ['32768 65400', true],
    ['32768 65330', false],
    ['32768  65535', false],
    ['+1 65535', true],
    ['0 65535', false],
    ['1 99999', true],
    ['65535 1000', false],
    ['a 65535', false],
    ['1 2 3', false],
    // Go Atoi: int64 range; beyond it the value is invalid, however large.
    ['1 9223372036854775807', true],
    ['1 9223372036854775808', false],
    ['1 99999999999999999999', false],
    ['-9223372036854775809 65535', false],
    ['1 \u00a065535', false],
    ['1 65_535', false],
  ];
  for (const [range, reserved] of cases) {
    const text = decode(envOf({ customLinuxOsConfig: { sysctlConfig: { netIpv4IpLocalPortRange: range } } }).SYSCTL_CONTENT!);
    assert.is(text.includes('net.ipv4.ip_local_reserved_ports=65330\n'), reserved, range);
  }
  assert.is(portRangeEnd('1 99999'), 99999n);
  assert.is(portRangeEnd('1 18446744073709551616'), undefined);
  const empty = decode(envOf({ customLinuxOsConfig: { sysctlConfig: { netIpv4IpLocalPortRange: '' } } }).SYSCTL_CONTENT!);
  assert.not.ok(empty.includes('ip_local_port_range'));
});

test.run();

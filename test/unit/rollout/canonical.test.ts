// The canonical form: key order, spelling, unknown fields and explicit defaults never change the bytes;
// real differences do; and the canonical form provisions exactly the node the original does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalConfiguration, canonicalJson, DEFAULTS } from '../../../src/config/canonical.ts';
import { loadConfiguration } from '../../../src/config/load.ts';
import { configHashes } from '../../../src/config/rollout.ts';
import { MESSAGES } from '../../../src/config/types.ts';
import type { Configuration } from '../../../src/config/types.ts';
import { resolveNodePaths } from '../../../src/platform/paths.ts';
import { reveal } from '../../../src/platform/secret.ts';
import { buildCseEnv } from '../../../src/cse/env/index.ts';
import { mulberry32, randomConfiguration, shuffledText } from './gen.ts';

const load = (text: string): Configuration => loadConfiguration(text).config;
const PATHS = resolveNodePaths('');
function env(config: Configuration): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(buildCseEnv(config, { containerdVersion: undefined, components: {} }, PATHS))) out[k] = reveal(v);
  return out;
}

test('key order, spelling and unknown fields do not change the canonical bytes', () => {
  const a = load('{"version":"v1","kubernetesVersion":"1.30.0","kubeletConfig":{"kubeletFlags":{"--b":"1","--a":"2"}},"vmSize":"x"}');
  const b = load(
    '{"vm_size":"x","kubelet_config":{"kubelet_flags":{"--a":"2","--b":"1"}},"extra":{"y":[1]},"kubernetes_version":"1.30.0","version":"v1"}',
  );
  assert.is(canonicalJson(a), canonicalJson(b));
  assert.is(
    canonicalJson(a),
    '{"version":"v1","kubelet_config":{"kubelet_flags":{"--a":"2","--b":"1"}},"kubernetes_version":"1.30.0","vm_size":"x"}',
  );
});

// [what, JSON fragment equivalent to absence] -- each mirrors a default of config-contract section 3.
const EQUIVALENT_TO_ABSENT: Array<[string, string]> = [
  ['isVhd true (IS_VHD default)', '"isVhd":true'],
  ['enableSsh true (DISABLE_SSH=false)', '"enableSsh":true'],
  ['needsCgroupv2 false', '"needsCgroupv2":false'],
  ['disablePubkeyAuth false', '"disablePubkeyAuth":false'],
  ['cseTimeout 900', '"cseTimeout":900'],
  ['cseTimeout 0 (out of range -> 900)', '"cseTimeout":0'],
  ['cseTimeout -5', '"cseTimeout":-5'],
  ['cseTimeout 21601', '"cseTimeout":21601'],
  ['linuxAdminUsername azureuser', '"linuxAdminUsername":"azureuser"'],
  ['implicit zeros', '"vmSize":"","isKata":false,"workloadRuntime":"WORKLOAD_RUNTIME_UNSPECIFIED","customCaCerts":[]'],
  [
    'load balancer defaults',
    '"clusterConfig":{"loadBalancerConfig":{"excludeMasterFromStandardLoadBalancer":true,"maxLoadBalancerRuleCount":148}}',
  ],
  [
    'cloud provider defaults',
    '"clusterConfig":{"cloudProviderConfig":{"backoff":true,"backoffMode":"v2","backoffRetries":6,"backoffExponent":0,' +
      '"backoffDuration":5,"backoffJitter":0,"rateLimit":true,"rateLimitQps":10,"rateLimitQpsWrite":10,"rateLimitBucket":100,"rateLimitBucketWrite":100}}',
  ],
  [
    'sysctl defaults',
    '"customLinuxOsConfig":{"sysctlConfig":{"netCoreSomaxconn":16384,"netIpv4TcpMaxSynBacklog":16384,' +
      '"netIpv4NeighDefaultGcThresh1":4096,"netIpv4NeighDefaultGcThresh2":8192,"netIpv4NeighDefaultGcThresh3":16384,"netIpv4IpLocalPortRange":""}}',
  ],
  ['empty bootstrap token', '"bootstrappingConfig":{"tlsBootstrappingToken":""}'],
  ['gpu getters', '"gpuConfig":{"enableNvidia":false,"enableAmdGpu":false}'],
  ['localdns defaults', '"localDnsProfile":{"cpuLimitInMilliCores":2000,"memoryLimitInMb":128,"hostsPluginRefreshIntervalInSeconds":0}'],
  ['core DNS IP default', '"clusterConfig":{"clusterNetworkConfig":{"coreDnsServiceIp":"10.0.0.10"}}'],
  ['empty presence-free messages', '"gpuConfig":{},"clusterConfig":{"cloudProviderConfig":{}},"kubeBinaryConfig":{}'],
];

test('explicit defaults canonicalise exactly like absence (and the env builder agrees)', () => {
  const base = load('{"version":"v1"}');
  for (const [what, fragment] of EQUIVALENT_TO_ABSENT) {
    const c = load(`{"version":"v1",${fragment}}`);
    assert.is(canonicalJson(c), canonicalJson(base), what);
    assert.equal(configHashes(c), configHashes(base), what);
    assert.equal(env(c), env(base), `${what}: env`);
  }
});

// Presence or values that DO change the node: must change the canonical bytes.
const DIFFERENT_FROM_ABSENT: Array<[string, string]> = [
  ['isVhd false', '"isVhd":false'],
  ['enableSsh false', '"enableSsh":false'],
  ['cseTimeout 1200', '"cseTimeout":1200'],
  ['backoffExponent -0 prints -0', '"clusterConfig":{"cloudProviderConfig":{"backoffExponent":-0}}'],
  ['rule count 0 stays 0', '"clusterConfig":{"loadBalancerConfig":{"maxLoadBalancerRuleCount":0}}'],
  ['presence-only sysctl with 0', '"customLinuxOsConfig":{"sysctlConfig":{"netCoreRmemMax":0}}'],
  ['kubeletConfig present but empty', '"kubeletConfig":{}'],
  ['ulimitConfig present but empty', '"customLinuxOsConfig":{"ulimitConfig":{}}'],
  ['noProxyEntries [""]', '"httpProxyConfig":{"noProxyEntries":[""]}'],
];

test('values and presence that change the node change the canonical bytes (and the env)', () => {
  const base = load('{"version":"v1"}');
  for (const [what, fragment] of DIFFERENT_FROM_ABSENT) {
    const c = load(`{"version":"v1",${fragment}}`);
    assert.is.not(canonicalJson(c), canonicalJson(base), what);
    assert.is.not(configHashes(c).payloadHash, configHashes(base).payloadHash, what);
    assert.not.equal(env(c), env(base), `${what}: env`);
  }
});

test('an empty kubelet auth block is kept (it renders as {} in the kubelet JSON)', () => {
  const c = load('{"version":"v1","kubeletConfig":{"kubeletConfigFileConfig":{"authentication":{"anonymous":{}}}}}');
  assert.is(canonicalJson(c), '{"version":"v1","kubelet_config":{"kubelet_config_file_config":{"authentication":{"anonymous":{}}}}}');
});

test('enum numbers with a name canonicalise to the name; undefined numbers stay numbers; doubles keep NaN/-0', () => {
  const a = load('{"version":"v1","networkConfig":{"networkPlugin":2,"networkPolicy":99}}');
  const b = load('{"version":"v1","networkConfig":{"networkPlugin":"NETWORK_PLUGIN_AZURE","networkPolicy":99}}');
  assert.is(canonicalJson(a), canonicalJson(b));
  assert.ok(canonicalJson(a).includes('"network_policy":99'));
  const d = load('{"version":"v1","clusterConfig":{"cloudProviderConfig":{"rateLimitQps":"NaN","backoffJitter":-0}}}');
  assert.is(canonicalJson(d), '{"version":"v1","cluster_config":{"cloud_provider_config":{"backoff_jitter":-0,"rate_limit_qps":"NaN"}}}');
});

test('map keys are sorted by code point, not UTF-16 unit', () => {
  const c = load('{"version":"v1","kubeletConfig":{"kubeletNodeLabels":{"\uFF21":"1","\uD83D\uDE00":"2","b":"3"}}}');
  const labels = Object.keys(JSON.parse(canonicalJson(c)).kubelet_config.kubelet_node_labels);
  assert.equal(labels, ['b', '\uFF21', '\uD83D\uDE00']);
});

test('every DEFAULTS rule names a catalogue scalar field', () => {
  const scalars = new Set(
    Object.values(MESSAGES).flatMap((m) => m.fields.filter((f) => !f.message && !f.map && !f.repeated).map((f) => `${m.name}.${f.proto}`)),
  );
  assert.ok(Object.keys(DEFAULTS).length >= 40);
  for (const key of Object.keys(DEFAULTS)) assert.ok(scalars.has(key), key);
});

test('property: shuffled key order and mixed spelling never change either hash (1000 seeded configs)', () => {
  const rng = mulberry32(0x5eed);
  for (let i = 0; i < 1000; i++) {
    const c = randomConfiguration(rng);
    const text = shuffledText(rng, c);
    assert.equal(configHashes(load(text)), configHashes(c), `seed iteration ${i}: ${text}`);
  }
});

test('property: canonical form is idempotent, survives a load round trip and provisions the same env (600 configs)', () => {
  const rng = mulberry32(0xc0ffee);
  for (let i = 0; i < 600; i++) {
    const c = randomConfiguration(rng);
    const canon = canonicalConfiguration(c);
    const bytes = canonicalJson(c);
    assert.is(canonicalJson(canon), bytes, `idempotent ${i}`);
    assert.is(canonicalJson(load(bytes)), bytes, `round trip ${i}`);
    assert.equal(env(canon), env(c), `env ${i}: ${bytes}`);
  }
});

test.run();

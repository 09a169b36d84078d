// Kubelet flags / labels / config file (3.3.9) and LocalDNS (3.3.11), against the spec's worked examples.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderKubeletConfigFile } from '../../../src/cse/templates/kubelet-config.ts';
import { GOLDEN_DIR, cfg, decode, env, envOf, golden } from './support.ts';

const read = (name: string) => readFileSync(join(GOLDEN_DIR, name), 'utf8');

test('kubelet worked example (k8s 1.34.0): flags, JSON file, streaming timeout removed', () => {
  const e = env(cfg(read('kubelet-worked-example.input.json')));
  assert.is(e.KUBELET_FLAGS, '--eviction-hard=memory.available<750Mi --max-pods=110');
  assert.is(e.ENABLE_KUBELET_SERVING_CERTIFICATE_ROTATION, 'false');
  assert.is(e.KUBELET_CONFIG_FILE_ENABLED, 'true');
  assert.fixture(decode(e.KUBELET_CONFIG_FILE_CONTENT!), read('kubelet-worked-example.json'));
});

test('below 1.34.0 (and for a prerelease) the streaming flag and field are kept (checklist 13)', () => {
  for (const version of ['1.33.0', '1.34.0-rc.1', 'garbage']) {
    const e = envOf({
      kubernetesVersion: version,
      kubeletConfig: {
        kubeletFlags: { '--streaming-connection-idle-timeout': '4h', '--a': 'b' },
        kubeletConfigFileConfig: { streamingConnectionIdleTimeout: '4h' },
      },
    });
    assert.is(e.KUBELET_FLAGS, '--a=b --streaming-connection-idle-timeout=4h', version);
    assert.is(decode(e.KUBELET_CONFIG_FILE_CONTENT!), '{\n    "streamingConnectionIdleTimeout": "4h"\n}', version);
  }
});

test('KUBELET_CONFIG_FILE_CONTENT: absent -> "", {} -> e30= (checklist 12)', () => {
  assert.is(envOf({}).KUBELET_CONFIG_FILE_CONTENT, '');
  assert.is(envOf({ kubeletConfig: {} }).KUBELET_CONFIG_FILE_CONTENT, 'e30=');
  assert.is(envOf({ kubeletConfig: { kubeletConfigFileConfig: {} } }).KUBELET_CONFIG_FILE_CONTENT, 'e30=');
});

test('labels, disk type, client key / cert, serving-cert rotation', () => {
  const e = envOf({
    kubeletConfig: {
      kubeletNodeLabels: { z: '1', 'a.b/c': 'x=y' },
      kubeletDiskType: 'KUBELET_DISK_TEMP_DISK',
      kubeletClientKey: 'a2V5',
      kubeletClientCertContent: 'Y2VydA==',
      kubeletConfigFileConfig: { serverTLSBootstrap: true },
    },
  });
  assert.is(e.KUBELET_NODE_LABELS, 'a.b/c=x=y,z=1');
  assert.equal([e.HAS_KUBELET_DISK_TYPE, e.KUBELET_CLIENT_CONTENT, e.KUBELET_CLIENT_CERT_CONTENT], ['true', 'a2V5', 'Y2VydA==']);
  assert.is(e.ENABLE_KUBELET_SERVING_CERTIFICATE_ROTATION, 'true');
  assert.is(envOf({ kubeletConfig: { kubeletDiskType: 'KUBELET_DISK_OS_DISK' } }).HAS_KUBELET_DISK_TYPE, 'false');
});

test('kubelet JSON: every field, declaration order, Go HTML-safe escaping', () => {
  const file = {
    kind: 'K',
    apiVersion: 'v',
    staticPodPath: '/p',
    address: '0.0.0.0',
    readOnlyPort: 10255,
    tlsCertFile: 'c',
    tlsPrivateKeyFile: 'k',
    tlsCipherSuites: ['A', 'B'],
    rotateCertificates: true,
    serverTLSBootstrap: true,
    authentication: { x509: {}, webhook: { enabled: true, cacheTtl: '2m' }, anonymous: { enabled: false } },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTtl: '5m', cacheUnauthorizedTtl: '30s' } },
    eventRecordQPS: 5,
    clusterDomain: 'cluster.local',
    clusterDNS: ['10.0.0.10'],
    streamingConnectionIdleTimeout: '4h',
    nodeStatusUpdateFrequency: '10s',
    nodeStatusReportFrequency: '5m',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    cgroupsPerQOS: true,
    cpuManagerPolicy: 'static',
    topologyManagerPolicy: 'best-effort',
    maxPods: 110,
    podPidsLimit: -1,
    resolvConf: '/etc/resolv.conf',
    cpuCFSQuota: false,
    cpuCFSQuotaPeriod: '100ms',
    evictionHard: { 'memory.available': '<100Mi' },
    protectKernelDefaults: true,
    featureGates: { B: true, A: false },
    failSwapOn: false,
    containerLogMaxSize: '50M',
    containerLogMaxFiles: 0,
    systemReserved: { cpu: '1' },
    kubeReserved: { memory: '1Gi' },
    enforceNodeAllocatable: ['pods'],
    evictionSoft: { x: 'y' },
    evictionSoftGracePeriod: { x: '1m' },
    evictionMaxPodGracePeriod: 0,
    kubeReservedCgroup: '/kube',
    systemReservedCgroup: '/sys',
    allowedUnsafeSysctls: ['net.*'],
    serializeImagePulls: true,
    seccompDefault: true,
    enableServer: false,
    volumePluginDir: '/etc/kubernetes/volumeplugins',
    cgroupDriver: 'systemd',
    runtimeRequestTimeout: '0s',
    containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
    registerWithTaints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2026-01-02T03:04:05Z' }, {}],
    hairpinMode: 'hairpin-veth',
  };
  const c = cfg({ version: 'v1', kubeletConfig: { kubeletConfigFileConfig: file } });
  const text = renderKubeletConfigFile(c.kubeletConfig!.kubeletConfigFileConfig, false);
  assert.equal(
    Object.keys(JSON.parse(text)).filter((k) => k !== 'evictionMaxPodGracePeriod'),
    Object.keys(file).filter((k) => k !== 'evictionMaxPodGracePeriod'),
  );
  golden('kubelet-all-fields.json', text);
  const escaped = renderKubeletConfigFile({ kind: 'a<b>&c"\\\u2028\u2029\u0001\u007f/é\t' }, false);
  assert.is(escaped, '{\n    "kind": "a\\u003cb\\u003e\\u0026c\\"\\\\\\u2028\\u2029\\u0001\u007f/é\\t"\n}');
});

test('LocalDNS worked example (checklist 17)', () => {
  const e = env(cfg(read('localdns-worked-example.input.json')));
  assert.equal(
    [e.SHOULD_ENABLE_LOCALDNS, e.SHOULD_ENABLE_HOSTS_PLUGIN, e.LOCALDNS_CPU_LIMIT, e.LOCALDNS_MEMORY_LIMIT],
    ['true', 'true', '200.8%', '256M'],
  );
  assert.is(e.LOCALDNS_CRITICAL_FQDNS, 'mcr.microsoft.com,x.y');
  assert.is(e.LOCALDNS_HOSTS_PLUGIN_REFRESH_INTERVAL_IN_SECONDS, '');
  const withHosts = read('localdns-worked-example.with-hosts.corefile');
  assert.fixture(decode(e.LOCALDNS_COREFILE_WITH_HOSTS!), withHosts);
  const hostsBlock = /    # Check \/etc\/localdns\/hosts[^\n]*\n    hosts \/etc\/localdns\/hosts \{\n(?:        [^\n]*\n){3}    \}\n/g;
  assert.fixture(decode(e.LOCALDNS_COREFILE_BASE!), withHosts.replace(hostsBlock, ''));
  assert.is(e.LOCALDNS_GENERATED_COREFILE, e.LOCALDNS_COREFILE_BASE);
  golden('localdns-worked-example.base.corefile', decode(e.LOCALDNS_COREFILE_BASE!));
});

test('LocalDNS enabled without overrides (checklist 18) and disabled profile', () => {
  const e = envOf({ localDnsProfile: { enableLocalDns: true } });
  const text = decode(e.LOCALDNS_COREFILE_BASE!);
  assert.is(text.split('\n').length, 11);
  assert.ok(text.endsWith('(referred to as KubeDNS traffic).\n'));
  assert.is(e.SHOULD_ENABLE_HOSTS_PLUGIN, 'false');
  assert.is(e.LOCALDNS_COREFILE_WITH_HOSTS, e.LOCALDNS_COREFILE_BASE);
  const off = envOf({
    localDnsProfile: {
      enableLocalDns: false,
      cpuLimitInMilliCores: 5,
      memoryLimitInMb: 9,
      criticalFqdns: [' a '],
      hostsPluginRefreshIntervalInSeconds: 30,
      enableHostsPlugin: true,
    },
  });
  assert.equal([off.LOCALDNS_COREFILE_BASE, off.LOCALDNS_COREFILE_WITH_HOSTS, off.LOCALDNS_GENERATED_COREFILE], ['', '', '']);
  assert.equal([off.LOCALDNS_CPU_LIMIT, off.LOCALDNS_MEMORY_LIMIT, off.SHOULD_ENABLE_HOSTS_PLUGIN], ['200.0%', '128M', 'false']);
  assert.equal([off.LOCALDNS_CRITICAL_FQDNS, off.LOCALDNS_HOSTS_PLUGIN_REFRESH_INTERVAL_IN_SECONDS], ['a', '30']);
  const cpu = (n: number) => envOf({ localDnsProfile: { enableLocalDns: true, cpuLimitInMilliCores: n } }).LOCALDNS_CPU_LIMIT;
  assert.equal([cpu(1), cpu(-100), cpu(-5), cpu(2000)], ['0.1%', '-10.0%', '-0.5%', '200.0%']);
});

test('LocalDNS forward targets: KubeDNS root follows the suffix/destination rule, <nil> for unset ints', () => {
  const e = envOf({
    localDnsProfile: {
      enableLocalDns: true,
      vnetDnsOverrides: { 'notcluster.local': { healthCheck: { duration: '' } }, '.': { forwardDestination: 'ClusterCoreDNS' } },
      kubeDnsOverrides: { '.': {}, 'svc.cluster.local': { serveStale: 'Verify', healthCheck: { duration: '1s', noRec: false } } },
    },
  });
  golden('localdns-targets.corefile', decode(e.LOCALDNS_COREFILE_BASE!));
  const text = decode(e.LOCALDNS_COREFILE_BASE!);
  assert.ok(text.includes('notcluster.local:53 {\n    bind 169.254.10.10\n    forward . 10.0.0.10 {'));
  assert.ok(text.includes('        serve_stale <nil>s verify\n'));
  assert.ok(text.includes('        health_check 1s\n'));
});

test.run();

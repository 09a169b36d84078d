// The reference's PR #9576 kubelet-config-file fields (config-contract 1.2.14), on the compiled binary:
// the four cases of its TestKubeletConfigFileFieldsRoundTrip (JSON-equal, and our bytes in Go's
// json.Indent layout), the legacy output and the flag-only path unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

async function envOf(config: unknown): Promise<Record<string, string>> {
  const box = makeSandbox('anc-9576-');
  box.write('/opt/azure/components.json', '{"GPUContainerImages":[]}');
  const file = box.write('/opt/azure/containers/aks-node-controller-config.json', JSON.stringify(config));
  const run = await runAnc(['provision', `--provision-config=${file}`, '--dry-run'], { root: box.root });
  box.cleanup();
  assert.is(run.exitCode, 0, run.stderr);
  return (JSON.parse(run.stdout) as { env: Record<string, string> }).env;
}

const fileContent = async (fileConfig: unknown): Promise<string> => {
  const env = await envOf({ version: 'v1', kubeletConfig: { kubeletConfigFileConfig: fileConfig } });
  return Buffer.from(env.KUBELET_CONFIG_FILE_CONTENT!, 'base64').toString('utf8');
};

// [name, input (protojson), expected (JSON-equal, as the reference's test states it), our exact bytes]
const CASES: ReadonlyArray<readonly [string, unknown, string, string]> = [
  ['omitted fields', {}, '{}', '{}'],
  [
    'explicit false and zero duration',
    { enableServer: false, runtimeRequestTimeout: '0s' },
    '{"enableServer": false, "runtimeRequestTimeout": "0s"}',
    '{\n    "enableServer": false,\n    "runtimeRequestTimeout": "0s"\n}',
  ],
  [
    'linux fields and taints',
    {
      enableServer: true,
      volumePluginDir: '/etc/kubernetes/volumeplugins',
      cgroupDriver: 'systemd',
      runtimeRequestTimeout: '2m',
      containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
      registerWithTaints: [
        { key: 'workload', value: 'batch', effect: 'NoSchedule' },
        { key: 'workload', value: 'batch', effect: 'PreferNoSchedule' },
        { key: 'maintenance', effect: 'NoExecute', timeAdded: '2026-01-02T03:04:05Z' },
      ],
      hairpinMode: 'promiscuous-bridge',
    },
    `{
      "enableServer": true,
      "volumePluginDir": "/etc/kubernetes/volumeplugins",
      "cgroupDriver": "systemd",
      "runtimeRequestTimeout": "2m",
      "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock",
      "registerWithTaints": [
        {"key": "workload", "value": "batch", "effect": "NoSchedule"},
        {"key": "workload", "value": "batch", "effect": "PreferNoSchedule"},
        {"key": "maintenance", "effect": "NoExecute", "timeAdded": "2026-01-02T03:04:05Z"}
      ],
      "hairpinMode": "promiscuous-bridge"
    }`,
    [
      '{',
      '    "enableServer": true,',
      '    "volumePluginDir": "/etc/kubernetes/volumeplugins",',
      '    "cgroupDriver": "systemd",',
      '    "runtimeRequestTimeout": "2m",',
      '    "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock",',
      '    "registerWithTaints": [',
      '        {',
      '            "key": "workload",',
      '            "value": "batch",',
      '            "effect": "NoSchedule"',
      '        },',
      '        {',
      '            "key": "workload",',
      '            "value": "batch",',
      '            "effect": "PreferNoSchedule"',
      '        },',
      '        {',
      '            "key": "maintenance",',
      '            "effect": "NoExecute",',
      '            "timeAdded": "2026-01-02T03:04:05Z"',
      '        }',
      '    ],',
      '    "hairpinMode": "promiscuous-bridge"',
      '}',
    ].join('\n'),
  ],
  [
    'windows paths',
    { volumePluginDir: 'C:\\k\\volumeplugins', containerRuntimeEndpoint: 'npipe:////./pipe/containerd-containerd' },
    '{\n"volumePluginDir": "C:\\\\k\\\\volumeplugins",\n"containerRuntimeEndpoint": "npipe:////./pipe/containerd-containerd"\n}',
    '{\n    "volumePluginDir": "C:\\\\k\\\\volumeplugins",\n    "containerRuntimeEndpoint": "npipe:////./pipe/containerd-containerd"\n}',
  ],
];

for (const [name, input, want, bytes] of CASES) {
  test(`#9576 round trip: ${name}`, async () => {
    const content = await fileContent(input);
    assert.equal(JSON.parse(content), JSON.parse(want));
    assert.is(content, bytes);
  });
}

test('#9576: the legacy output keeps its bytes (4-space indent, eventRecordQPS 0, cpuCFSQuota false)', async () => {
  const legacy = {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    address: '0.0.0.0',
    eventRecordQPS: 0,
    cpuCFSQuota: false,
  };
  assert.is(
    await fileContent(legacy),
    '{\n    "kind": "KubeletConfiguration",\n    "apiVersion": "kubelet.config.k8s.io/v1beta1",\n    "address": "0.0.0.0",\n    "eventRecordQPS": 0,\n    "cpuCFSQuota": false\n}',
  );
  assert.is((await envOf({ version: 'v1' })).KUBELET_CONFIG_FILE_CONTENT, '');
  assert.is((await envOf({ version: 'v1', kubeletConfig: {} })).KUBELET_CONFIG_FILE_CONTENT, 'e30=');
});

test('#9576: the flag-only path is unchanged (KUBELET_FLAGS sorted, the config file off)', async () => {
  for (const version of ['1.33.0', '1.34.0', '1.38.0-alpha.1']) {
    const env = await envOf({
      version: 'v1',
      kubernetesVersion: version,
      kubeletConfig: {
        kubeletFlags: {
          '--enable-server': 'false',
          '--volume-plugin-dir': '/etc/kubernetes/volumeplugins',
          '--cgroup-driver': 'systemd',
          '--runtime-request-timeout': '2m',
          '--container-runtime-endpoint': 'unix:///run/containerd/containerd.sock',
          '--register-with-taints': 'workload=batch:NoSchedule',
          '--hairpin-mode': 'promiscuous-bridge',
        },
      },
    });
    assert.is(env.KUBELET_CONFIG_FILE_ENABLED, 'false', version);
    assert.is(
      env.KUBELET_FLAGS,
      '--cgroup-driver=systemd --container-runtime-endpoint=unix:///run/containerd/containerd.sock --enable-server=false --hairpin-mode=promiscuous-bridge --register-with-taints=workload=batch:NoSchedule --runtime-request-timeout=2m --volume-plugin-dir=/etc/kubernetes/volumeplugins',
      version,
    );
  }
});

test.run();

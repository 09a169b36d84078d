// `provision --dry-run` on the compiled binary (D9): the command and CSE env printed as JSON, secrets
// redacted unless --show-secrets, machine facts from a fake `containerd` on PATH and a components.json
// under the sandbox root, and the sandbox rule: stripping the root gives the unsandboxed build.
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import { resolveNodePaths } from '../../../src/platform/paths.ts';
import { buildProvisionCommand, dryRunView } from '../../../src/cse/command.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const SECRETS = ['abcdef.CANARYTOKEN0123', 'CANARY-SP-SECRET', 'CANARYCLIENTKEY', 'CANARY-REALM-PW'];
const CONFIG = {
  version: 'v1',
  kubernetesVersion: '1.30.1',
  vmSize: 'Standard_NV36ads_A10_v5',
  gpuConfig: { enableNvidia: true },
  customCloudConfig: { customCloudEnvName: 'akscustom' },
  bootstrappingConfig: { tlsBootstrappingToken: SECRETS[0] },
  authConfig: { servicePrincipalSecret: SECRETS[1] },
  kubeletConfig: { kubeletClientKey: SECRETS[2] },
  customSearchDomainConfig: { domainName: 'corp', realmUser: 'u', realmPassword: SECRETS[3] },
  customCaCerts: ['ca-zero'],
};
const COMPONENTS = {
  GPUContainerImages: [
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-grid:*', gpuVersion: { latestVersion: '570.211.01-20260522192315' } },
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-cuda-lts:*', gpuVersion: { latestVersion: '580.159.04-20260629214430' } },
  ],
};

interface DryRun {
  command: string[];
  env: Record<string, string>;
}

function setup(containerdOutput: string | undefined): { box: Sandbox; file: string; path: string } {
  const box = makeSandbox('anc-dryrun-');
  box.write('/opt/azure/components.json', JSON.stringify(COMPONENTS));
  const file = box.write('/opt/azure/containers/aks-node-controller-config.json', JSON.stringify(CONFIG));
  // The fake containerd lives in the sandbox too (not an on-node path; only reached through PATH).
  const binDir = join(box.root, 'fake-bin');
  mkdirSync(binDir, { recursive: true });
  if (containerdOutput !== undefined) {
    writeFileSync(join(binDir, 'containerd'), `#!/bin/sh\necho "${containerdOutput}"\n`);
    chmodSync(join(binDir, 'containerd'), 0o755);
  }
  return { box, file, path: `${binDir}:/usr/bin:/bin` };
}

async function dryRun(
  showSecrets: boolean,
  containerdOutput?: string,
  configText?: string,
): Promise<{ out: DryRun; box: Sandbox; all: string }> {
  const { box, file, path } = setup(containerdOutput);
  if (configText !== undefined) writeFileSync(file, configText);
  const args = ['provision', `--provision-config=${file}`, '--dry-run', ...(showSecrets ? ['--show-secrets'] : [])];
  // A dry run is read-only (no log file): its log lines reach stderr on request.
  const run = await runAnc(args, { root: box.root, env: { PATH: path, ANC_LOG_STDERR: '1' } });
  assert.is(run.exitCode, 0, run.stderr);
  let log = '';
  try {
    log = box.read('/var/log/azure/aks-node-controller.log');
  } catch {
    log = '';
  }
  const events = JSON.stringify(box.events());
  return { out: JSON.parse(run.stdout) as DryRun, box, all: [run.stderr, log, events].join('\n') };
}

test('dry-run prints the command and the full env, secrets redacted, no secret anywhere (D9, D14)', async () => {
  const { out, box, all } = await dryRun(false, 'containerd containerd.io 1.7.22 c814c75');
  assert.equal(out.command.slice(0, 2), ['/bin/bash', '-c']);
  assert.ok(out.command[2]!.includes(`${box.root}/opt/azure/containers/provision_start.sh`));
  assert.is(Object.keys(out.env).length, 165);
  for (const key of ['TLS_BOOTSTRAP_TOKEN', 'SERVICE_PRINCIPAL_FILE_CONTENT', 'KUBELET_CLIENT_CONTENT', 'CUSTOM_SEARCH_REALM_PASSWORD']) {
    assert.is(out.env[key], '<redacted>', key);
  }
  const everything = JSON.stringify(out) + all;
  for (const canary of SECRETS) assert.not.ok(everything.includes(canary), `leaked ${canary}`);
  assert.equal([out.env.GPU_DRIVER_TYPE, out.env.GPU_DRIVER_VERSION, out.env.GPU_IMAGE_SHA], ['grid', '570.211.01', '20260522192315']);
  assert.ok(Buffer.from(out.env.CONTAINERD_CONFIG_CONTENT!, 'base64').toString().includes('io.containerd.grpc.v1.cri'));
  assert.is(out.env.PROVISION_OUTPUT, `${box.root}/var/log/azure/cluster-provision-cse-output.log`);
  assert.not.ok(existsSync(box.path('/var/log/azure/aks/provision.json')), 'dry-run wrote provision.json');
  assert.not.ok(existsSync(box.path('/opt/azure/containers/provision.complete')), 'dry-run wrote provision.complete');
  box.cleanup();
});

test('--show-secrets reveals them; containerd 2.x on PATH selects the v2 templates', async () => {
  const { out, box } = await dryRun(true, 'containerd github.com/containerd/containerd/v2 2.3.2-1 fff');
  assert.equal(
    [
      out.env.TLS_BOOTSTRAP_TOKEN,
      out.env.SERVICE_PRINCIPAL_FILE_CONTENT,
      out.env.KUBELET_CLIENT_CONTENT,
      out.env.CUSTOM_SEARCH_REALM_PASSWORD,
    ],
    SECRETS,
  );
  const toml = Buffer.from(out.env.CONTAINERD_CONFIG_CONTENT!, 'base64').toString();
  assert.ok(toml.includes('[plugins."io.containerd.cri.v1.images"]'));
  assert.ok(toml.includes('default_runtime_name = "nvidia-container-runtime"'));
  box.cleanup();
});

test('off a node (no components.json): the dry run still prints the command, with a warning; --components FILE gives the GPU table; a real provision still fails', async () => {
  const { box, file, path } = setup(undefined);
  rmSync(box.path('/opt/azure/components.json'));
  const bare = await runAnc(['provision', '--dry-run', `--provision-config=${file}`], { root: box.root, env: { PATH: path } });
  assert.is(bare.exitCode, 0, bare.stderr);
  assert.is(
    bare.stderr,
    `warning: ${box.root}/opt/azure/components.json not found: the GPU driver variables are empty in this dry run (a real provision fails without it); pass --components FILE for the image's table\n`,
  );
  const bareEnv = (JSON.parse(bare.stdout) as DryRun).env;
  assert.equal([bareEnv.GPU_DRIVER_TYPE, bareEnv.GPU_DRIVER_VERSION], ['grid', '']);
  const table = box.write('/laptop/components.json', JSON.stringify(COMPONENTS));
  const withTable = await runAnc(['provision', '--dry-run', '--components', table, `--provision-config=${file}`], {
    root: box.root,
    env: { PATH: path },
  });
  assert.is(withTable.exitCode, 0, withTable.stderr);
  assert.is(withTable.stderr, '');
  const env = (JSON.parse(withTable.stdout) as DryRun).env;
  assert.equal([env.GPU_DRIVER_VERSION, env.GPU_IMAGE_SHA], ['570.211.01', '20260522192315']);
  // A bad table is the same clear error a node gives, naming that file.
  const broken = box.write('/laptop/broken.json', '{"GPUContainerImages": [');
  const bad = await runAnc(['provision', '--dry-run', '--components', broken, `--provision-config=${file}`], {
    root: box.root,
    env: { PATH: path },
  });
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, `failed to load GPU config: parse ${broken}: failed to unmarshal components.json`);
  // The reference's behaviour for a real run: no components.json, no provisioning; --components is refused.
  const real = await runAnc(['provision', `--provision-config=${file}`], { root: box.root, env: { PATH: path, ANC_LOG_STDERR: '0' } });
  assert.is(real.exitCode, 1);
  assert.match(real.stderr, /failed to load GPU config: read .*components\.json: open .*: no such file or directory/);
  const refused = await runAnc(['provision', '--components', table, `--provision-config=${file}`], {
    root: box.root,
    env: { PATH: path, ANC_LOG_STDERR: '0' },
  });
  assert.is(refused.exitCode, 1);
  assert.match(refused.stderr, /--components is for --dry-run only/);
  box.cleanup();
});

test('stripping the sandbox root equals the unsandboxed in-process build', async () => {
  const { out, box } = await dryRun(true);
  const strip = (s: string) => s.split(box.root).join('');
  const config = loadConfiguration(JSON.stringify(CONFIG)).config;
  const expected = dryRunView(
    buildProvisionCommand(config, { containerdVersion: undefined, components: COMPONENTS }, resolveNodePaths('')),
    { showSecrets: true },
  );
  assert.equal(out.command.map(strip), expected.command);
  assert.equal(Object.fromEntries(Object.entries(out.env).map(([k, v]) => [k, strip(v)])), expected.env);
  assert.ok(Object.values(out.env).some((v) => v.startsWith(box.root)));
  box.cleanup();
});

test('text after the complete config object: provisions with the whole object, one WARN names the byte offset', async () => {
  const text = JSON.stringify({ ...CONFIG, vmSize: 'Standard_D2s_v3\u00e9' });
  const plain = await dryRun(true, undefined, text);
  const trailing = await dryRun(true, undefined, `${text}\n{"version":"v9"} trailing garbage`);
  assert.equal(trailing.out, JSON.parse(JSON.stringify(plain.out).split(plain.box.root).join(trailing.box.root)));
  const offset = Buffer.byteLength(text) + 1;
  const warn = trailing.all.split('\n').find((l) => l.includes(`byte offset ${offset}`)) ?? '';
  assert.match(warn, /"level":"WARN"/);
  assert.match(warn, `extra text after the configuration object at byte offset ${offset} (line 2, column 1) is ignored`);
  plain.box.cleanup();
  trailing.box.cleanup();
});

test('Go number and text edges on the binary: uint64 versions, int64 Atoi, strings.Fields, lone surrogates', async () => {
  const config = {
    ...CONFIG,
    kubernetesVersion: '1.99999999999999999999.0',
    customLinuxOsConfig: { sysctlConfig: { netIpv4IpLocalPortRange: '1 99999999999999999999' } },
    customCloudConfig: { customCloudEnvName: 'akscustom', customEnvJsonContent: '{"resourceManagerEndpoint":"https://arm/\\ud800"}' },
  };
  // U+FEFF is not Go whitespace: the version field is "\uFEFF2.3.2-1", no version, so the v1 templates.
  const { out, box } = await dryRun(true, 'containerd github.com/containerd/containerd/v2 \uFEFF2.3.2-1 fff', JSON.stringify(config));
  const toml = Buffer.from(out.env.CONTAINERD_CONFIG_CONTENT!, 'base64').toString();
  assert.ok(toml.includes('[plugins."io.containerd.grpc.v1.cri"]'), 'v1 templates');
  assert.not.ok(toml.includes('config_path'), 'the kubernetesVersion >= 1.22 gate is false for a part beyond uint64');
  const sysctl = Buffer.from(out.env.SYSCTL_CONTENT!, 'base64').toString();
  assert.ok(sysctl.includes('net.ipv4.ip_local_port_range=1 99999999999999999999\n'));
  assert.not.ok(sysctl.includes('ip_local_reserved_ports'), 'an end beyond int64 is no end');
  assert.is(out.env.ARM_RESOURCE_ENDPOINT, 'https://arm/\uFFFD');
  box.cleanup();
});

test.run();

// Issue 24 through `provision --dry-run` on the compiled binary: the four Go decoding classes as the
// reference decodes them (protojson numeric strings, customEnvJsonContent and components.json by
// encoding/json, lone surrogate escapes in map keys).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const COMPONENTS = {
  GPUContainerImages: [
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-cuda-lts:*', gpuVersion: { latestVersion: '580.159.04-20260629214430' } },
  ],
};
const BASE = { version: 'v1', kubernetesVersion: '1.30.1', vmSize: 'Standard_D2s_v3' };

interface Outcome {
  exitCode: number;
  env: Record<string, string>;
  stderr: string;
  box: Sandbox;
}

async function dryRun(configText: string, componentsText = JSON.stringify(COMPONENTS)): Promise<Outcome> {
  const box = makeSandbox('anc-parity-');
  box.write('/opt/azure/components.json', componentsText);
  const file = box.write('/opt/azure/containers/aks-node-controller-config.json', configText);
  const run = await runAnc(['provision', `--provision-config=${file}`, '--dry-run', '--show-secrets'], {
    root: box.root,
    env: { PATH: '/usr/bin:/bin', ANC_LOG_STDERR: '1' },
  });
  const env = run.exitCode === 0 ? (JSON.parse(run.stdout) as { env: Record<string, string> }).env : {};
  return { exitCode: run.exitCode ?? -1, env, stderr: run.stderr, box };
}

const b64 = (text: string | undefined) => Buffer.from(text ?? '', 'base64').toString();

test('1. numbers as JSON strings: one protojson token from the start, at any depth (map values too)', async () => {
  const config = {
    ...BASE,
    cseTimeout: '600 seconds',
    kubeletConfig: { kubeletConfigFileConfig: { maxPods: '110,2', imageGcHighThresholdPercent: '2x', containerLogMaxFiles: '7 x' } },
    clusterConfig: { cloudProviderConfig: { backoffExponent: '1e x', backoffRetries: '1e x' } },
    localDnsProfile: {
      enableLocalDns: true,
      vnetDnsOverrides: { '.': { forwardDestination: 'VnetDNS', maxConcurrent: '8:00', cacheDurationInSeconds: '1 ' } },
    },
  };
  const r = await dryRun(JSON.stringify(config));
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(r.env.CSE_TIMEOUT, '600');
  const kubelet = JSON.parse(b64(r.env.KUBELET_CONFIG_FILE_CONTENT)) as Record<string, unknown>;
  assert.equal([kubelet.maxPods, kubelet.containerLogMaxFiles, kubelet.imageGCHighThresholdPercent], [110, 7, undefined]);
  assert.is(r.env.CLOUDPROVIDER_BACKOFF_RETRIES, '1', 'an integer field ignores a dangling exponent');
  assert.is(r.env.CLOUDPROVIDER_BACKOFF_EXPONENT, '0', 'a floating-point one rejects it (the default stays)');
  const corefile = b64(r.env.LOCALDNS_GENERATED_COREFILE);
  assert.match(corefile, /max_concurrent 8\b/);
  // The rejected values are reported, each at its own path.
  for (const path of ['imageGcHighThresholdPercent', 'backoffExponent', 'cacheDurationInSeconds']) assert.match(r.stderr, path);
  r.box.cleanup();
});

test('2. customEnvJsonContent by encoding/json: a later null keeps the value; a type error empties it', async () => {
  const endpoint = async (content: string) => {
    const config = { ...BASE, customCloudConfig: { customCloudEnvName: 'akscustom', customEnvJsonContent: content } };
    const r = await dryRun(JSON.stringify(config));
    r.box.cleanup();
    assert.is(r.exitCode, 0, r.stderr);
    return r.env.ARM_RESOURCE_ENDPOINT;
  };
  assert.is(await endpoint('{"resourceManagerEndpoint":"https://a/","RESOURCEMANAGERENDPOINT":null}'), 'https://a/');
  assert.is(await endpoint('{"resourceManagerEndpoint":1,"resourceManagerEndpoint":"https://b/"}'), '');
  assert.is(await endpoint(`{"x":${'['.repeat(10_001)}${']'.repeat(10_001)},"resourceManagerEndpoint":"https://c/"}`), '');
  assert.is(await endpoint(`{"x":${'['.repeat(9_999)}${']'.repeat(9_999)},"resourceManagerEndpoint":"https://c/"}`), 'https://c/');
});

test('3. components.json into typed structs: any declared field of the wrong type or nesting over 10,000 refuses to provision', async () => {
  const refused = async (components: string, detail: string) => {
    const r = await dryRun(JSON.stringify(BASE), components);
    assert.is(r.exitCode, 1, components.slice(0, 80));
    assert.match(r.stderr, 'failed to load GPU config: parse ');
    assert.match(r.stderr, detail);
    r.box.cleanup();
  };
  await refused(
    '{"GPUContainerImages":[{"gpuVersion":{"renovateTag":5}}]}',
    'cannot unmarshal number into Go struct field gpuVersion.GPUContainerImages.gpuVersion.renovateTag of type string',
  );
  await refused('{"GPUContainerImages":[{"downloadURL":"a"}],"GPUContainerImages":[{"downloadURL":2}]}', 'cannot unmarshal number');
  await refused(`{"Packages":${'['.repeat(10_001)}${']'.repeat(10_001)}}`, 'exceeded max depth');
  // Duplicates decode INTO the existing value: the repeated array reuses element 0 (its gpuVersion),
  // null is a no-op, keys match case-insensitively.
  const merged =
    '{"GPUContainerImages":[{"downloadURL":"x/aks-gpu-cuda-lts:*","gpuVersion":{"latestVersion":"1.2-3"}}],' +
    '"gpucontainerimages":[{"DOWNLOADURL":"y/aks-gpu-cuda-lts:*","gpuVersion":null}],"GPUContainerImages":[null]}';
  const r = await dryRun(JSON.stringify(BASE), merged);
  assert.is(r.exitCode, 0, r.stderr);
  assert.equal([r.env.GPU_DRIVER_VERSION, r.env.GPU_IMAGE_SHA], ['1.2', '3']);
  r.box.cleanup();
});

test('4. a lone surrogate escape in a map key drops that entry and reports it (flags, labels, LocalDNS)', async () => {
  const text =
    '{"version":"v1","kubernetesVersion":"1.30.1","kubeletConfig":{"kubeletFlags":{"--a":"1","--b\\ud800":"2"},' +
    '"kubeletNodeLabels":{"l":"v","\\udc00":"x"},"kubeletConfigFileConfig":{"featureGates":{"G":true,"H\\ud800":false}}},' +
    '"localDnsProfile":{"enableLocalDns":true,"vnetDnsOverrides":{".":{"forwardDestination":"VnetDNS"},"x\\ud800":{"protocol":"ForceTCP"}}}}';
  const r = await dryRun(text);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(r.env.KUBELET_FLAGS, '--a=1');
  assert.is(r.env.KUBELET_NODE_LABELS, 'l=v');
  assert.equal(JSON.parse(b64(r.env.KUBELET_CONFIG_FILE_CONTENT)).featureGates, { G: true });
  const corefile = b64(r.env.LOCALDNS_GENERATED_COREFILE);
  assert.not.match(corefile, /force_tcp/, 'no extra server block');
  const reports = r.stderr.split('\n').filter((l) => l.includes('lone surrogate'));
  assert.ok(reports.length > 0, r.stderr);
  for (const name of ['kubeletFlags', 'kubeletNodeLabels', 'featureGates', 'vnetDnsOverrides']) assert.match(reports.join('\n'), name);
  r.box.cleanup();
});

test('config validate reports both: the surrogate key as an error, text after a number as a warning (--strict fails)', async () => {
  const box = makeSandbox('anc-parity-');
  // The sample configuration validates cleanly even with --strict; each case adds to it.
  const sample = JSON.parse(readFileSync('test/fixtures/sample-config.json', 'utf8'));
  const numberOnly = box.write('/n.json', JSON.stringify({ ...sample, cseTimeout: '600 seconds' }));
  const kubeletConfig = { ...sample.kubeletConfig, kubeletNodeLabels: { ...sample.kubeletConfig?.kubeletNodeLabels, LONE: 'x' } };
  const file = box.write(
    '/c.json',
    JSON.stringify({ ...sample, cseTimeout: '600 seconds', kubeletConfig }).replace('"LONE"', '"a\\ud800"'),
  );
  const run = await runAnc(['config', 'validate', '-o', 'json', file], { root: box.root });
  const report = JSON.parse(run.stdout) as {
    valid: boolean;
    errors: Array<{ path: string }>;
    warnings: Array<{ path: string; message: string }>;
  };
  assert.is(report.valid, false);
  assert.equal(
    report.errors.map((e) => e.path),
    ['$.kubeletConfig.kubeletNodeLabels["a\\ud800"]'],
  );
  assert.equal(
    report.warnings.map((w) => w.path),
    ['$.cseTimeout'],
  );
  assert.match(report.warnings[0]!.message, 'read as 600');
  assert.is((await runAnc(['config', 'validate', numberOnly], { root: box.root })).exitCode, 0);
  assert.is.not((await runAnc(['config', 'validate', '--strict', numberOnly], { root: box.root })).exitCode, 0);
  box.cleanup();
});

test.run();

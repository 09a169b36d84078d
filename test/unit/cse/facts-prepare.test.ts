// Machine facts and the config file's way to the command (prepareConfig), through a fake Deps rooted in a temp sandbox.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentError } from '../../../src/platform/errors.ts';
import type { RunResult } from '../../../src/platform/proc.ts';
import { gatherMachineFacts } from '../../../src/cse/facts.ts';
import { prepareConfig } from '../../../src/provision/config-file.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';
import { UPSTREAM_COMPONENTS, decode } from './support.ts';

const ok = (stdout: string): RunResult => ({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false });

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function withContainerd(output: RunResult | Error): FakeDeps {
  return fakeDeps({
    which: (name, pathEnv) => (name === 'containerd' && pathEnv === '/usr/bin:/bin' ? '/usr/bin/containerd' : undefined),
    run: (spec) => {
      assert.equal([spec.program, spec.args], ['/usr/bin/containerd', ['--version']]);
      if (output instanceof Error) throw output;
      return output;
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, AgentError);
    return error as AgentError;
  }
  throw new assert.Assertion({
    message: 'expected a rejection',
    generated: false,
    operator: 'rejects',
    actual: 'resolved',
    expects: 'rejected',
  });
}

test('facts: containerd version from PATH, components.json from the root', async () => {
  const deps = withContainerd(ok('containerd github.com/containerd/containerd/v2 2.3.2-1 fff\n'));
  put(deps.paths.componentsJson, JSON.stringify(UPSTREAM_COMPONENTS));
  const facts = await gatherMachineFacts(deps);
  assert.is(facts.containerdVersion, '2.3.2');
  // Decoded into the reference's structs: the declared fields only, every one of them.
  const declared = UPSTREAM_COMPONENTS.GPUContainerImages.map((i) => ({
    downloadURL: i.downloadURL,
    gpuVersion: { renovateTag: '', latestVersion: i.gpuVersion.latestVersion },
  }));
  assert.equal(facts.components, { GPUContainerImages: declared });
  deps.cleanup();
});

test('facts: no containerd, failing containerd, garbage output -> undefined', async () => {
  const none = fakeDeps();
  put(none.paths.componentsJson, '{}');
  assert.is((await gatherMachineFacts(none)).containerdVersion, undefined);
  assert.is(none.runs.length, 0);
  none.cleanup();
  for (const outcome of [new Error('spawn failed'), { ...ok('containerd x 1.7.22 y'), exitCode: 1 }, ok('not a valid output')]) {
    const deps = withContainerd(outcome);
    put(deps.paths.componentsJson, '{}');
    assert.is((await gatherMachineFacts(deps)).containerdVersion, undefined);
    deps.cleanup();
  }
});

test('facts: missing or malformed components.json is ANC_COMPONENTS with the reference message', async () => {
  const deps = fakeDeps();
  const file = deps.paths.componentsJson;
  const missing = await rejection(gatherMachineFacts(deps));
  assert.is(missing.code, 'ANC_COMPONENTS');
  assert.is(missing.message, `failed to load GPU config: read ${file}: open ${file}: no such file or directory`);
  put(file, '{not json');
  const bad = await rejection(gatherMachineFacts(deps));
  assert.match(bad.message, `failed to load GPU config: parse ${file}: failed to unmarshal components.json: `);
  put(file, '{"GPUContainerImages": {}}');
  assert.match((await rejection(gatherMachineFacts(deps))).message, 'cannot unmarshal object');
  deps.cleanup();
});

test('prepare: reads, gates, builds; unknown fields are one WARN line with paths (D7)', async () => {
  const deps = withContainerd(ok('containerd containerd.io 1.7.22 c814c75'));
  put(deps.paths.componentsJson, '{}');
  const file = put(`${deps.paths.root}/cfg.json`, JSON.stringify({ version: 'v1', vmSize: 'x', bogus: 1, clusterConfig: { nope: true } }));
  const { command, config, issues } = await prepareConfig(deps, file);
  assert.is(config.vmSize, 'x');
  assert.ok(issues.length >= 2);
  assert.ok(decode(String(command.cseEnv.CONTAINERD_CONFIG_CONTENT)).includes('grpc.v1.cri'));
  assert.is(command.cseEnv.PROVISION_OUTPUT, `${deps.paths.root}/var/log/azure/cluster-provision-cse-output.log`);
  const warn = deps.logs.find((l) => l.level === 'WARN' && Array.isArray(l.attrs.fields));
  assert.ok(warn);
  assert.equal([...(warn!.attrs.fields as string[])].sort(), ['$.bogus', '$.clusterConfig.nope']);
  deps.cleanup();
});

test('prepare: the configuration file is read once and parsed once on the way to the command', async () => {
  const deps = withContainerd(ok('containerd containerd.io 1.7.22 c814c75'));
  put(deps.paths.componentsJson, '{}');
  const file = put(`${deps.paths.root}/once.json`, JSON.stringify({ version: 'v1', vmSize: 'x' }));
  const reads: string[] = [];
  const readFile = deps.fs.readFile.bind(deps.fs);
  deps.fs.readFile = (path, kind) => {
    reads.push(path);
    return readFile(path, kind);
  };
  const readText = deps.fs.readText.bind(deps.fs);
  deps.fs.readText = (path, kind) => {
    reads.push(path);
    return readText(path, kind);
  };
  await prepareConfig(deps, file);
  assert.equal(
    reads.filter((p) => p === file),
    [file],
  );
  deps.cleanup();
});

test('prepare: version gate and v0 deprecation', async () => {
  const deps = fakeDeps();
  put(deps.paths.componentsJson, '{}');
  const bad = put(`${deps.paths.root}/bad.json`, '{"version":"V1"}');
  const err = await rejection(prepareConfig(deps, bad));
  assert.equal([err.code, err.message], ['ANC_CONFIG_VERSION', 'unsupported version: V1']);
  const v0 = put(`${deps.paths.root}/v0.json`, '{"version":"v0"}');
  await prepareConfig(deps, v0);
  assert.ok(deps.logs.some((l) => l.level === 'ERROR' && l.msg === 'v0 version is deprecated, please use v1 instead'));
  deps.cleanup();
});

test('prepare: unreadable config file', async () => {
  const deps = fakeDeps();
  const file = `${deps.paths.root}/missing.json`;
  const err = await rejection(prepareConfig(deps, file));
  assert.equal([err.code, err.message], ['ANC_CONFIG_UNREADABLE', `open provision file ${file}: open ${file}: no such file or directory`]);
  deps.cleanup();
});

test('prepare: the version gate runs before components.json is read', async () => {
  const deps = fakeDeps();
  const file = put(`${deps.paths.root}/c.json`, '{"version":"v2"}');
  assert.is((await rejection(prepareConfig(deps, file))).code, 'ANC_CONFIG_VERSION');
  deps.cleanup();
});

test('facts: components.json is read by encoding/json (lone surrogate -> U+FFFD); containerd output split by Go Fields', async () => {
  const deps = withContainerd(ok('containerd\u0085x\u00851.7.22\u0085y'));
  put(deps.paths.componentsJson, '{"GPUContainerImages":[{"downloadURL":"mcr/x:\\ud800","gpuVersion":{"latestVersion":"1-a"}}]}');
  const facts = await gatherMachineFacts(deps);
  assert.is(facts.containerdVersion, '1.7.22');
  assert.equal(facts.components, {
    GPUContainerImages: [{ downloadURL: 'mcr/x:\uFFFD', gpuVersion: { renovateTag: '', latestVersion: '1-a' } }],
  });
  deps.cleanup();
});

test.run();

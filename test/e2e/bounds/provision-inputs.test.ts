// provision and the tooling commands with a FIFO or /dev/zero at each input they read (issue: fail-open
// means bounded): the node config, components.json, node custom data (download-hotfix), the nbc command, and the files
// given to config validate and custom-data. Each is refused at once with the file named; provision still
// records its failure (ExitCode 240 + sentinel) so provision-wait cannot hang.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc, type Sandbox } from '../harness.ts';
import { makeNode, PROVISION_JSON, successScript } from '../provision/support.ts';
import { measured, plantDevice, plantFifo, printWorstCases } from './support.ts';

const nodes: Sandbox[] = [];
test.after(() => {
  for (const n of nodes) n.cleanup();
  printWorstCases('provision-inputs');
});

const PLANTS = [
  [plantFifo, 'FIFO'],
  [plantDevice, '/dev/zero'],
] as const;

async function provisionFails(
  args: (n: ReturnType<typeof makeNode>) => string[],
  plantAt: string,
  fault: string,
  said: RegExp,
): Promise<void> {
  for (const [plant, name] of PLANTS) {
    const n = makeNode(successScript());
    nodes.push(n);
    plant(n.path(plantAt));
    const r = await runAnc(['provision', ...args(n)], { root: n.root, timeoutMs: 30_000 });
    measured('provision', `${fault} ${name}`, r.durationMs, 5_000);
    assert.is(r.exitCode, 1, r.stderr);
    const result = JSON.parse(readFileSync(n.path(PROVISION_JSON), 'utf8')) as { ExitCode: string; Error: string };
    assert.is(result.ExitCode, '240');
    assert.match(result.Error, said);
    const wait = await runAnc(['provision-wait', '--timeout=5'], { root: n.root });
    assert.is(wait.exitCode, 1, 'provision-wait sees the recorded failure');
    assert.ok(n.events().some((e) => e.TaskName === 'AKS.AKSNodeController.Provision' && e.EventLevel === 'Error'));
  }
}

test('provision: the node config is a FIFO or /dev/zero', async () => {
  await provisionFails(
    (n) => [`--provision-config=${n.configPath}`],
    '/opt/azure/containers/aks-node-controller-config.json',
    'config',
    /provision config \S+ must be a regular file/,
  );
});

test('provision: components.json is a FIFO or /dev/zero', async () => {
  await provisionFails(
    (n) => [`--provision-config=${n.configPath}`],
    '/opt/azure/components.json',
    'components.json',
    /failed to load GPU config: .*ENOTREG/,
  );
});

test('provision --nbc-cmd: the nbc file is a FIFO or /dev/zero', async () => {
  const nbc = '/opt/azure/containers/aks-node-controller-nbc-cmd.sh';
  await provisionFails((n) => [`--nbc-cmd=${n.path(nbc)}`], nbc, 'nbc', /NBC command file \S+ must be a regular file/);
});

test('download-hotfix (scripts_version newer): node custom data is a FIFO or /dev/zero -> refused at once, fail-open', async () => {
  // Since spec 11.2 (D19) download-hotfix reads nodecustomdata.yml, not provision.
  const version = (await runAnc(['version'])).stdout.trim();
  const [major, minor, patch] = version.split('.');
  for (const [plant, name] of PLANTS) {
    const n = makeNode(successScript());
    nodes.push(n);
    n.write(
      '/opt/azure/containers/aks-node-controller-hotfix.json',
      JSON.stringify({ scripts_version: `${major}.${minor}.${Number(patch) + 1}` }),
      0o600,
    );
    plant(n.path('/opt/azure/containers/nodecustomdata.yml'));
    const r = await runAnc(['download-hotfix'], { root: n.root, timeoutMs: 30_000 });
    measured('download-hotfix', `node custom data ${name}`, r.durationMs, 5_000);
    assert.is(r.exitCode, 0, r.stderr);
    const event = n.events().find((e) => e.TaskName === 'AKS.AKSNodeController.NodeCustomData');
    assert.match(event?.Message ?? '', /^outcome=failed .*error=read nodecustomdata \S+: open \S+: ENOTREG/);
  }
});

test('config validate / custom-data: a FIFO or /dev/zero input is refused at once', async () => {
  for (const [plant, name] of PLANTS) {
    const n = makeNode(successScript());
    nodes.push(n);
    const file = n.path('/input.json');
    plant(file);
    for (const argv of [
      ['config', 'validate', file],
      ['custom-data', file],
      ['config', 'hash', file],
    ]) {
      const r = await runAnc(argv, { root: n.root, timeoutMs: 30_000 });
      measured(argv.slice(0, -1).join(' '), `input ${name}`, r.durationMs, 5_000);
      assert.is(r.exitCode, 1, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /ENOTREG/);
    }
  }
});

test.run();

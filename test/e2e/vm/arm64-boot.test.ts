// arm64 boots a real VM too (issue 42): the arm64 image (vhd/vm/build-image.sh --arch arm64: the same
// package set and image steps as amd64, linux-image-arm64) booted under qemu-system-aarch64 (TCG, `virt`,
// console ttyAMA0) with our own custom data. The same first boot as first-boot.test.ts: check-hotfix
// against the stand-in, download-hotfix of the arm64 hotfix as a delta from the arm64 baked agent, its
// script payload, provisioning. The other facts (the power cuts, the crash, the reboot) stay with amd64:
// they are about the launcher and the agent's files, not the architecture.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION } from '../../fakes/boot.ts';
import { FIXED_HELPER, FIXED_START, SCRIPT_LABEL } from '../../fakes/script-fix.ts';
import {
  bootNode,
  type BootRun,
  createNode,
  nodeCustomData,
  pauseConditions,
  prepareVmImage,
  shaOf,
  type StandIns,
  summarize,
} from '../../fakes/vm-node.ts';
import { logImage, logTiming, payloadStandIns, taskMessages, workDir } from './support.ts';

let stand: StandIns;
let run: BootRun;

test.before(async () => {
  const image = await prepareVmImage(pauseConditions(FIXED_START, FIXED_HELPER), () => {}, 'arm64');
  logImage('arm64 image', image);
  const work = workDir('arm64-boot');
  stand = await payloadStandIns(work, image);
  const node = createNode(join(work, 'node'), image.disk, nodeCustomData(image.hostAgent, stand.api, work), 'i-arm64-boot');
  run = await bootNode(node, { image, stand, boot: 1, probe: true });
  logTiming('arm64 first boot', `${run.seconds.toFixed(1)} s`);
});

test.after(async () => {
  await stand?.close();
});

test('arm64 first boot: the launcher used the arm64 hotfix (a delta from the arm64 baked agent), provision.json ExitCode 0', () => {
  const r = run.report!;
  assert.ok(r, 'the guest reported');
  assert.equal(r.file('machine.txt').trim().split('\n'), ['aarch64', '4096'], 'an arm64 kernel with 4 KiB pages');
  assert.is(r.boothookRuns, 1, 'the boothook ran once');
  assert.is(r.launcherExit, 0, r.launcher);
  assert.ok(r.launcher.includes('Using hotfix binary: /opt/azure/containers/aks-node-controller-hotfix'), r.launcher);
  assert.ok(r.launcher.includes('aks-node-controller completed successfully'), r.launcher);
  assert.match(taskMessages(r, 'CheckHotfix')[0]!, /^check-hotfix outcome=configMapRead/);
  const download = taskMessages(r, 'DownloadHotfix')[0]!;
  assert.match(download, /^outcome=staged /);
  assert.match(download, /path=delta/, 'the node fetched the delta package');
  // The guest ran both agents itself: they are arm64 executables.
  assert.is(r.hotfixVersion, HOTFIX_VERSION);
  assert.is(r.bakedVersion, BAKED_VERSION);
  assert.ok(
    stand.repo.requests.some((p) => /aks-node-controller-delta_.*_arm64\.deb$/.test(p)),
    `the arm64 delta was downloaded: ${stand.repo.requests.join(' ')}`,
  );
  assert.match(taskMessages(r, 'ScriptHotfix')[0]!, new RegExp(`^apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2`));
  assert.is(r.scriptsSha['provision_start.sh'], shaOf(FIXED_START));
  assert.is(r.scriptsSha['provision_source.sh'], shaOf(FIXED_HELPER));
  assert.is(r.provisionJson?.ExitCode, '0');
  assert.is(JSON.parse(r.provisionWait).ExitCode, '0', 'provision-wait (the extension stand-in) printed the status');
  const summary = summarize(run);
  assert.equal(
    [summary.booted, summary.arch, summary.launcherExit, summary.provisionExitCode, summary.binary, summary.agentVersion, summary.scripts],
    [true, 'arm64', 0, '0', 'hotfix', HOTFIX_VERSION, `hotfix ${SCRIPT_LABEL}`],
  );
});

test('arm64: `status` inside the guest says what ran', () => {
  const r = run.report!;
  assert.match(r.status, /^succeeded: provisioning succeeded/);
  assert.match(r.status, new RegExp(`ran {8}hotfix ${SCRIPT_LABEL}, 2 replaced`));
  assert.is((r.statusJson?.scripts as { ran?: string } | undefined)?.ran, 'hotfix');
});

test('arm64: the network from inside reaches the guestfwd stand-ins and nothing else (restrict=on)', () => {
  assert.equal(run.report!.network.trim().split('\n'), [
    '10.0.2.100:443 open',
    '10.0.2.101:80 open',
    `10.0.2.2:${stand.api.port} closed`,
    '10.0.2.2:22 closed',
    '10.0.2.3:53 closed',
    '192.0.2.1:80 closed',
  ]);
});

test.run();

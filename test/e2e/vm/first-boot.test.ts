// A real boot (issue "a first boot in a real VM"): the VM image built the way a VHD is built, booted under
// qemu from a fresh overlay with our own custom data in a NoCloud seed. The node provisions through
// cloud-init -> boothook -> systemd -> launcher -> check-hotfix -> download-hotfix (delta) -> health gate
// -> provision with the script payload -> status files, with provision-wait beside it; then a reboot of
// that node (a fresh overlay on its disk): the boothook runs again, the agent does not provision twice
// and the first boot's status stays. The guest reaches only the loopback stand-ins (restrict=on).
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION } from '../../fakes/boot.ts';
import { FIXED_HELPER, FIXED_START, SCRIPT_LABEL } from '../../fakes/script-fix.ts';
import {
  bootNode,
  type BootRun,
  type BuiltImage,
  createNode,
  nodeCustomData,
  pauseConditions,
  prepareVmImage,
  shaOf,
  type StandIns,
  summarize,
  type VmNode,
  VM_DIR,
} from '../../fakes/vm-node.ts';
import { logImage, logTiming, payloadStandIns, taskMessages, workDir } from './support.ts';

let image: BuiltImage;
let stand: StandIns;
let customData = '';
let node: VmNode;
let first: BootRun;

test.before(async () => {
  image = await prepareVmImage(pauseConditions(FIXED_START, FIXED_HELPER));
  logImage('image', image);
  const work = workDir('first-boot');
  stand = await payloadStandIns(work, image);
  customData = nodeCustomData(image.baked, stand.api, work);
  node = createNode(join(work, 'node'), image.disk, customData, 'i-first-boot');
  first = await bootNode(node, { image, stand, boot: 1, probe: true });
  logTiming('first boot', `${first.seconds.toFixed(1)} s`);
});

test.after(async () => {
  await stand?.close();
});

test('first boot: cloud-init ran our boothook, systemd started the launcher, the hotfix provisioned with its scripts', () => {
  const r = first.report!;
  assert.ok(r, 'the guest reported');
  assert.is(r.boothookRuns, 1, 'the boothook ran once');
  assert.ok(r.cloudInitSeconds > 0, 'cloud-init finished');
  assert.is(r.launcherExit, 0, r.launcher);
  const order = [
    'ENABLE_PROVISIONING_HOTFIX=true; running check-hotfix',
    'ANC check-hotfix completed',
    'running download-hotfix',
    'ANC download-hotfix completed',
    `Using hotfix binary: /opt/azure/containers/aks-node-controller-hotfix`,
    'Launching aks-node-controller with config /opt/azure/containers/aks-node-controller-config.json',
    'aks-node-controller completed successfully',
  ].map((t) => r.launcher.indexOf(t));
  assert.ok(
    order.every((i) => i >= 0),
    r.launcher,
  );
  assert.equal(
    [...order].sort((a, b) => a - b),
    order,
    'in order',
  );
  assert.match(taskMessages(r, 'CheckHotfix')[0]!, /^check-hotfix outcome=configMapRead/);
  const download = taskMessages(r, 'DownloadHotfix')[0]!;
  assert.match(download, /^outcome=staged /);
  assert.match(download, /path=delta/, 'the node fetched the delta package');
  assert.is(r.hotfixVersion, HOTFIX_VERSION);
  assert.is(r.bakedVersion, BAKED_VERSION);
  assert.match(taskMessages(r, 'ScriptHotfix')[0]!, new RegExp(`^apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2`));
  assert.is(r.scriptsSha['provision_start.sh'], shaOf(FIXED_START));
  assert.is(r.scriptsSha['provision_source.sh'], shaOf(FIXED_HELPER));
  assert.is(r.provisionJson?.ExitCode, '0');
  assert.is(JSON.parse(r.provisionWait).ExitCode, '0', 'provision-wait (the extension stand-in) printed the status');
  assert.is((r.statusJson?.scripts as { ran?: string } | undefined)?.ran, 'hotfix');
  const summary = summarize(first);
  assert.equal(
    [summary.booted, summary.launcherExit, summary.provisionExitCode, summary.binary, summary.agentVersion, summary.scripts],
    [true, 0, '0', 'hotfix', HOTFIX_VERSION, `hotfix ${SCRIPT_LABEL}`],
  );
  // The stand-ins saw the node: the ConfigMap read and the delta download came from the guest.
  assert.ok(stand.api.requests.some((q) => q.path === '/api/v1/namespaces/kube-system/configmaps/anc-hotfix-version'));
  assert.ok(stand.repo.requests.some((p) => p.includes('aks-node-controller-delta')));
});

test('the network: the guest reaches the guestfwd stand-ins and nothing else (restrict=on)', () => {
  const lines = first.report!.network.trim().split('\n');
  assert.equal(lines, [
    '10.0.2.100:443 open',
    '10.0.2.101:80 open',
    // qemu's gateway would be the host's loopback without restrict=on: the apiserver's own port there.
    `10.0.2.2:${stand.api.port} closed`,
    '10.0.2.2:22 closed',
    '10.0.2.3:53 closed',
    '192.0.2.1:80 closed',
  ]);
});

test('a reboot: the boothook runs again, the agent does not provision twice, the first boot status stays', async () => {
  const rebooted = createNode(join(VM_DIR, 'tests', 'first-boot', 'reboot'), node.disk, customData, 'i-first-boot');
  const second = await bootNode(rebooted, { image, stand, boot: 2 });
  logTiming('reboot', `${second.seconds.toFixed(1)} s`);
  const r = second.report!;
  const f = first.report!;
  assert.is(r.boothookRuns, 2, 'the boothook ran at both boots');
  assert.is(r.file('boots.txt').trim().split('\n').length, 3, 'two boots in the journal');
  // The boothook started the unit again; its condition (provision.complete) skipped it: no launcher run.
  assert.is(r.launcherCondition, 'no');
  assert.not.match(r.launcher, /running check-hotfix|Launching aks-node-controller/, r.launcher);
  assert.is(
    r.log.filter((l) => l.msg === 'aks-node-controller started' && l.task === 'Provision' && l.dryRun === false).length,
    1,
    'one real provision in all',
  );
  assert.equal(r.provisionJson, f.provisionJson, "the first boot's provision.json is untouched");
  assert.is(JSON.parse(r.provisionWait).ExitCode, '0');
  assert.is(r.scriptsSha['provision_start.sh'], shaOf(FIXED_START));
  assert.is(r.hotfixVersion, HOTFIX_VERSION);
  assert.match(r.status, /^succeeded: provisioning succeeded/);
  assert.match(r.status, new RegExp(`ran {8}hotfix ${SCRIPT_LABEL}, 2 replaced`));
});

test.run();

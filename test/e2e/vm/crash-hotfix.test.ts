// A real boot with a hotfix that crashes before the provisioning scripts start (issue "a first boot in a
// real VM", test 4): the hotfix passes the health gate (its `version` and dry-run self-test answer), then
// dies of SIGSEGV at the real provision. The launcher under systemd falls back to the baked agent, which
// quarantines the version and provisions with the image's own scripts.
// The same node's first boot is the power cut while the hotfix is staged (test 3; one boot less than a
// node of its own): qemu is killed while the health gate runs the pending candidate; the boot above is
// the next one, which must stage the hotfix again from scratch before it crashes.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION } from '../../fakes/boot.ts';
import { buildMisbehavingAgent } from '../../fakes/misbehaving-agent.ts';
import { buildHotfixPackages } from '../../fakes/repos.ts';
import { FIXED_HELPER, FIXED_START } from '../../fakes/script-fix.ts';
import {
  bootNode,
  type BootRun,
  createNode,
  nodeCustomData,
  pauseConditions,
  prepareVmImage,
  type StandIns,
  startStandIns,
  summarize,
} from '../../fakes/vm-node.ts';
import { logImage, logTiming, taskMessages, workDir } from './support.ts';

let stand: StandIns;
let run: BootRun;
let bakedStartSha = '';
let pausedLine = '';

test.before(async () => {
  const image = await prepareVmImage(pauseConditions(FIXED_START, FIXED_HELPER));
  logImage('image', image);
  const work = workDir('crash-hotfix');
  // On the VM disk the real agent to delegate to is the baked one; `version` answers the hotfix's version.
  const crashing = buildMisbehavingAgent(
    'CRASH_PROVISION',
    '/opt/azure/containers/aks-node-controller',
    join(work, 'bin/aks-node-controller'),
    HOTFIX_VERSION,
  );
  const packages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'hotfix'), { bin: crashing });
  stand = await startStandIns(work, packages, { hotfixes: { '202604.01': HOTFIX_VERSION } });
  const node = createNode(join(work, 'node'), image.disk, nodeCustomData(image.baked, stand.api, work), 'i-crash-hotfix');
  const cut = await bootNode(node, { image, stand, boot: 1, pause: 'hotfix-staging' });
  logTiming('crash-hotfix: boot until the cut (staging)', `${cut.seconds.toFixed(1)} s`);
  pausedLine = cut.vm.lines().find((l) => l.includes('ANC-VM paused')) ?? '';
  run = await bootNode(node, { image, stand, boot: 2 });
  logTiming('crash-hotfix: boot after the cut', `${run.seconds.toFixed(1)} s`);
  bakedStartSha = run.report?.file('scripts.sha256') ?? '';
});

test.after(async () => {
  await stand?.close();
});

test('a hotfix that crashes before the scripts: the baked agent provisions, the version is quarantined', () => {
  const r = run.report!;
  assert.ok(r, 'the guest reported');
  assert.match(taskMessages(r, 'DownloadHotfix')[0]!, /^outcome=staged /, 'the gate passed: the crash is only in the real provision');
  assert.ok(r.launcher.includes('Using hotfix binary: /opt/azure/containers/aks-node-controller-hotfix'), r.launcher);
  assert.ok(
    r.launcher.includes(
      'Hotfix binary was killed by signal 11 before the provisioning scripts started; falling back to the VHD-baked binary',
    ),
    r.launcher,
  );
  const fallback = taskMessages(r, 'HotfixFallback');
  assert.is(fallback.length, 1);
  assert.match(fallback[0]!, HOTFIX_VERSION);
  const quarantine = JSON.parse(r.file('aks-node-controller-hotfix-quarantine.json'));
  assert.equal(
    quarantine.versions.map((v: { version: string }) => v.version),
    [HOTFIX_VERSION],
  );
  assert.is(r.hotfixVersion, '', 'the staged hotfix is gone');
  assert.is(r.launcherExit, 34, 'the baked scripts ran (their bug: ERR_KUBELET_START_FAIL)');
  assert.is(r.provisionJson?.ExitCode, '34');
  assert.is(JSON.parse(r.provisionWait).ExitCode, '34', "provision-wait saw the baked run's result");
  assert.is((r.statusJson?.scripts as { ran?: string } | undefined)?.ran, 'baked');
  const s = summarize(run);
  assert.equal([s.binary, s.agentVersion, s.scripts], ['baked', BAKED_VERSION, 'baked']);
  assert.ok(bakedStartSha.includes('provision_start.sh'));
});

test('power cut while the hotfix is staged (pending candidate in the health gate): the next boot stages it again', () => {
  const r = run.report!;
  assert.match(pausedLine, /pause-when-hotfix-staging/, 'the power went at the pause point');
  assert.not.match(r.file('containers.txt'), /aks-node-controller-hotfix\.pending/, 'no pending candidate left');
  const downloads = taskMessages(r, 'DownloadHotfix');
  assert.is(downloads.length, 1, 'one download-hotfix event: the cut boot never reached its end');
  assert.match(downloads[0]!, /^outcome=staged /);
  assert.ok(r.launcher.includes('Using hotfix binary: /opt/azure/containers/aks-node-controller-hotfix'), r.launcher);
});

test.run();

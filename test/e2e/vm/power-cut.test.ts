// Power cuts in a real VM (issue "a first boot in a real VM", test 3): qemu is killed while the script
// payload is being applied (one script replaced, the other not yet). (The cut while the hotfix is staged
// shares its node with the crashing hotfix: crash-hotfix.test.ts, one boot less.) The moment is exact: a
// fanotify pause point inside the guest (test/fakes/vm-pause.c) holds the agent at its next open of
// /opt/azure/containers, flushes the disk and says so on the serial console; the host then kills qemu.
// The next boot of the same disk must provision with the scripts all hotfixed (never a mix), and
// `status` must say what ran.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HOTFIX_VERSION } from '../../fakes/boot.ts';
import { FIXED_HELPER, FIXED_START, SCRIPT_LABEL } from '../../fakes/script-fix.ts';
import {
  bootNode,
  type BootReport,
  type BuiltImage,
  createNode,
  nodeCustomData,
  pauseConditions,
  prepareVmImage,
  shaOf,
  type StandIns,
} from '../../fakes/vm-node.ts';
import { logImage, logTiming, payloadStandIns, taskMessages, workDir } from './support.ts';

let image: BuiltImage;
let stand: StandIns;
let customData = '';
let work = '';
let scriptsCut: { report: BootReport; pausedLine: string };

test.before(async () => {
  image = await prepareVmImage(pauseConditions(FIXED_START, FIXED_HELPER));
  logImage('image', image);
  work = workDir('power-cut');
  stand = await payloadStandIns(work, image);
  customData = nodeCustomData(image.baked, stand.api, work);
  // One VM at a time: two side by side starve each other under TCG on 2 cores, and check-hotfix's 10 s
  // bound (guest wall time) was seen to run out that way.
  scriptsCut = await cutThenBoot('cut-scripts', 'scripts-mixed');
});

test.after(async () => {
  await stand?.close();
});

/** Boots a fresh node until the pause point, cuts the power, boots it again; returns the second boot's report. */
async function cutThenBoot(name: string, pause: string): Promise<{ report: BootReport; pausedLine: string }> {
  const node = createNode(join(work, name), image.disk, customData, `i-${name}`);
  const cut = await bootNode(node, { image, stand, boot: 1, pause });
  logTiming(`${name}: boot until the cut`, `${cut.seconds.toFixed(1)} s`);
  const pausedLine = cut.vm.lines().find((l) => l.includes('ANC-VM paused')) ?? '';
  const again = await bootNode(node, { image, stand, boot: 2 });
  logTiming(`${name}: boot after the cut`, `${again.seconds.toFixed(1)} s`);
  return { report: again.report!, pausedLine };
}

function assertAllHotfixed(r: BootReport): void {
  assert.is(r.launcherExit, 0, r.launcher);
  assert.is(r.provisionJson?.ExitCode, '0', 'the fixed script ran');
  assert.is(JSON.parse(r.provisionWait).ExitCode, '0');
  assert.equal(
    [r.scriptsSha['provision_start.sh'], r.scriptsSha['provision_source.sh']],
    [shaOf(FIXED_START), shaOf(FIXED_HELPER)],
    'all hotfixed, never a mix',
  );
  const scripts = r.statusJson?.scripts as { ran?: string; label?: string; state?: string } | undefined;
  assert.equal([scripts?.ran, scripts?.label, scripts?.state], ['hotfix', SCRIPT_LABEL, 'applied'], 'status: the hotfix scripts, applied');
  assert.match(r.status, new RegExp(`ran {8}hotfix ${SCRIPT_LABEL}, 2 replaced`));
  assert.match(r.status, /^succeeded: /);
  assert.not.match(r.status, /INTERRUPTED apply/);
  assert.is(r.hotfixVersion, HOTFIX_VERSION);
  assert.ok(r.launcher.includes('Using hotfix binary: /opt/azure/containers/aks-node-controller-hotfix'), r.launcher);
}

test('power cut while the script payload is applied (one script replaced): the next boot restores, reapplies, provisions', () => {
  const { report: r, pausedLine } = scriptsCut;
  assert.match(pausedLine, /pause-when-scripts-mixed/, 'the power went at the pause point');
  assertAllHotfixed(r);
  // The interrupted apply was found and undone before the payload was applied again.
  assert.ok(
    r.log.some((l) => /restor/i.test(String(l.msg)) && /interrupted/.test(JSON.stringify(l))),
    r.log.map((l) => l.msg).join('\n'),
  );
  assert.match(
    r.status,
    /restored +\d+ baked scripts of hotfix .* \(an earlier apply was interrupted\)/,
    'status says what the boot repaired',
  );
  const applies = taskMessages(r, 'ScriptHotfix');
  assert.match(applies.at(-1)!, new RegExp(`^apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2`));
});

test.run();

// Issue 40 item 7: a recalled hotfix on the node. While the node still runs it (the pointer recalls it,
// download-hotfix has not yet given it up), `status` and `hotfix explain` say it is recalled, never that the
// node takes it; after the node gives it up, the headline says `recalled` and what runs now, and the
// timeline's recall row is a success (an intended undo), not an ERROR.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imagePaths, installImage, runLauncher, stageHotfix, writeHostname, writeStandInProvisionScripts } from '../../fakes/node-image.ts';
import { buildAgent } from '../../fakes/repos.ts';
import { SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-recalled-'));
const BAKED = '202604.01.0';
const HOTFIX = '202604.01.1';
let baked = '';
let root = '';

test.before(async () => {
  baked = buildAgent(BAKED, join(work, 'baked'));
  const hotfix = buildAgent(HOTFIX, join(work, 'good'), [
    '--scripts',
    writePayloadDir(join(work, 'payload')),
    '--scripts-label',
    SCRIPT_LABEL,
  ]);
  root = mkdtempSync(join(work, 'root-'));
  installImage(root, baked);
  writeHostname(root);
  writeStandInProvisionScripts(root, { exitCode: 0 });
  writeFileSync(join(root, 'etc/os-release'), 'ID=ubuntu\nVERSION_ID="22.04"\n');
  writeFileSync(imagePaths(root).config, '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  // Staged as a download promotes it: the binary with its version record (the recall reads the record).
  stageHotfix(root, hotfix, HOTFIX);
  const first = await runLauncher(root, {}, 120_000);
  assert.is(first.exitCode, 0, first.stdout + first.stderr);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test('still running a recalled hotfix: status and explain say recalled, never "takes"', async () => {
  writeFileSync(imagePaths(root).hotfixPointer, `{"hotfixes":{"202604.01":"${HOTFIX}"},"recall":["${HOTFIX}"]}`);
  const status = await runAnc(['status'], { root, bin: baked });
  assert.match(status.stdout.split('\n')[0]!, /^succeeded: provisioning succeeded in \d+ s under hotfix /);
  assert.ok(
    status.stdout
      .split('\n')[0]!
      .endsWith(
        ` under hotfix ${HOTFIX}, which the pointer RECALLS: the next download-hotfix gives it up (the image's scripts restored, version quarantined) and the baked agent runs`,
      ),
    status.stdout,
  );
  assert.not.match(status.stdout, 'takes hotfix');
  const explain = await runAnc(['hotfix', 'explain'], { root, bin: baked });
  assert.is(
    explain.stdout.split('\n')[0],
    `This node stays on ${BAKED}, but it still runs the staged hotfix: hotfix ${HOTFIX} is recalled by the pointer, and the next download-hotfix gives the staged hotfix up if it is that version (the image's scripts restored, the version quarantined).`,
  );
  assert.match(explain.stdout, '\nbinary: hotfix\n');
});

test('given up: the headline says recalled and what runs now; the recall row is a success', async () => {
  const second = await runLauncher(root, {}, 120_000);
  assert.is(second.exitCode, 0, second.stdout + second.stderr);
  const status = await runAnc(['status'], { root, bin: baked });
  assert.match(
    status.stdout.split('\n')[0]!,
    new RegExp(
      `^succeeded: provisioning succeeded in \\d+ s; hotfix ${HOTFIX} recalled at \\S+: this node runs the baked agent ${BAKED} and the image's scripts$`,
    ),
  );
  assert.match(status.stdout, /\n {2}HotfixFallback .* ok recall: hotfix 202604\.01\.1 recalled by the hotfix pointer;/);
  assert.not.match(status.stdout, 'ERROR');
  assert.match(status.stdout, `  quarantined ${HOTFIX} at `);
  assert.match(status.stdout, "recalled by the hotfix pointer; the image's scripts were restored and the baked agent runs since\n");
  assert.not.match(status.stdout, 'from the next provision on');
  // The quarantine line sits under hotfix:, not scripts:.
  const hotfixBlock = status.stdout.split('\nhotfix:\n')[1]!.split('\n\n')[0]!;
  assert.match(hotfixBlock, `quarantined ${HOTFIX}`);
});

test.run();

// Issue 32, §3: the sandboxed first boot (apiserver stand-in, signed apt repository, boothook, provision-wait
// beside it) through a launcher written only from the facts of the reference's new hotfix seam
// (test/fakes/facts-launcher.ts), with our baked agent and a hotfix agent carrying a script payload that
// fixes the image's buggy provision_start.sh. Checks the lines and assertions of the reference's own
// scenario: the hotfix binary is selected and logged, it applies its payload (`apply-embedded-hotfix`) and
// provisions; the baked binary never handles `provision` or `apply-embedded-hotfix`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION, sandboxedFirstBoot, type BootResult } from '../../fakes/boot.ts';
import { installFactsLauncher } from '../../fakes/facts-launcher.ts';
import { imagePaths } from '../../fakes/node-image.ts';
import { buildAgent, buildHotfixPackages } from '../../fakes/repos.ts';
import { BUG, buildScriptFix, FIXED_HELPER, FIXED_START, SCRIPT_LABEL } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-facts-launcher-'));
const C = 'opt/azure/containers';
let b: BootResult;

test.before(async () => {
  const baked = buildAgent(BAKED_VERSION, join(work, 'baked'));
  const fixBin = buildScriptFix(HOTFIX_VERSION, join(work, 'fix'));
  b = await sandboxedFirstBoot({
    bakedBin: baked,
    hotfixPackages: buildHotfixPackages(HOTFIX_VERSION, join(work, 'pkg'), { bin: fixBin }),
    standIn: { exitCode: BUG.exitCode, note: BUG.note },
    prepareRoot: (root) => installFactsLauncher(imagePaths(root).launcher),
  });
});
test.after(() => {
  b?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

const logLines = () =>
  readFileSync(b.logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('the launcher selects the hotfix binary and logs the reference scenario lines', () => {
  const out = b.launcher.stdout;
  const hotfix = imagePaths(b.root).hotfixBinary;
  assert.match(out, `Using hotfix binary: ${hotfix}`);
  assert.not.match(out, 'Using VHD-baked binary');
  assert.not.match(out, 'failed (exit');
  assert.match(out, `provisioning with ${hotfix}`);
  assert.is(b.launcher.exitCode, 0, out + b.launcher.stderr);
  assert.is(JSON.parse(b.provisionWait.stdout).ExitCode, '0');
  assert.is(b.hotfixVersion, HOTFIX_VERSION);
});

test('the hotfix applied its payload before provision, and provision found it applied', () => {
  assert.is(readFileSync(join(b.root, C, 'provision_start.sh'), 'utf8'), FIXED_START);
  assert.is(readFileSync(join(b.root, C, 'provision_source.sh'), 'utf8'), FIXED_HELPER);
  const record = JSON.parse(readFileSync(join(b.root, C, 'aks-node-controller-script-hotfix/record.json'), 'utf8'));
  assert.equal([record.label, record.state, record.appliedBy], [SCRIPT_LABEL, 'applied', HOTFIX_VERSION]);
  const script = b.events.filter((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix').map((e) => e.Message!);
  assert.is(script.length, 2, script.join('\n'));
  assert.match(script[0]!, `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2 `);
  assert.match(script[1]!, 'already applied (2 replaced earlier)');
});

test('the baked binary never handles provision or apply-embedded-hotfix; it ran check-hotfix and download-hotfix', () => {
  const starts = logLines().filter((l) => typeof l.task === 'string' && typeof l.binary === 'string' && l.dryRun !== true);
  const by = (task: string) => starts.filter((l) => l.task === task).map((l) => `${l.binary} ${l.version}`);
  assert.equal(by('CheckHotfix'), [`baked ${BAKED_VERSION}`]);
  assert.equal(by('DownloadHotfix'), [`baked ${BAKED_VERSION}`]);
  assert.equal(by('ApplyEmbeddedHotfix'), [`hotfix ${HOTFIX_VERSION}`]);
  assert.equal(by('Provision'), [`hotfix ${HOTFIX_VERSION}`]);
});

test('status says which binary wrote each step of this boot', async () => {
  const s = JSON.parse((await runAnc(['status', '-o', 'json'], { root: b.root })).stdout);
  assert.equal(s.binary, { kind: 'hotfix', version: HOTFIX_VERSION });
  const agent = (s.timeline as Array<{ task: string; agent: boolean; binary?: string }>).filter((t) => t.agent);
  const by = (task: string) => [...new Set(agent.filter((t) => t.task === task).map((t) => t.binary))];
  assert.equal(by('CheckHotfix'), ['baked'], JSON.stringify(agent));
  assert.equal(by('DownloadHotfix'), ['baked']);
  assert.equal(by('ScriptHotfix'), ['hotfix']);
  assert.equal(by('Provision'), ['hotfix']);
});

test.run();

// `npm run demo`: a whole sandboxed first boot of a node, printed as a timeline (see test/fakes/boot.ts).
// The image's baked provision_start.sh has a bug (it exits ERR_KUBELET_START_FAIL); the hotfix package
// carries an agent whose embedded script payload (build.mjs --scripts) holds the fixed script, applied
// by the hotfix's provision before the scripts start (docs/hotfix.md "script payload"). The payload is
// checked against the image's manifest (build.mjs --image-manifest), so every entry applies: none missing.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnc } from '../test/e2e/harness.ts';
import { BAKED_VERSION, sandboxedFirstBoot, type BootStep } from '../test/fakes/boot.ts';
import { buildAgent } from '../test/fakes/repos.ts';
import { BUG, imageManifestFor, pinnedFixEntries, SCRIPT_LABEL, writePayloadDir } from '../test/fakes/script-fix.ts';

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`).padStart(6);
const line = (s: BootStep, indent = '') =>
  `${seconds(s.atMs)}  ${indent}${s.name.padEnd(48 - indent.length)} ${seconds(s.durationMs)}  ${s.outcome}`;

async function main(): Promise<void> {
  const agentSteps = new Set(['CheckHotfix', 'DownloadHotfix', 'ScriptHotfix', 'Provision']);
  process.stdout.write(
    'aks-node-controller: a sandboxed first boot (offline, loopback only)\n' +
      `the image's provision_start.sh has a bug: it exits ${BUG.exitCode} ${BUG.name} ("${BUG.note}")\n` +
      `the hotfix package carries the fixed script (script payload ${SCRIPT_LABEL}, embedded in the agent)\n\n` +
      '    at  step                                              took  outcome\n',
  );
  const payloadDir = mkdtempSync(join(tmpdir(), 'anc-demo-payload-'));
  // The image build's last step: its manifest, published beside it; the hotfix build is checked against it.
  const baked = buildAgent(BAKED_VERSION, join(payloadDir, 'baked'));
  const manifest = imageManifestFor(baked, join(payloadDir, 'image'), { exitCode: BUG.exitCode, note: BUG.note });
  const payload = writePayloadDir(join(payloadDir, 'payload'), pinnedFixEntries());
  const result = await sandboxedFirstBoot({
    bakedBin: baked,
    standIn: { exitCode: BUG.exitCode, note: BUG.note },
    hotfixBuildArgs: ['--scripts', payload, '--scripts-label', SCRIPT_LABEL, '--image-manifest', manifest],
    // The image keeps its manifest, so `status` shows what changed since it was built.
    prepareRoot: (root) => copyFileSync(manifest, join(root, 'opt/azure/containers/aks-node-controller-image-manifest.json')),
    hotfixIndex: true,
    onStep: (s) => {
      if (!agentSteps.has(s.name)) process.stdout.write(line(s) + '\n');
    },
  }).finally(() => rmSync(payloadDir, { recursive: true, force: true }));
  process.stdout.write("\ninside the launcher (from the agent's guest-agent events):\n");
  for (const s of result.steps.filter((x) => agentSteps.has(x.name)).sort((a, b) => a.atMs - b.atMs)) {
    process.stdout.write(line(s, '  ') + '\n');
  }
  const chosen = /Using (hotfix|VHD-baked) binary: (\S+)/.exec(result.launcher.stdout);
  process.stdout.write(
    `\nbinary chosen by the launcher: ${chosen ? `${chosen[1]} (${chosen[2]!.replace(result.root, '<root>')})` : 'unknown'}\n`,
  );
  process.stdout.write(`staged hotfix binary reports:  ${result.hotfixVersion || '(none staged)'}\n`);
  const download = result.events.find((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')?.Message ?? '';
  const fetched = /path=(\S+) fetchedBytes=(\d+)/.exec(download);
  const pkg = /packageBytes=(\d+)/.exec(download)?.[1];
  const what = fetched
    ? `${fetched[2]} bytes (path=${fetched[1]}${pkg ? `; the package: ${pkg} bytes, the rest signed metadata` : ''})`
    : '(nothing)';
  process.stdout.write(`download-hotfix fetched:       ${what}\n`);
  const scripts = result.events.find((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix')?.Message?.split(' | ')[0];
  process.stdout.write(`script payload:                ${scripts ?? '(not applied)'}\n`);
  process.stdout.write(`staged pointer:                ${result.stagedPointer || '(none)'}\n`);
  process.stdout.write(`provision-wait printed:        ${result.provisionWait.stdout.trim().slice(0, 120)}...\n`);
  const status = await runAnc(['status'], { root: result.root, bin: join(result.root, 'opt/azure/containers/aks-node-controller') });
  const block = /\nscripts:\n(?: {2}.*\n| {13}.*\n)+/.exec(status.stdout)?.[0] ?? '';
  process.stdout.write(`\naks-node-controller status: ${status.stdout.split('\n')[0]}${block.replaceAll(result.root, '<root>')}`);
  process.stdout.write(`\nsandbox root (kept): ${result.root}\n  log:    ${result.logFile}\n  events: ${result.eventsDir}\n`);
  const launcherLog = `${result.root}/var/log/azure/launcher-output.log`;
  writeFileSync(launcherLog, result.launcher.stdout + result.launcher.stderr);
  process.stdout.write(`  launcher output (apt's included): ${launcherLog}\n`);
  const logLines = readFileSync(result.logFile, 'utf8').trim().split('\n').length;
  process.stdout.write(`  ${logLines} log lines, ${result.events.length} events\n`);
  process.exitCode = result.launcher.exitCode === 0 && result.provisionWait.exitCode === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

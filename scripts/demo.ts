// `npm run demo`: a whole sandboxed first boot of a node, printed as a timeline (see test/fakes/boot.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { sandboxedFirstBoot, type BootStep } from '../test/fakes/boot.ts';

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`).padStart(6);
const line = (s: BootStep, indent = '') =>
  `${seconds(s.atMs)}  ${indent}${s.name.padEnd(48 - indent.length)} ${seconds(s.durationMs)}  ${s.outcome}`;

async function main(): Promise<void> {
  const agentSteps = new Set(['CheckHotfix', 'DownloadHotfix', 'Provision']);
  process.stdout.write(
    'aks-node-controller: a sandboxed first boot (offline, loopback only)\n\n    at  step                                              took  outcome\n',
  );
  const result = await sandboxedFirstBoot({
    onStep: (s) => {
      if (!agentSteps.has(s.name)) process.stdout.write(line(s) + '\n');
    },
  });
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
  process.stdout.write(`staged pointer:                ${result.stagedPointer || '(none)'}\n`);
  process.stdout.write(`provision-wait printed:        ${result.provisionWait.stdout.trim().slice(0, 120)}...\n`);
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

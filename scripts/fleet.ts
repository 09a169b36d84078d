// `npm run fleet -- [--nodes N] [--bad] [--hang K] [--gated] [--watch-dies-after-wave W] [--recall] [-o json]`: rehearses a whole hotfix rollout on this machine
// (test/fakes/fleet.ts): the apiserver stand-in, a signed repository with a hotfix, N sandboxed nodes
// booting through the real launcher, a signed schedule 25% -> 50% -> 100% seconds apart and the real
// `hotfix rollout watch` beside them. The rollout table is printed as it moves. With --bad the hotfix
// breaks provisioning on every node that takes it, and the watch must halt after the first wave. --hang K:
// K nodes of the first wave never report (silence is failure: the watch halts). --gated: the steps after the
// first open only on the evidence the watch signs. --watch-dies-after-wave W: the watch is killed after wave W.
// -o json ends with one summary object. Nothing is kept.
import { rehearseFleet } from '../test/fakes/fleet.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: npm run fleet -- [--nodes N] [--bad] [--hang K] [--gated] [--watch-dies-after-wave W] [--recall] [-o json]\n\nRehearses a hotfix rollout over N sandboxed nodes (default 12) on this machine; --bad ships a hotfix that\nbreaks provisioning, which the watch must halt after the first wave. --hang K: K nodes of the first wave never\nreport (the watch counts them timedOut and halts). --gated: the steps after the first open only on evidence the\nwatch signs. --watch-dies-after-wave W: the watch is killed after wave W (gated: the rollout stalls; ungated: it\nwidens with nobody watching). --recall: after the good rollout completed, a recall of the hotfix is published\nand the report timer runs on every node (no reboot): each node on the recalled version is flagged\nAKSNodeControllerRecalled. -o json ends with a summary object.\n',
  );
  process.exit(0);
}
const VALUED = ['--nodes', '-o', '--output', '--hang', '--watch-dies-after-wave'];
const known = new Set([...VALUED, '--bad', '--gated', '--recall']);
const flagValue = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
for (const [i, a] of args.entries()) {
  const isValue = i > 0 && VALUED.includes(args[i - 1]!);
  if (!isValue && !known.has(a)) {
    process.stderr.write(`fleet: unknown argument ${a} (see --help)\n`);
    process.exit(2);
  }
}
const nodes = Number(flagValue('--nodes') ?? '12');
if (!Number.isInteger(nodes) || nodes < 1 || nodes > 64) {
  process.stderr.write('fleet: --nodes must be an integer from 1 to 64\n');
  process.exit(2);
}
const output = flagValue('-o') ?? flagValue('--output') ?? 'text';
if (output !== 'text' && output !== 'json') {
  process.stderr.write('fleet: -o must be text or json\n');
  process.exit(2);
}
const bad = args.includes('--bad');
const gated = args.includes('--gated');
const hang = Number(flagValue('--hang') ?? '0');
if (!Number.isInteger(hang) || hang < 0 || hang > Math.floor(nodes / 4)) {
  process.stderr.write(`fleet: --hang must be an integer from 0 to ${Math.floor(nodes / 4)} (the first wave is 25% of the nodes)\n`);
  process.exit(2);
}
const diesText = flagValue('--watch-dies-after-wave');
const dies = diesText === undefined ? undefined : Number(diesText);
if (dies !== undefined && !(Number.isInteger(dies) && dies >= 1 && dies <= 2)) {
  process.stderr.write('fleet: --watch-dies-after-wave must be 1 or 2 (the schedule has three waves)\n');
  process.exit(2);
}
const recall = args.includes('--recall');
if (recall && (bad || hang > 0 || dies !== undefined)) {
  process.stderr.write('fleet: --recall follows a good rollout: leave out --bad, --hang and --watch-dies-after-wave\n');
  process.exit(2);
}

try {
  process.stdout.write(
    `aks-node-controller: a hotfix rollout rehearsed over ${nodes} sandboxed nodes (offline, loopback only)${bad ? ', with a BAD hotfix' : ''}${hang ? `, ${hang} node(s) of the first wave hang` : ''}${gated ? ', gated steps' : ''}${dies ? `, the watch dies after wave ${dies}` : ''}\n`,
  );
  const result = await rehearseFleet({
    nodes,
    bad,
    hang,
    gated,
    recall,
    ...(dies === undefined ? {} : { watchDiesAfterWave: dies }),
    say: (text) => process.stdout.write(text),
  });
  const s = result.summary;
  process.stdout.write(
    `\n${s.watchDied !== null && !s.halted ? `the watch died after wave ${s.watchDied}; rollout ${s.rolloutState}: ${s.tookHotfix} of ${s.nodes} nodes on the hotfix` : s.halted ? `HALTED after wave ${s.haltedAt?.wave} (${s.haltedAt?.time}): the hotfix reached ${s.tookHotfix} of ${s.nodes} nodes` : `completed: ${s.tookHotfix} of ${s.nodes} nodes on the hotfix`}, ${s.failed} failed, ${s.timedOut} timed out; the watch exited ${result.watchExit}; ${(result.durationMs / 1000).toFixed(0)} s\n`,
  );
  if (recall)
    process.stdout.write(
      `recall: ${s.recalledFlagged} of ${s.tookHotfix} nodes on the recalled hotfix flagged without a reboot; ${s.toReimage} to reimage\n`,
    );
  if (output === 'json') process.stdout.write(`${JSON.stringify(s)}\n`);
  const firstWave = Math.floor(nodes / 4);
  const good = !s.halted && s.failed === 0 && s.tookHotfix === s.nodes;
  const expected = bad
    ? s.halted && s.haltedAt?.wave === 1
    : hang > 0
      ? s.halted && s.timedOut >= hang
      : gated && dies !== undefined
        ? s.rolloutState === 'stalled' && s.tookHotfix <= (dies === 1 ? firstWave : nodes / 2)
        : recall
          ? good && s.recalledFlagged === s.nodes && s.toReimage === s.nodes
          : good;
  process.exitCode = expected ? 0 : 1;
} catch (error) {
  process.stderr.write(`fleet failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

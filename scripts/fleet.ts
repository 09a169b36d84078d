// `npm run fleet -- [--nodes N] [--bad] [--recall] [-o json]`: rehearses a whole hotfix rollout on this machine
// (test/fakes/fleet.ts): the apiserver stand-in, a signed repository with a hotfix, N sandboxed nodes
// booting through the real launcher, a signed schedule 25% -> 50% -> 100% seconds apart and the real
// `hotfix rollout watch` beside them. The rollout table is printed as it moves. With --bad the hotfix
// breaks provisioning on every node that takes it, and the watch must halt after the first wave.
// -o json ends with one summary object. Nothing is kept.
import { rehearseFleet } from '../test/fakes/fleet.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: npm run fleet -- [--nodes N] [--bad] [--recall] [-o json]\n\nRehearses a hotfix rollout over N sandboxed nodes (default 12) on this machine; --bad ships a hotfix that\nbreaks provisioning, which the watch must halt after the first wave. --recall: after the good rollout\ncompleted, a recall of the hotfix is published and the report timer runs on every node (no reboot): each\nnode on the recalled version is flagged AKSNodeControllerRecalled. -o json ends with a summary object.\n',
  );
  process.exit(0);
}
const known = new Set(['--nodes', '--bad', '--recall', '-o', '--output']);
const flagValue = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
for (const [i, a] of args.entries()) {
  const isValue = i > 0 && ['--nodes', '-o', '--output'].includes(args[i - 1]!);
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
const recall = args.includes('--recall');
if (bad && recall) {
  process.stderr.write('fleet: --recall follows a good rollout: leave out --bad\n');
  process.exit(2);
}

try {
  process.stdout.write(
    `aks-node-controller: a hotfix rollout rehearsed over ${nodes} sandboxed nodes (offline, loopback only)${bad ? ', with a BAD hotfix' : ''}\n`,
  );
  const result = await rehearseFleet({ nodes, bad, recall, say: (text) => process.stdout.write(text) });
  const s = result.summary;
  process.stdout.write(
    `\n${s.halted ? `HALTED after wave ${s.haltedAt?.wave} (${s.haltedAt?.time}): the bad hotfix reached ${s.tookHotfix} of ${s.nodes} nodes` : `completed: ${s.tookHotfix} of ${s.nodes} nodes on the hotfix`}, ${s.failed} failed; the watch exited ${result.watchExit}; ${(result.durationMs / 1000).toFixed(0)} s\n`,
  );
  if (recall)
    process.stdout.write(
      `recall: ${s.recalledFlagged} of ${s.tookHotfix} nodes on the recalled hotfix flagged without a reboot; ${s.toReimage} to reimage\n`,
    );
  if (output === 'json') process.stdout.write(`${JSON.stringify(s)}\n`);
  const good = !s.halted && s.failed === 0 && s.tookHotfix === s.nodes;
  const expected = bad
    ? s.halted && s.haltedAt?.wave === 1
    : recall
      ? good && s.recalledFlagged === s.nodes && s.toReimage === s.nodes
      : good;
  process.exitCode = expected ? 0 : 1;
} catch (error) {
  process.stderr.write(`fleet failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

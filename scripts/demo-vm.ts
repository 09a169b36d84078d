// `npm run demo:vm [-- --arch amd64|arm64] [-o json]`: the main job on a real machine. Builds (or reuses) the VM image the way a
// VHD is built (vhd/vm/build-image.sh), starts the stand-ins on loopback (apiserver with the hotfix
// pointer, signed apt repository with the hotfix that carries the fixed provisioning script, and its
// delta), writes a NoCloud seed with our own custom data, boots the VM under qemu and prints what the
// node did, from inside the guest: the launcher's journal, `aks-node-controller status`, the summary.
// --arch (default: this machine's) picks the guest: arm64 boots under qemu-system-aarch64 (TCG) with the
// arm64 agent, its hotfix and delta. With -o json the last line is one JSON object (booted, arch,
// cloudInitSeconds, launcherExit, provisionExitCode, binary, agentVersion, scripts, seconds).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BAKED_VERSION, HOTFIX_VERSION } from '../test/fakes/boot.ts';
import { buildHotfixPackages } from '../test/fakes/repos.ts';
import { FIXED_HELPER, FIXED_START, SCRIPT_LABEL, writePayloadDir } from '../test/fakes/script-fix.ts';
import { HOST_ARCH, type VmArch } from '../vhd/vm/qemu.ts';
import {
  bootNode,
  buildTypicalFixFor,
  createNode,
  nodeCustomData,
  pauseConditions,
  prepareVmImage,
  startStandIns,
  summarize,
  VM_DIR,
} from '../test/fakes/vm-node.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const json = flag('-o') === 'json';
const say = (line = '') => process.stdout.write(`${line}\n`);

function archOf(value: string | undefined): VmArch {
  if (value === undefined) return HOST_ARCH;
  if (value === 'amd64' || value === 'arm64') return value;
  throw new Error(`--arch must be amd64 or arm64, not ${value}`);
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const arch = archOf(flag('--arch'));
  say(`aks-node-controller: a first boot in a real ${arch} VM (qemu; the guest reaches only loopback stand-ins)`);
  const image = await prepareVmImage(pauseConditions(FIXED_START, FIXED_HELPER), (l) => say(`  ${l}`), arch);
  say(`base: ${image.base} (${arch}): cache ${image.baseCache === 'hit' ? 'hit' : `miss, built in ${image.baseSeconds} s`}`);
  say(
    `image: ${image.dir} (${image.reused ? 'reused: inputs unchanged' : `built in ${image.imageSeconds} s`}; ${image.seconds.toFixed(1)} s with the agent build)`,
  );
  const work = join(VM_DIR, 'demo');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const payload = writePayloadDir(join(work, 'payload'));
  const fix = buildTypicalFixFor(HOTFIX_VERSION, join(work, 'fix'), arch, ['--scripts', payload, '--scripts-label', SCRIPT_LABEL]);
  const packages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'hotfix'), { bin: fix, deltaFrom: [image.baked], arch });
  const stand = await startStandIns(work, packages, { hotfixes: { '202604.01': HOTFIX_VERSION } }, arch);
  try {
    say(`stand-ins: apiserver ${stand.api.url}, apt repository ${stand.repo.url} (aks-node-controller{,-delta} ${HOTFIX_VERSION})`);
    for (const f of stand.forwards) say(`  guest ${f.guestAddress}:${f.guestPort} -> host 127.0.0.1:${f.hostPort}`);
    const customData = nodeCustomData(image.hostAgent, stand.api, work);
    const node = createNode(join(work, 'node'), image.disk, customData, `i-demo-${Date.now()}`);
    say(
      `baked agent ${BAKED_VERSION} (${arch}); the image's provision_start.sh has a bug; hotfix ${HOTFIX_VERSION} carries ${SCRIPT_LABEL}`,
    );
    say(`booting ${arch === 'arm64' ? 'qemu-system-aarch64 -M virt' : 'qemu-system-x86_64'} (TCG is slow: a few minutes) ...`);
    const run = await bootNode(node, { image, stand, boot: 1, probe: true });
    const r = run.report!;
    say(`\nthe launcher (journalctl -u aks-node-controller, inside the guest):`);
    // Each launcher message is in the unit's journal twice (its stdout, and `logger`): shown once.
    const lines = r.launcher
      .trim()
      .split('\n')
      .filter((x) => !x.startsWith('{'));
    for (const [i, l] of lines.entries()) if (l !== lines[i - 1]) say(`  ${l}`);
    say(`\naks-node-controller status (inside the guest):`);
    for (const l of r.status.trimEnd().split('\n')) say(`  ${l}`);
    say(`\nprovision-wait (the extension stand-in) printed: ${r.provisionWait.trim().slice(0, 100)}...`);
    say(`network from inside: ${r.network.trim().split('\n').join('; ')}`);
    say(`console: ${join(node.dir, 'console-1.log')}; results: ${r.dir}`);
    const summary = summarize(run, (Date.now() - t0) / 1000);
    say(json ? JSON.stringify(summary) : `\nsummary: ${JSON.stringify(summary)}`);
    process.exitCode = summary.provisionExitCode === '0' && summary.launcherExit === 0 ? 0 : 1;
  } finally {
    await stand.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo:vm failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

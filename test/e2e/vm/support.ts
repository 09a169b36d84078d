// Shared by the real-boot tests (test/e2e/vm/): each test's work directory under the git-ignored .vm/,
// the stand-ins of a boot with the typical fix and its script payload, the agent's guest-agent event
// messages of a boot, and one timing line per image build and boot (the VM phase's cost, read from the
// test output; never asserted).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HOTFIX_VERSION } from '../../fakes/boot.ts';
import { buildHotfixPackages } from '../../fakes/repos.ts';
import { SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { type BootReport, type BuiltImage, buildTypicalFixFor, type StandIns, startStandIns, VM_DIR } from '../../fakes/vm-node.ts';

export function workDir(name: string): string {
  const dir = join(VM_DIR, 'tests', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The messages (before ` | `) of a task's events, in order. */
export function taskMessages(r: BootReport, task: string): string[] {
  return r.events.filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`).map((e) => e.Message!.split(' | ')[0]!);
}

export function logTiming(what: string, detail: string): void {
  process.stdout.write(`  [vm] ${what}: ${detail}\n`);
}

/** Says how the image came: the base root from the cache or built, the image reused or built. */
export function logImage(label: string, image: BuiltImage): void {
  const base = `base ${image.base}: cache ${image.baseCache}${image.baseCache === 'built' ? ` in ${image.baseSeconds} s` : ''}`;
  const built = image.reused
    ? `image reused (${image.seconds.toFixed(1)} s)`
    : `image built in ${image.imageSeconds} s, ${image.seconds.toFixed(1)} s in all`;
  logTiming(label, `${base}; ${built}`);
}

/**
 * The stand-ins of a hotfix boot: the typical fix at HOTFIX_VERSION for the image's architecture, built
 * with the script payload, in the signed repository as a package and a delta from the image's baked
 * agent, and the apiserver with the pointer to it.
 */
export function payloadStandIns(work: string, image: BuiltImage): Promise<StandIns> {
  const payload = writePayloadDir(join(work, 'payload'));
  const fix = buildTypicalFixFor(HOTFIX_VERSION, join(work, 'fix'), image.arch, ['--scripts', payload, '--scripts-label', SCRIPT_LABEL]);
  const packages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'hotfix'), { bin: fix, deltaFrom: [image.baked], arch: image.arch });
  return startStandIns(work, packages, { hotfixes: { '202604.01': HOTFIX_VERSION } }, image.arch);
}

// Shared by the real-boot tests (test/e2e/vm/): each test's work directory under the git-ignored .vm/,
// the agent's guest-agent event messages of a boot, and one timing line per image build and boot (the
// VM phase's cost, read from the test output; never asserted).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type BootReport, VM_DIR } from '../../fakes/vm-node.ts';

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

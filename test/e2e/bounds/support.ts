// Shared pieces of the fault-bound tests: FIFOs and device links planted where the agent reads, the
// measured duration of every run (the worst case per command is printed at the end of each file, for
// the closing note), and the assertions every fail-open run shares.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';

/** Replaces the on-disk path with a FIFO nobody writes to (a blocking open would hang for ever). */
export function plantFifo(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true, recursive: true });
  execFileSync('mkfifo', ['-m', '0644', path]);
}

/** Replaces the path with a symlink to a device (/dev/zero: endless zeros). */
export function plantDevice(path: string, device = '/dev/zero'): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true, recursive: true });
  symlinkSync(device, path);
}

const worst = new Map<string, { ms: number; fault: string }>();

/** Records a run's wall time under its command and asserts it stayed under `boundMs`. */
export function measured(command: string, fault: string, durationMs: number, boundMs: number): void {
  const prev = worst.get(command);
  if (!prev || durationMs > prev.ms) worst.set(command, { ms: durationMs, fault });
  assert.ok(durationMs < boundMs, `${command} with ${fault} took ${durationMs} ms (bound ${boundMs} ms)`);
}

/** Prints the worst run per command of the file that just finished (the files share one process). */
export function printWorstCases(file: string): void {
  for (const [command, { ms, fault }] of worst) console.log(`  [bounds] ${file}: ${command} worst ${ms} ms (${fault})`);
  worst.clear();
}

/** Temp files of atomic writes left in a directory (none may survive a run). */
export function leftoverTemps(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('.aks-node-controller-') || n.includes('.tmp-')) : [];
}

export const EVENTS_DIR = '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';

/** Every file in the events directory is a whole event: valid JSON with a TaskName, no temp left over. */
export function assertWholeEvents(eventsDir: string): void {
  if (!existsSync(eventsDir)) return;
  for (const name of readdirSync(eventsDir)) {
    assert.ok(name.endsWith('.json'), `stray file in the events directory: ${name}`);
    const event = JSON.parse(readFileSync(join(eventsDir, name), 'utf8')) as { TaskName?: string };
    assert.ok(event.TaskName?.startsWith('AKS.AKSNodeController.'), `not a whole event: ${name}`);
  }
}

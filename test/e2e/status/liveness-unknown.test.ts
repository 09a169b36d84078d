// Issue 40 item 10: liveness without a boot id. In the by-hand sandbox (no <root>/proc) a run without a
// result is never called "in progress ... running": status says whether it runs cannot be told. With a
// readable /proc but no boot id in the log, a pid that is gone runs in no boot: INTERRUPTED, and its next
// step (reboot: the unit provisions again while provision.complete is absent).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';

const roots: string[] = [];
test.after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A root whose log has a provision start line (no boot id) and no result: a run killed a minute ago. */
function killedRun(pid: number): string {
  const root = mkdtempSync(join(tmpdir(), 'anc-liveness-'));
  roots.push(root);
  mkdirSync(join(root, 'var/log/azure'), { recursive: true });
  const time = new Date(Date.now() - 60_000).toISOString();
  const line = {
    time,
    level: 'INFO',
    msg: 'aks-node-controller started',
    task: 'Provision',
    version: '202604.01.0',
    binary: 'baked',
    pid: String(pid),
  };
  writeFileSync(join(root, 'var/log/azure/aks-node-controller.log'), `${JSON.stringify(line)}\n`);
  return root;
}

test('no <root>/proc: whether the run lives cannot be told, and status says so (never "in progress ... running")', async () => {
  const root = killedRun(4_000_000);
  const r = await runAnc(['status'], { root });
  const headline = r.stdout.split('\n')[0]!;
  assert.match(headline, /^in-progress: provisioning started at \S+ \S+ UTC \([^)]* ago\) and has no result yet; /);
  assert.match(
    headline,
    'whether its process (pid 4000000) still runs cannot be told here (no boot id or /proc under this root to compare): running, or killed without a result',
  );
});

test('a readable /proc and no boot id in the log: a pid that is gone is INTERRUPTED, with reboot as its next step', async () => {
  const root = killedRun(4_000_000); // above any pid_max: never a live process
  symlinkSync('/proc', join(root, 'proc'));
  const r = await runAnc(['status'], { root });
  assert.is(r.exitCode, 5, r.stdout);
  const headline = r.stdout.split('\n')[0]!;
  assert.match(
    headline,
    /^INTERRUPTED: provisioning started at .* and never finished: its process \(pid 4000000\) is gone without writing a result/,
  );
  assert.ok(headline.endsWith('; reboot the node: the unit runs provisioning again while provision.complete is absent'), headline);
});

test.run();

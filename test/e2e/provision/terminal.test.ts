// Node commands speak to a person on a terminal (a real pty through script(1)): one human line per
// outcome on stderr, no JSON lines; under systemd (stderr a pipe, as in the journal) nothing changes:
// the JSON lines, and no human line.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, baseEnv, makeSandbox, runAnc, type Sandbox } from '../harness.ts';
import { failingScript, makeNode, successScript } from './support.ts';

const sandboxes: Sandbox[] = [];
test.after(() => {
  for (const s of sandboxes) s.cleanup();
});

/** The command on a pty: what a person sees (stdout and stderr share the terminal). */
function onTerminal(root: string, args: string[], env: Record<string, string> = {}): { status: number | null; seen: string } {
  const quoted = [BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const run = spawnSync('script', ['-qec', quoted, '/dev/null'], { env: { ...baseEnv(root), ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, seen: run.stdout.replace(/\r\n/g, '\n') };
}

function sandbox(): Sandbox {
  const box = makeSandbox('anc-terminal-');
  sandboxes.push(box);
  return box;
}

test('provision-wait: the timeout in one line on a terminal; the journal keeps its JSON lines and gets no human line', async () => {
  const box = sandbox();
  const tty = onTerminal(box.root, ['provision-wait', '--timeout', '1']);
  assert.is(tty.status, 1);
  assert.match(
    tty.seen,
    // The human line on stderr, then provision-wait's stdout: provision.json, here an empty line.
    /^provision-wait: provision\.complete did not appear within 1 s; provisioning has not finished: run `aks-node-controller status`\n\n$/,
    tty.seen,
  );
  const journal = await runAnc(['provision-wait', '--timeout', '1'], { root: box.root });
  assert.is(journal.exitCode, 1);
  assert.not.match(journal.stderr, /provision-wait: /);
  assert.match(journal.stderr, /"level":"ERROR","msg":"aks-node-controller failed","error":"context deadline exceeded/);
});

test('check-hotfix: the fail-open outcome and its reason in one line; nothing staged', async () => {
  const box = sandbox();
  const tty = onTerminal(box.root, ['check-hotfix']);
  assert.is(tty.status, 0);
  assert.match(
    tty.seen,
    /^check-hotfix: failed \(fail-open\): configmap fetch failed and no cold-start pointer present: .*; nothing staged\n$/,
  );
  assert.not.match(tty.seen, /"time":/);
  const journal = await runAnc(['check-hotfix'], { root: box.root });
  assert.not.match(journal.stderr, /check-hotfix: failed/);
  assert.match(journal.stderr, /"msg":"check-hotfix completed with error \(fail-open\)"/);
});

test('download-hotfix: no pointer is one line saying nothing is to be done', async () => {
  const box = sandbox();
  const tty = onTerminal(box.root, ['download-hotfix']);
  assert.is(tty.status, 0);
  assert.match(tty.seen, /^download-hotfix: noHotfix: no pointer, or it requests nothing for this base\n$/);
});

test('provision: success and a failing script each say what happened, with the exit code named', async () => {
  const ok = makeNode(successScript());
  sandboxes.push(ok);
  const good = onTerminal(ok.root, ['provision', `--provision-config=${ok.configPath}`]);
  assert.is(good.status, 0, good.seen);
  // The scripts' own output reaches the terminal too (the launcher's pty); the agent's line comes last.
  assert.match(good.seen, /(^|\n)provision: provisioning succeeded in (\d+ ms|\d\.\d s|\d\d+ s)\n$/, good.seen);
  assert.not.match(good.seen, / 0\.0 s/);
  assert.not.match(good.seen, /"time":/);
  const bad = makeNode(failingScript(50));
  sandboxes.push(bad);
  const failed = onTerminal(bad.root, ['provision', `--provision-config=${bad.configPath}`]);
  assert.is(failed.status, 50);
  assert.match(
    failed.seen,
    /(^|\n)provision: the provisioning scripts failed after (\d+ ms|\d\.\d s|\d\d+ s) with exit code 50 ERR_OUTBOUND_CONN_FAIL \(.+\); run `aks-node-controller status`\n$/,
    failed.seen,
  );
  // provision-wait on the same node: the failure said once, the exit code named (no "failed: provision failed:").
  const waited = onTerminal(bad.root, ['provision-wait', '--timeout', '5']);
  assert.is(waited.status, 1);
  assert.match(
    waited.seen,
    /^provision-wait: provisioning failed with exit code 50 ERR_OUTBOUND_CONN_FAIL \(.+\); run `aks-node-controller status`\n/,
    waited.seen,
  );
  assert.not.match(waited.seen, /failed: provision failed/);
  // Under systemd: the JSON lines as before, no human line.
  const journal = await runAnc(['provision', `--provision-config=${bad.configPath}`], { root: bad.root });
  assert.is(journal.exitCode, 50);
  assert.not.match(journal.stderr, /^provision: /m);
  assert.match(journal.stderr, /"level":"ERROR"/);
});

test.run();

// Spec 4.5 / 5 rows on the compiled binary: provision and provision-wait run in parallel in a sandbox
// root with stand-in scripts; a waiter started before provision and one started after see the same.
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';
import {
  PROVISION_COMPLETE,
  PROVISION_JSON,
  assertNoSecrets,
  eventMessages,
  everything,
  failingScript,
  makeNode,
  mode,
  provisionJson,
  selfReportingFailure,
  sleep,
  spawnAnc,
  startWait,
  successScript,
} from './support.ts';

async function provisionWithWaiters(script: string) {
  const node = makeNode(script);
  const early = startWait(node);
  await sleep(150); // the early waiter is blocked on inotify before provisioning starts
  const run = await runAnc(['provision', `--provision-config=${node.configPath}`], { root: node.root });
  const before = await early;
  const after = await startWait(node);
  return { node, run, before, after };
}

test('success: the script owns both files; the agent writes nothing; both waiters exit 0', async () => {
  const { node, run, before, after } = await provisionWithWaiters(successScript());
  try {
    assert.is(run.exitCode, 0, run.stderr);
    assert.ok(run.stdout.includes('provisioning stand-in on stdout'), 'child stdout passes through');
    assert.ok(run.stderr.includes('provisioning stand-in on stderr'), 'child stderr passes through');
    const json = provisionJson(node)!;
    assert.is(json, '{"ExitCode":"0","Output":"done","Error":"","ExecDuration":"1"}', 'the script file is untouched');
    for (const w of [before, after]) {
      assert.is(w.exitCode, 0, w.stderr);
      assert.is(w.stdout, json + '\n');
    }
    assert.equal(
      eventMessages(node).filter((m) => m.includes('.Provision|')),
      ['AKS.AKSNodeController.Provision|Informational|Starting', 'AKS.AKSNodeController.Provision|Informational|Completed'],
    );
    assert.ok(eventMessages(node).includes('AKS.AKSNodeController.ProvisionWait|Informational|Completed'));
    assertNoSecrets(everything(node, [run, before, after]));
  } finally {
    node.cleanup();
  }
});

test('script failure without its own status: fallback provision.json (0600) + provision.complete (0600), exit = script code', async () => {
  const { node, run, before, after } = await provisionWithWaiters(failingScript(7));
  try {
    assert.is(run.exitCode, 7);
    const json = provisionJson(node)!;
    assert.is(json, JSON.stringify({ ExitCode: '7', Error: 'exit status 7', Output: 'step output\n\nstep failed\n' }));
    assert.is(mode(node, PROVISION_JSON), 0o600);
    assert.is(mode(node, '/var/log/azure/aks'), 0o755);
    assert.is(mode(node, PROVISION_COMPLETE), 0o600);
    assert.is(node.read(PROVISION_COMPLETE), '');
    for (const w of [before, after]) {
      assert.is(w.exitCode, 1);
      assert.is(w.stdout, json + '\n');
      assert.ok(
        w.stderr.includes('provision failed: exitCode=7 error=exit status 7 output=\\"step output\\\\n\\\\nstep failed\\\\n\\"'),
        w.stderr,
      );
    }
    const provisionEvents = eventMessages(node).filter((m) => m.includes('.Provision|'));
    assert.equal(provisionEvents[1], 'AKS.AKSNodeController.Provision|Error|aks-node-controller exited with error exit status 7');
    assertNoSecrets(everything(node, [run, before, after]));
  } finally {
    node.cleanup();
  }
});

test('script failure with its own provision.json: never overwritten; the sentinel is still created', async () => {
  const { node, run, before, after } = await provisionWithWaiters(selfReportingFailure(5));
  try {
    assert.is(run.exitCode, 5);
    const json = provisionJson(node)!;
    assert.is(json, '{"ExitCode":"5","Output":"script said why","Error":""}');
    assert.is(mode(node, PROVISION_COMPLETE), 0o600);
    for (const w of [before, after]) {
      assert.is(w.exitCode, 1);
      assert.is(w.stdout, json + '\n');
    }
  } finally {
    node.cleanup();
  }
});

test('crash: a child killed by a signal -> ExitCode "-1", agent exit 255, waiters exit 1', async () => {
  const { node, run, before, after } = await provisionWithWaiters('#!/bin/bash\necho about to die\nkill -KILL $$\n');
  try {
    assert.is(run.exitCode, 255);
    const parsed = JSON.parse(provisionJson(node)!);
    assert.is(parsed.ExitCode, '-1');
    assert.is(parsed.Error, 'signal: killed');
    for (const w of [before, after]) assert.is(w.exitCode, 1);
    assert.ok(before.stderr.includes('provision failed: exitCode=-1'), before.stderr);
  } finally {
    node.cleanup();
  }
});

test('SIGTERM to the agent reaches the script group; status files are written; exit 255', async () => {
  const node = makeNode('#!/bin/bash\necho started > "$AKS_NODE_ROOT/started"\nsleep 30 &\nwait\n');
  try {
    const waiter = startWait(node);
    const child = spawnAnc(['provision', `--provision-config=${node.configPath}`], node.root);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    for (let i = 0; i < 100 && !existsSync(node.path('/started')); i++) await sleep(50);
    child.kill('SIGTERM');
    const code = await exited;
    assert.is(code, 255);
    const parsed = JSON.parse(provisionJson(node)!);
    assert.is(parsed.ExitCode, '-1');
    assert.is(parsed.Error, 'signal: terminated');
    const w = await waiter;
    assert.is(w.exitCode, 1);
  } finally {
    node.cleanup();
  }
});

test.run();

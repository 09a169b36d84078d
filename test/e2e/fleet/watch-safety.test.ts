// The watch fails safe (issue 37): it trusts nothing a node writes (a hostile report is `unreadable` and the
// halt still comes from the other nodes' failures), it never writes over a pointer published after it started
// (exit 5), a watch that cannot see halts (exit 4), `--observe` reads a halted rollout without writing, and
// Ctrl-C says in one line that the rollout is unguarded. The gated rollout itself: rehearsal.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type FakeApiServer, type FakeApiServerOptions, kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { enforceWatchArgs } from '../../fakes/fleet.ts';
import { annotateNode as annotate, reportText } from '../../fakes/node-report.ts';
import { fleetKeyPair } from '../../fakes/pointer-keys.ts';
import { baseEnv, runAnc } from '../harness.ts';

const TOKEN = 'publisher.0123456789abcdef';
const CM = 'kube-system/anc-hotfix-version';
const work = mkdtempSync(join(tmpdir(), 'anc-watch-safety-'));
const file = (name: string, text: string) => {
  writeFileSync(join(work, name), text);
  return join(work, name);
};
const PAST = new Date(Date.now() - 3600_000).toISOString().slice(0, 16);
const FUTURE = new Date(Date.now() + 3600_000).toISOString().slice(0, 16);

const report = (fields: { path?: string; exitCode?: number; running?: string; base?: unknown }) =>
  reportText({ ...fields, wave: { percent: 25 } });

const { key, keys } = fleetKeyPair(work);

async function signed(name: string, args: string[]): Promise<string> {
  const rendered = await runAnc(['hotfix', 'pointer', 'render', ...args]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const out = await runAnc(['hotfix', 'pointer', 'sign', '--key', key, '--key-id', 'fleet-a', file(`${name}.yaml`, rendered.stdout)]);
  assert.is(out.exitCode, 0, out.stderr);
  return file(`${name}.signed.yaml`, out.stdout);
}

async function publish(api: FakeApiServer, path: string): Promise<void> {
  const data = (await import('yaml')).parse((await import('node:fs')).readFileSync(path, 'utf8')).data;
  api.configMaps.set(CM, data);
}

/** A live signed pointer at serial 5 (25% an hour ago, 100% in an hour), three nodes, and a pre-signed halt (serial 6). */
async function fleet(
  options: Pick<FakeApiServerOptions, 'override'> = {},
): Promise<{ api: FakeApiServer; kubeconfig: string; halt: string }> {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } }, ...options });
  const kubeconfig = file(`publisher-${api.port}.kubeconfig`, kubeconfigFor(api, { token: TOKEN }));
  const pointer = await signed(`pointer-${api.port}`, [
    '--hotfix',
    '202604.01=202604.01.1',
    '--schedule',
    `202604.01=25@${PAST}Z,100@${FUTURE}Z`,
    '--serial',
    '5',
    '--expires',
    '2099-01-01T00:00:00Z',
  ]);
  await publish(api, pointer);
  annotate(api, 'n0', report({ path: 'hotfix' }));
  annotate(api, 'n1', report({}));
  annotate(api, 'n2', report({}));
  const halt = await signed(`halt-${api.port}`, ['--halt', '--kubeconfig', kubeconfig]);
  return { api, kubeconfig, halt };
}

const watchArgs = (kubeconfig: string, halt: string, extra: string[] = []) => enforceWatchArgs(kubeconfig, halt, keys, '0.3', extra);
const serialOf = (api: FakeApiServer) => JSON.parse((api.configMaps.get(CM) as Record<string, string>)['hotfixes.json']!).serial;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a hostile report (a toString object, a number, bidi text) is unreadable, never a crash; the halt still comes', async () => {
  const { api, kubeconfig, halt } = await fleet();
  try {
    annotate(api, 'evil-0', report({ base: { toString: 1, valueOf: 2 } }));
    annotate(api, 'evil-1', JSON.stringify({ ...JSON.parse(report({})), platform: 7 }));
    annotate(api, 'evil-2', report({ running: '202604.01.1\u202e', path: 'hotfix', exitCode: 34 }));
    // A node of a base the pointer does not target claims a failure: listed apart, never halts.
    annotate(api, 'other-0', report({ base: '202511.03', running: '202511.03.7', path: 'hotfix', exitCode: 34 }));
    const status = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--keys', keys]);
    assert.is(status.exitCode, 0, `${status.stdout}${status.stderr}`);
    assert.match(status.stdout, /4 node\(s\) not counted toward any rollout \(they never halt one\):/);
    assert.match(status.stdout, /evil-0: unreadable \(hotfix\.base is not a string\)/);
    assert.match(status.stdout, /evil-2: unreadable \(running holds control or bidirectional characters\)/);
    assert.match(status.stdout, /other-0: untargeted \(base 202511\.03 is not targeted by the live pointer\)/);
    assert.not.match(status.stdout, /\u202e/);
    const watching = runAnc(watchArgs(kubeconfig, halt), { timeoutMs: 30_000 });
    await sleep(1500);
    assert.is(serialOf(api), 5, 'hostile and untargeted reports halt nothing');
    annotate(api, 'n1', report({ path: 'hotfix', exitCode: 34 }));
    const run = await watching;
    assert.is(run.exitCode, 3, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /unreadable=3 untargeted=1 \(max 0\) state=in-progress -> continue/);
    assert.match(run.stdout, /-> HALT: applying/);
    assert.is(serialOf(api), 6);
    // The table printed at a halt is the post-halt one: the base is halted, frozen at 25%, still admitting.
    assert.match(run.stdout, /rollout at \S+, pointer serial 6: halted\n/);
    assert.match(
      run.stdout,
      /202604\.01 ubuntu-22\.04\/amd64: halted by pointer serial 6 \(signed \S+\), frozen at 25%: nodes in that wave still take the hotfix/,
    );
    // A restarted watch observes the halted rollout instead of refusing; it writes nothing.
    const requests = api.requests.length;
    const observed = await runAnc([
      'hotfix',
      'rollout',
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--observe',
      '--keys',
      keys,
      '--interval',
      '0.3',
      '--timeout',
      '1s',
      '-o',
      'json',
    ]);
    assert.is(observed.exitCode, 6, observed.stderr);
    assert.match(observed.stdout, /watch started \(--observe, read-only\): pointer serial 6/);
    assert.match(observed.stdout, /state=halted -> continue/);
    assert.is(JSON.parse(observed.stdout.trim().split('\n').pop()!).state, 'halted');
    assert.ok(
      api.requests.slice(requests).every((r) => r.method === 'GET'),
      'observe only reads',
    );
  } finally {
    await api.close();
  }
});

test('a pointer published during the watch is never overwritten by its older halt: exit 5, the new pointer stays', async () => {
  const { api, kubeconfig, halt } = await fleet();
  try {
    const watching = runAnc(watchArgs(kubeconfig, halt), { timeoutMs: 30_000 });
    await sleep(1200);
    // A release engineer publishes serial 7 (a recall plus a fixed version) while the watch runs; then a node fails.
    const fixed = await signed('fixed', [
      '--hotfix',
      '202604.01=202604.01.2',
      '--recall',
      '202604.01.1',
      '--serial',
      '7',
      '--expires',
      '2099-01-01T00:00:00Z',
    ]);
    await publish(api, fixed);
    annotate(api, 'n1', report({ path: 'hotfix', exitCode: 34 }));
    const run = await watching;
    assert.is(run.exitCode, 5, `${run.stdout}${run.stderr}`);
    assert.match(
      run.stdout,
      /-> STOP: pointer serial 7 was published after the watch started \(serial 5\); the halt \(serial 6\) would overwrite it, so nothing is written/,
    );
    assert.not.match(run.stdout, /halt applied/);
    assert.is(serialOf(api), 7, 'the newer pointer stands');
  } finally {
    await api.close();
  }
});

test('a watch that cannot see halts: the Node list unreadable past --blind-timeout applies the halt, exit 4', async () => {
  // The Node list starts failing (RBAC changed, a broken proxy) while the ConfigMap can still be written.
  const blind = { on: false };
  const { api, kubeconfig, halt } = await fleet({
    override: (req, res) => {
      if (!blind.on || !req.url?.startsWith('/api/v1/nodes')) return false;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"kind":"Status","status":"Failure","message":"the node list is unavailable","code":503}');
      return true;
    },
  });
  try {
    const watching = runAnc(watchArgs(kubeconfig, halt, ['--blind-timeout', '1s']), { timeoutMs: 30_000 });
    await sleep(1200);
    blind.on = true;
    // The open watch stream breaks too (a real apiserver ends it at its timeout): the relist meets the 503.
    api.nodes.endWatches('break');
    const run = await watching;
    assert.is(run.exitCode, 4, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /poll failed: .*; blind for \d+ s -> a watch that cannot see halts after 1 s/);
    assert.match(run.stdout, /-> BLIND HALT: a watch that cannot see halts; applying/);
    assert.match(run.stdout, /halt applied: pointer serial 6 is live/);
    assert.is(serialOf(api), 6);
  } finally {
    await api.close();
  }
});

test('Ctrl-C: one line says the rollout is unguarded and that an ungated schedule keeps widening; exit 130', async () => {
  const { api, kubeconfig, halt } = await fleet();
  try {
    const child = spawn(join(process.cwd(), 'dist/aks-node-controller'), watchArgs(kubeconfig, halt), {
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    await sleep(1200);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.is(code, 130, out);
    assert.match(
      out,
      /watch interrupted: the rollout is now unguarded; its schedule is NOT gated and keeps widening on the clock to 100% with nobody watching\./,
    );
    assert.is(serialOf(api), 5, 'an interrupted watch writes nothing');
  } finally {
    await api.close();
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();

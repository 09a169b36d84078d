// The fleet side end to end: `hotfix rollout status` over Node objects in the apiserver stand-in (buckets,
// exit codes), `hotfix pointer render --halt`, and `hotfix rollout watch` applying a pre-signed halt when
// a node that took the hotfix fails (and refusing a halt nodes would refuse), and the pointer's recall: nodes
// that gave it up, nodes that failed and quarantined the hotfix, and nodes still on a recalled version.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import { enforceWatchArgs } from '../../fakes/fleet.ts';
import { REPORT_ANNOTATION, annotateNode as annotate, reportText } from '../../fakes/node-report.ts';
import { fleetKeyPair } from '../../fakes/pointer-keys.ts';
import { runAnc } from '../harness.ts';
import { fastBounds, joinedNode } from './support.ts';

const TOKEN = 'publisher.0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'anc-rollout-'));
const file = (name: string, text: string) => {
  writeFileSync(join(work, name), text);
  return join(work, name);
};

function report(fields: {
  path?: string;
  decision?: string;
  exitCode?: number;
  name?: string;
  bootId?: string;
  joinsAt?: string;
  quarantine?: unknown;
}) {
  const { joinsAt, ...rest } = fields;
  return reportText({
    ...rest,
    name: fields.name ?? (fields.exitCode ? 'UNKNOWN' : undefined),
    wave: { percent: 25, ...(joinsAt ? { joinsAt } : {}) },
    signed: false,
  });
}

const FUTURE = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const PAST = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function fleet(): Promise<{ api: FakeApiServer; kubeconfig: string }> {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } } });
  const kubeconfig = file(`publisher-${api.port}.kubeconfig`, kubeconfigFor(api, { token: TOKEN }));
  // The live pointer: serial 5, 25% since an hour ago, 100% in an hour.
  const rendered = await runAnc([
    'hotfix',
    'pointer',
    'render',
    '--hotfix',
    '202604.01=202604.01.1',
    '--schedule',
    `202604.01=25@${PAST.slice(0, 16)}Z,100@${FUTURE.slice(0, 16)}Z`,
    '--serial',
    '5',
    '--expires',
    '2099-01-01T00:00:00Z',
    '-o',
    'json',
  ]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  api.configMaps.set('kube-system/anc-hotfix-version', JSON.parse(rendered.stdout).data);
  annotate(api, 'n0', report({ path: 'hotfix' }));
  annotate(api, 'n1', report({ decision: 'notInWave', joinsAt: `${FUTURE.slice(0, 16)}:00Z` }));
  annotate(api, 'n2', undefined);
  // Reported in boot-1, the kubelet says boot-2: the fleet views read metadata only (issue 38), so they
  // go by the node's last report until it reports again in its new boot.
  annotate(api, 'n3', report({}), 'boot-2');
  annotate(
    api,
    'n4',
    report({
      path: 'fallback',
      decision: 'upgrade',
      quarantine: { version: '202604.01.1', reason: 'exited with status 1 before the provisioning scripts started' },
    }),
  );
  return { api, kubeconfig };
}

test('rollout status: buckets by base and platform, the next wave, exit 0; exit 2 once a node on the hotfix failed', async () => {
  const { api, kubeconfig } = await fleet();
  try {
    const text = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(text.exitCode, 2, 'a fallback is a failure of the hotfix');
    annotate(api, 'n4', report({ decision: 'notInWave', joinsAt: `${FUTURE.slice(0, 16)}:00Z` }));
    const ok = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(ok.exitCode, 0, ok.stderr);
    const row = ok.stdout.split('\n').find((l) => l.startsWith('202604.01'))!;
    assert.match(
      row,
      new RegExp(
        `^202604\\.01\\s+ubuntu-22\\.04/amd64\\s+25%\\s+4\\s+1\\s+2 \\(next ${FUTURE.slice(0, 16)}:00Z\\)\\s+0\\s+0\\s+0\\s+0\\s+1\\s+in-progress$`,
      ),
      ok.stdout,
    );
    assert.match(ok.stdout, /5 nodes, 4 reported this boot, 1 took the hotfix, 0 of them failed/);
    // A node that quarantined the hotfix in an earlier boot (it runs baked now): fell back, a failure of the hotfix.
    annotate(api, 'n4', report({ decision: 'quarantined', quarantine: { version: '202604.01.1', reason: 'provisioning failed' } }));
    const quarantined = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.is(quarantined.exitCode, 2);
    assert.is(JSON.parse(quarantined.stdout).groups.find((g: { base: string }) => g.base === '202604.01').fellBack, 1);
    annotate(api, 'n4', report({ decision: 'notInWave', joinsAt: `${FUTURE.slice(0, 16)}:00Z` }));
    annotate(api, 'n0', report({ path: 'hotfix', exitCode: 31, name: 'ERR_KUBELET_START_FAIL' }));
    const failed = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.is(failed.exitCode, 2);
    const view = JSON.parse(failed.stdout);
    assert.equal(view.totals, {
      nodes: 5,
      reported: 4,
      tookHotfix: 1,
      failed: 1,
      fellBack: 0,
      quarantined: 0,
      recalled: 0,
      stillOnRecalled: 0,
      failedAmongTook: 1,
      unreadable: 0,
      untargeted: 0,
      timedOut: 0,
      missing: 0,
    });
    assert.equal(view.groups.find((g: { base: string }) => g.base === '202604.01').failedBy, { ERR_KUBELET_START_FAIL: 1 });
    assert.is(view.nodes.find((n: { name: string }) => n.name === 'n3').bucket, 'baked', 'its last report, read from metadata');
    const unreachable = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', join(work, 'missing.kubeconfig')]);
    assert.is(unreachable.exitCode, 1);
    assert.match(unreachable.stderr, /missing\.kubeconfig/);
  } finally {
    await api.close();
  }
});

test('rollout status with a recall: recalled, failed → quarantined and still on recalled counted apart; exit 2 for a node still on it', async () => {
  const { api, kubeconfig } = await fleet();
  const node = joinedNode(api, 'aks-pool-0');
  try {
    // The binary's own base (the sandboxed node's baked version) gets a recalled patch too.
    const own = (await runAnc(['version'])).stdout.trim();
    const ownBase = own.split('.').slice(0, 2).join('.');
    const ownRecalled = `${ownBase}.99`;
    // The live pointer recalls 202604.01.1 (and ownRecalled) and offers 202604.01.2 instead.
    const rendered = await runAnc([
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      '202604.01=202604.01.2',
      '--recall',
      '202604.01.1',
      '--recall',
      ownRecalled,
      '--serial',
      '6',
      '--expires',
      '2099-01-01T00:00:00Z',
      '-o',
      'json',
    ]);
    assert.is(rendered.exitCode, 0, rendered.stderr);
    api.configMaps.set('kube-system/anc-hotfix-version', JSON.parse(rendered.stdout).data);
    // A real node gave the recalled version up (its quarantine record says so) and reports with report-status.
    node.box.write(
      '/opt/azure/containers/aks-node-controller-hotfix-quarantine.json',
      `${JSON.stringify({ versions: [{ version: ownRecalled, reason: `hotfix ${ownRecalled} recalled by the hotfix pointer`, recordedAt: '2026-11-27T04:00:00Z', cause: 'recalled' }] })}\n`,
    );
    api.nodes.register('aks-pool-0', { bootId: 'boot-1' });
    const sent = await runAnc(['report-status'], { root: node.box.root, env: fastBounds() });
    assert.is(sent.exitCode, 0, sent.stderr);
    const meta = api.nodes.nodes.get('aks-pool-0')!.metadata as { annotations: Record<string, string> };
    const sentReport = JSON.parse(meta.annotations[REPORT_ANNOTATION]!);
    assert.equal(sentReport.hotfix.quarantine, {
      version: ownRecalled,
      reason: `hotfix ${ownRecalled} recalled by the hotfix pointer`,
      cause: 'recalled',
    });
    // n0 gave it up too (seeded); n4 back in the wave's queue.
    const recalledQ = { version: '202604.01.1', reason: 'recalled', cause: 'recalled' };
    annotate(api, 'n0', report({ decision: 'not-listed', quarantine: recalledQ }));
    annotate(api, 'n4', report({ decision: 'notInWave', joinsAt: `${FUTURE.slice(0, 16)}:00Z` }));
    const ok = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(ok.exitCode, 0, `${ok.stdout}${ok.stderr}`);
    assert.match(ok.stdout, /rollout at \S+, pointer serial 6: recalled\n/);
    assert.match(
      ok.stdout,
      /\n202604\.01 ubuntu-22\.04\/amd64 {2}recalled: 202604\.01\.1 {2}gave it up \(recalled\): 1 {2}failed → quarantined: 0 {2}still on recalled: 0\n/,
      ok.stdout,
    );
    assert.ok(
      ok.stdout.includes(`\n${ownBase} ubuntu-22.04/amd64  recalled: ${ownRecalled}  gave it up (recalled): 1  failed → quarantined: 0`),
      ok.stdout,
    );
    const recalledJson = JSON.parse((await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
    assert.equal(recalledJson.recall, ['202604.01.1', ownRecalled]);
    const group = recalledJson.groups.find((g: { base: string }) => g.base === '202604.01');
    assert.equal([group.recall, group.recalled, group.quarantined, group.stillOnRecalled, group.fellBack], [['202604.01.1'], 1, 0, 0, 0]);
    assert.equal(recalledJson.groups.find((g: { base: string }) => g.base === ownBase).recall, [ownRecalled]);
    assert.is(recalledJson.nodes.find((n: { name: string }) => n.name === 'aks-pool-0').bucket, 'recalled');
    // n1 failed provisioning under 202604.01.2 in an earlier boot and quarantined it: a failure of the hotfix, counted apart.
    annotate(
      api,
      'n1',
      report({
        decision: 'quarantined',
        quarantine: {
          version: '202604.01.2',
          reason: 'provisioning failed',
          cause: 'provisionFailed',
          exitCode: 31,
          exitName: 'ERR_KUBELET_START_FAIL',
        },
      }),
    );
    const q = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.is(q.exitCode, 2);
    const qGroup = JSON.parse(q.stdout).groups.find((g: { base: string }) => g.base === '202604.01');
    assert.equal([qGroup.quarantined, qGroup.quarantinedBy, qGroup.fellBack, qGroup.recalled], [1, { ERR_KUBELET_START_FAIL: 1 }, 0, 1]);
    const qText = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.match(qText.stdout, /failed → quarantined: 1 \(ERR_KUBELET_START_FAIL x1\)/);
    // n1 clean again; n0 still runs the recalled version this boot (it has not rebooted since the recall): exit 2.
    annotate(api, 'n1', report({ decision: 'notInWave', joinsAt: `${FUTURE.slice(0, 16)}:00Z` }));
    annotate(api, 'n0', report({ path: 'hotfix' }));
    const still = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(still.exitCode, 2, still.stdout);
    assert.match(still.stdout, /still on recalled: 1\n/);
    assert.match(
      still.stdout,
      /\n1 node\(s\) still on a recalled version this boot: they provisioned under it and a provisioned node never provisions again, so reimage them/,
    );
    assert.match(
      still.stdout,
      /took the hotfix, 0 of them failed/,
      'still on recalled is not counted as a failure (the watch does not halt over it)',
    );
    const stillJson = JSON.parse((await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
    assert.is(stillJson.totals.stillOnRecalled, 1);
    assert.is(stillJson.nodes.find((n: { name: string }) => n.name === 'n0').bucket, 'stillOnRecalled');
    // Once n0 reports from its next boot on the baked agent, it is no longer on the recalled version.
    annotate(api, 'n0', report({ bootId: 'boot-9', decision: 'not-listed' }));
    const older = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(older.exitCode, 0, older.stdout);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test('render --halt: serial + 1, every schedule frozen at its current percent (or 0 with --withdraw), the rest kept', async () => {
  const { api, kubeconfig } = await fleet();
  try {
    const frozen = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.is(frozen.exitCode, 0, frozen.stderr);
    const payload = JSON.parse(JSON.parse(frozen.stdout).data['hotfixes.json']);
    assert.equal(payload.rollout, { '202604.01': { percent: 25, salt: '202604.01.1' } });
    assert.is(payload.serial, 6);
    assert.equal(payload.hotfixes, { '202604.01': '202604.01.1' });
    assert.is(payload.expires, '2099-01-01T00:00:00Z');
    assert.match(
      frozen.stderr,
      /halting pointer: serial 6 \(live 5\); 202604\.01 at 25% \(frozen as of .*\); nodes that already staged the hotfix keep it/,
    );
    const cm = file(
      'live.json',
      JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: api.configMaps.get('kube-system/anc-hotfix-version') }),
    );
    // As of a time before the first step: 0; after the last, a halt frozen at 100% halts nothing: refused;
    // --withdraw: 0 whatever the time.
    const before = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--from', cm, '--at', '2000-01-01T00:00:00Z', '-o', 'json']);
    assert.is(JSON.parse(JSON.parse(before.stdout).data['hotfixes.json']).rollout['202604.01'].percent, 0);
    const after = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--from', cm, '--at', '2099-01-01T00:00:00Z', '-o', 'json']);
    assert.is(after.exitCode, 1, after.stdout);
    assert.is(after.stdout, '');
    assert.match(after.stderr, /--halt: every wave is at 100% as of 2099-01-01T00:00:00\.000Z: a halt frozen at 100% halts nothing/);
    assert.match(after.stderr, /Pass --withdraw/);
    const withdrawn = await runAnc([
      'hotfix',
      'pointer',
      'render',
      '--halt',
      '--withdraw',
      '--from',
      cm,
      '--at',
      '2099-01-01T00:00:00Z',
      '-o',
      'json',
    ]);
    assert.is(JSON.parse(JSON.parse(withdrawn.stdout).data['hotfixes.json']).rollout['202604.01'].percent, 0);
    const bad = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--from', cm, '--serial', '5']);
    assert.is(bad.exitCode, 1);
    assert.match(bad.stderr, /--serial 5 must be an integer above the live pointer's serial 5/);
    const mixed = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--from', cm, '--hotfix', '202604.01=202604.01.2']);
    assert.match(mixed.stderr, /--halt keeps the live pointer's hotfixes/);
  } finally {
    await api.close();
  }
});

test('watch: refuses a halt nodes would refuse; halts at the first failure among nodes that took the hotfix', async () => {
  const { api, kubeconfig } = await fleet();
  try {
    annotate(api, 'n4', report({ decision: 'notInWave' }));
    const { key, keys } = fleetKeyPair(work);
    const rendered = await runAnc(['hotfix', 'pointer', 'render', '--halt', '--withdraw', '--kubeconfig', kubeconfig]);
    const unsigned = file('halt.yaml', rendered.stdout);
    const signed = await runAnc(['hotfix', 'pointer', 'sign', '--key', key, '--key-id', 'fleet-a', unsigned]);
    assert.is(signed.exitCode, 0, signed.stderr);
    const halt = file('halt.signed.yaml', signed.stdout);
    // In enforce mode the unsigned halt would be refused by every node: the watch does not start.
    const refused = await runAnc([
      'hotfix',
      'rollout',
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--halt-with',
      unsigned,
      '--mode',
      'enforce',
      '--keys',
      keys,
    ]);
    assert.is(refused.exitCode, 1);
    assert.match(refused.stderr, /nodes in mode enforce would refuse it \(unsigned/);
    const stale = file(
      'stale.json',
      JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: api.configMaps.get('kube-system/anc-hotfix-version') }),
    );
    const behind = await runAnc(['hotfix', 'rollout', 'watch', '--kubeconfig', kubeconfig, '--halt-with', stale]);
    assert.is(behind.exitCode, 1);
    assert.match(behind.stderr, /its serial 5 is not above the live pointer's serial 5/);
    const watching = runAnc(enforceWatchArgs(kubeconfig, halt, keys, '0.3'), { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1500));
    const serialOf = () =>
      JSON.parse((api.configMaps.get('kube-system/anc-hotfix-version') as Record<string, string>)['hotfixes.json']!).serial;
    assert.is(serialOf(), 5, 'no failure yet: the live pointer stands');
    annotate(api, 'n0', report({ path: 'hotfix', exitCode: 31, name: 'ERR_KUBELET_START_FAIL' }));
    const run = await watching;
    assert.is(run.exitCode, 3, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(
      lines[0]!,
      /watch started: halt .*halt\.signed\.yaml \(serial 6, verified for mode enforce\) when failures among nodes that took the hotfix, plus nodes silent past 900 s, exceed 0/,
    );
    assert.ok(lines.some((l) => /tookHotfix=1 failed=0 timedOut=0 \(max 0\) state=in-progress -> continue$/.test(l)));
    assert.ok(lines.some((l) => /tookHotfix=1 failed=1 timedOut=0 \(max 0\) state=in-progress -> HALT: applying/.test(l)));
    assert.match(run.stdout, /ERR_KUBELET_START_FAIL x1/);
    const live = api.configMaps.get('kube-system/anc-hotfix-version') as Record<string, string>;
    const haltData = (await import('yaml')).parse(readFileSync(halt, 'utf8')).data;
    assert.equal(live, haltData, 'the signed halt is live, byte for byte');
    assert.equal(JSON.parse(live['hotfixes.json']!).rollout, { '202604.01': { percent: 0, salt: '202604.01.1' } });
  } finally {
    await api.close();
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();

// Issue 41 §5 for the fleet views on the compiled binary: a live envelope someone with ConfigMap write but
// no signing key wrote (serial 99, a recall, 100%) is verified with the fleet's keys and flagged, never
// presented as live, and the watch still starts (R4-12); bidi overrides and the other format characters in
// a node's report never reach the operator's terminal raw (R4-16).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { enforceWatchArgs } from '../../fakes/fleet.ts';
import { annotateNode as annotate, reportText } from '../../fakes/node-report.ts';
import { fleetKeyPair } from '../../fakes/pointer-keys.ts';
import { runAnc } from '../harness.ts';

const TOKEN = 'publisher.0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'anc-rollout-r4-'));
const file = (name: string, text: string) => {
  writeFileSync(join(work, name), text);
  return join(work, name);
};
test.after(() => rmSync(work, { recursive: true, force: true }));

const report = ({ hotfix, ...fields }: { hotfix?: boolean; exitCode?: number; name?: string; platform?: string }) =>
  reportText({ ...fields, path: hotfix ? 'hotfix' : 'baked' });

const keyPair = (name: string) => fleetKeyPair(work, name);

async function signed(name: string, key: string, render: string[]): Promise<string> {
  const rendered = await runAnc(['hotfix', 'pointer', 'render', ...render, '--expires', '2099-01-01T00:00:00Z']);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  const out = await runAnc(['hotfix', 'pointer', 'sign', '--key', key, '--key-id', 'fleet-a', file(`${name}.yaml`, rendered.stdout)]);
  assert.is(out.exitCode, 0, out.stderr);
  return file(`${name}.signed.yaml`, out.stdout);
}

test('R4-12: a forged live envelope (serial 99, recall, 100%) is flagged UNVERIFIED, never shown as live; the watch still starts', async () => {
  const fleet = keyPair('fleet');
  const attacker = keyPair('attacker');
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } } });
  const kubeconfig = file(`k-${api.port}.kubeconfig`, kubeconfigFor(api, { token: TOKEN }));
  try {
    const forged = await signed('forged', attacker.key, [
      '--hotfix',
      '202604.01=202604.01.2',
      '--rollout',
      '202604.01=100:forged',
      '--recall',
      '202604.01.1',
      '--serial',
      '99',
    ]);
    api.configMaps.set('kube-system/anc-hotfix-version', parse((await import('node:fs')).readFileSync(forged, 'utf8')).data);
    annotate(api, 'n0', report({ hotfix: true }));
    const status = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.is(status.exitCode, 0, `${status.stdout}${status.stderr}: the forged recall is not taken as live`);
    assert.match(status.stdout, /\nlive pointer UNVERIFIED: its signature does not verify with the fleet's keys \(/);
    assert.not.match(status.stdout, /pointer serial 99/);
    assert.not.match(status.stdout, /recalled: 202604\.01\.1/);
    const json = JSON.parse((await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
    assert.equal([json.serial, json.recall], [null, []]);
    assert.type(json.liveUnverified, 'string');
    // The watch: the forged serial 99 is not the floor; a halt signed with the fleet's key (serial 6) starts it.
    const halt = await signed('halt', fleet.key, ['--hotfix', '202604.01=202604.01.1', '--rollout', '202604.01=0:halt', '--serial', '6']);
    annotate(api, 'n0', report({ hotfix: true, exitCode: 31, name: 'ERR_KUBELET_START_FAIL' }));
    const watch = await runAnc(enforceWatchArgs(kubeconfig, halt, fleet.keys, '0.3'), { timeoutMs: 30_000 });
    assert.is(watch.exitCode, 3, watch.stdout + watch.stderr);
    assert.match(watch.stdout, /watch started: halt .*halt\.signed\.yaml \(serial 6, verified for mode enforce\)/);
    assert.match(watch.stdout, /live pointer UNVERIFIED: .*its serial is not the halt's floor/);
    // With the fleet's keys, a live envelope they signed is live: serial and recall shown.
    const real = await signed('real', fleet.key, ['--hotfix', '202604.01=202604.01.2', '--recall', '202604.01.1', '--serial', '7']);
    api.configMaps.set('kube-system/anc-hotfix-version', parse((await import('node:fs')).readFileSync(real, 'utf8')).data);
    const ok = await runAnc(
      ['hotfix', 'rollout', 'watch', '--kubeconfig', kubeconfig, '--halt-with', halt, '--mode', 'enforce', '--keys', fleet.keys],
      { timeoutMs: 30_000 },
    );
    assert.is(ok.exitCode, 1, 'the verified live serial 7 is the floor: the serial-6 halt is refused');
    assert.match(ok.stderr, /its serial 6 is not above the live pointer's serial 7/);
  } finally {
    await api.close();
  }
});

test('R4-16: bidi overrides and other format characters from a report are escaped on the terminal and in JSON', async () => {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } } });
  const kubeconfig = file(`b-${api.port}.kubeconfig`, kubeconfigFor(api, { token: TOKEN }));
  try {
    annotate(
      api,
      'n0',
      report({ hotfix: true, exitCode: 50, name: 'ERR_\u202eLIAF_DEDEECCUS', platform: 'ubuntu-22.04/amd64\u2066\u200b' }),
    );
    // Report validation (issue 37) refuses control and format characters: the node is unreadable, its text
    // never reaches the terminal raw, and the escaping (R4-16) covers what the view does print.
    for (const args of [[], ['-o', 'json']]) {
      const run = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, ...args]);
      assert.is(run.exitCode, 0, run.stderr);
      assert.not.match(run.stdout, /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029]/, 'no raw format character');
    }
    const text = (await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig])).stdout;
    assert.match(text, /\n {2}n0: unreadable \(.*(control|bidirectional).*\)\n/);
    const json = JSON.parse((await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
    assert.is(json.nodes[0].bucket, 'unreadable');
  } finally {
    await api.close();
  }
});

test.run();

// The recall condition end to end (issue 37 §5): report-status on a node whose staged pointer recalls the
// version it runs sets AKSNodeControllerRecalled (True, RecalledVersion, the version and the serial) on
// its own Node status with its client certificate, keeps kubelet's conditions, and removes it once the
// pointer no longer recalls it; `rollout status` lists the node to reimage. The apiserver stand-in
// enforces what kube-apiserver does: status only through nodes/<name>/status, a node only its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { runAnc } from '../harness.ts';
import { runKubectl } from '../pointer/kubectl.ts';
import { fastBounds, joinedNode } from './support.ts';

const TYPE = 'AKSNodeControllerRecalled';
const ADMIN = 'admin.0123456789abcdef';
type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };
const conditions = (node: Record<string, unknown> | undefined) =>
  ((node?.status as { conditions?: Condition[] })?.conditions ?? []) as Condition[];

test('a node running a recalled version flags itself; the flag goes once the recall does; rollout status lists it to reimage', async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0'], tokens: { [ADMIN]: { user: 'admin', canRead: true, canWrite: true } } });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const running = (await runAnc(['version'])).stdout.trim();
    const pointer = (recall: string[]) =>
      node.box.write('/opt/azure/containers/aks-node-controller-hotfix.json', JSON.stringify({ hotfixes: {}, recall }));
    node.box.write(
      '/opt/azure/containers/aks-node-controller-hotfix-serial.json',
      JSON.stringify({ serial: 7, keyid: 'fleet-a', acceptedAt: '2026-11-28T00:00:00Z' }),
    );
    pointer([`${running}-1`]);
    const run = await runAnc(['report-status'], { root: node.box.root, env: fastBounds() });
    assert.is(run.exitCode, 0, run.stderr);
    const flagged = conditions(api.nodes.nodes.get('aks-pool-0'));
    assert.equal(
      flagged.map((c) => c.type),
      ['Ready', TYPE],
      "kubelet's Ready stays: a strategic merge by type",
    );
    const flag = flagged.find((c) => c.type === TYPE)!;
    assert.is(flag.status, 'True');
    assert.is(flag.reason, 'RecalledVersion');
    assert.is(
      flag.message,
      `this node runs aks-node-controller ${running}, which the hotfix pointer (serial 7) recalls (${running}-1); it provisioned under it and never provisions again: reimage it`,
    );
    const patch = api.requests.find((r) => r.method === 'PATCH' && r.path === '/api/v1/nodes/aks-pool-0/status');
    assert.is(patch?.user, 'system:node:aks-pool-0', "with the node's own certificate");
    // Real kubectl sees the condition.
    const kubeconfig = join(node.box.root, 'admin.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(api, { token: ADMIN }));
    const get = await runKubectl(kubeconfig, node.box.root, [
      'get',
      'node',
      'aks-pool-0',
      '-o',
      `jsonpath={.status.conditions[?(@.type=="${TYPE}")].reason}`,
    ]);
    assert.is(get.stdout, 'RecalledVersion', get.stderr);
    // rollout status: the node is to reimage (its report says it runs the recalled version).
    api.configMaps.set('kube-system/anc-hotfix-version', {
      'hotfixes.json': JSON.stringify({ hotfixes: {}, recall: [`${running}-1`] }),
    });
    const status = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig], { cwd: node.box.root });
    assert.is(status.exitCode, 2, status.stdout);
    assert.match(status.stdout, '\nto reimage (1): aks-pool-0\n');
    const json = JSON.parse(
      (await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'json'], { cwd: node.box.root })).stdout,
    );
    assert.equal(json.toReimage, ['aks-pool-0']);
    // Again: nothing changes (the first flag's time stays).
    const again = await runAnc(['report-status'], { root: node.box.root, env: fastBounds() });
    assert.is(again.exitCode, 0);
    assert.is(conditions(api.nodes.nodes.get('aks-pool-0')).find((c) => c.type === TYPE)?.lastTransitionTime, flag.lastTransitionTime);
    // The pointer no longer recalls it: the condition is removed, kubelet's stays.
    pointer([]);
    const cleared = await runAnc(['report-status'], { root: node.box.root, env: fastBounds() });
    assert.is(cleared.exitCode, 0);
    assert.equal(
      conditions(api.nodes.nodes.get('aks-pool-0')).map((c) => c.type),
      ['Ready'],
    );
    assert.match(node.box.read('/var/log/azure/aks-node-controller.log'), /no longer on a recalled version; condition removed/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test("the stand-in enforces kube-apiserver's rules: status only via /status, a node only its own", async () => {
  const api = await startFakeApiServer({ nodes: ['aks-pool-0', 'aks-pool-1'] });
  const node = joinedNode(api, 'aks-pool-0');
  try {
    const own = join(node.box.root, 'own.kubeconfig');
    writeFileSync(own, node.box.read('/var/lib/kubelet/kubeconfig').replaceAll(': /', `: ${node.box.root}/`));
    const body = JSON.stringify({ status: { conditions: [{ type: TYPE, status: 'True', reason: 'RecalledVersion', message: 'm' }] } });
    const other = await runKubectl(own, node.box.root, ['patch', 'node', 'aks-pool-1', '--subresource=status', '-p', body]);
    assert.is.not(other.code, 0);
    assert.match(other.stderr, /node "aks-pool-0" is not allowed to modify node "aks-pool-1"/, other.stderr);
    const mine = await runKubectl(own, node.box.root, ['patch', 'node', 'aks-pool-0', '--subresource=status', '-p', body]);
    assert.is(mine.code, 0, mine.stderr);
    assert.ok(conditions(api.nodes.nodes.get('aks-pool-0')).some((c) => c.type === TYPE));
    // Through the main resource, status is ignored.
    const main = await runKubectl(own, node.box.root, [
      'patch',
      'node',
      'aks-pool-0',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { conditions: [] } }),
    ]);
    assert.is(main.code, 0, main.stderr);
    assert.equal(
      conditions(api.nodes.nodes.get('aks-pool-0')).map((c) => c.type),
      ['Ready', TYPE],
    );
    const invalid = await runKubectl(own, node.box.root, [
      'patch',
      'node',
      'aks-pool-0',
      '--subresource=status',
      '-p',
      JSON.stringify({ status: { conditions: [{ type: TYPE, status: 'Maybe' }] } }),
    ]);
    assert.is.not(invalid.code, 0);
    assert.match(invalid.stderr, /a condition needs a type and a status of True, False or Unknown/);
  } finally {
    node.box.cleanup();
    await api.close();
  }
});

test.run();

// Issue 40 item 1: a node whose provisioning failed under a script hotfix. The fallback removes the
// hotfix's record and restores the image's scripts, but `status`, the report and the event describe what
// RAN in this boot: the payload's scripts, the hotfix in the headline, and reimage as the step that works
// (the unit's ConditionPathExists=!provision.complete skips every later boot).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer } from '../../fakes/apiserver.ts';
import { HOTFIX_VERSION, sandboxedFirstBoot, type BootResult } from '../../fakes/boot.ts';
import { standInProvisionScript } from '../../fakes/node-image.ts';
import { buildAgent, buildHotfixPackages } from '../../fakes/repos.ts';
import { writePayloadDir } from '../../fakes/script-fix.ts';
import { fastBounds, joinedNode } from '../fleet/support.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-failed-under-hotfix-'));
let b: BootResult;
test.after(() => {
  b?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

test.before(async () => {
  // A "fix" whose start script fails differently: the payload's scripts ran and failed.
  const payload = writePayloadDir(join(work, 'payload'), [
    {
      source: 'cse_start.sh',
      payload: 'payloads/provision_start.sh',
      destination: '/opt/azure/containers/provision_start.sh',
      mode: '0755',
      platforms: ['ubuntu'],
      content: standInProvisionScript({ exitCode: 50, sleepSeconds: 1, note: 'egress blocked (the bad fix)' }),
    },
  ]);
  const bin = buildAgent(HOTFIX_VERSION, join(work, 'bin'), ['--scripts', payload, '--scripts-label', 'bad-fix']);
  const packages = buildHotfixPackages(HOTFIX_VERSION, join(work, 'pkg'), { bin });
  b = await sandboxedFirstBoot({ hotfixPackages: packages, standIn: { exitCode: 0, note: 'the image is fine' } });
});

const ANNOTATION = 'kubernetes.azure.com/aks-node-controller-status';

test('status: what ran in this boot (the hotfix scripts), the hotfix in the headline, reimage as the step', async () => {
  const r = await runAnc(['status'], { root: b.root });
  assert.is(r.exitCode, 2, r.stderr);
  const [headline] = r.stdout.split('\n');
  assert.is(
    headline,
    `FAILED: provisioning FAILED with exit code 50 ERR_OUTBOUND_CONN_FAIL under hotfix ${HOTFIX_VERSION} (script payload bad-fix); quarantined; reimage the node (it does not provision again on reboot)`,
  );
  assert.match(
    r.stdout,
    // Not restored in this boot: the after-scripts rule leaves the restore to a later provision (R4-5).
    '\n  ran        hotfix bad-fix, 1 replaced\n             /opt/azure/containers/provision_start.sh\n',
  );
  assert.not.match(r.stdout, 'ran        baked');
  assert.match(r.stdout, `\n  quarantined ${HOTFIX_VERSION} at `);
  assert.match(
    r.stdout,
    /after the scripts started; the image's scripts stay until a provision restores them \(never under running scripts\), and this node does not provision again .*: reimage it\n/,
  );
  assert.not.match(r.stdout, 'from the next provision on');
  const j = JSON.parse((await runAnc(['status', '-o', 'json'], { root: b.root })).stdout);
  assert.equal([j.scripts.ran, j.scripts.label, j.scripts.replaced], ['hotfix', 'bad-fix', ['/opt/azure/containers/provision_start.sh']]);
  assert.is(j.scripts.restoredAt, undefined);
});

test('the event says reimage, never that a next boot provisions', () => {
  const fallback = b.events.filter((e) => e.TaskName === 'AKS.AKSNodeController.HotfixFallback').map((e) => e.Message!.split(' | ')[0]!);
  assert.is(fallback.length, 1);
  assert.match(fallback[0]!, 'this node does not provision again');
  assert.match(fallback[0]!, 'reimage it, and the new node provisions with the baked agent 202604.01.0');
  assert.not.match(fallback[0]!, 'next boot');
});

test("the Node report carries what ran: scripts hotfix bad-fix, provisioning failed, the quarantine's cause", async () => {
  const api = await startFakeApiServer({ nodes: ['vm'] });
  try {
    const node = joinedNode(api, 'vm');
    for (const f of ['/etc/kubernetes/certs/ca.crt', '/var/lib/kubelet/pki/kubelet-client-current.pem', '/var/lib/kubelet/kubeconfig']) {
      mkdirSync(dirname(join(b.root, f)), { recursive: true });
      copyFileSync(node.box.path(f), join(b.root, f));
    }
    mkdirSync(join(b.root, 'etc/default'), { recursive: true });
    writeFileSync(join(b.root, 'etc/default/kubelet'), 'KUBELET_FLAGS=--hostname-override=vm\n');
    node.box.cleanup();
    const run = await runAnc(['report-status'], { root: b.root, env: fastBounds() });
    assert.is(run.exitCode, 0, run.stderr);
    const text = (api.nodes.nodes.get('vm')?.metadata as { annotations?: Record<string, string> })?.annotations?.[ANNOTATION] ?? '';
    const report = JSON.parse(text);
    // nodeCustomData (issue 39): download-hotfix skipped nodecustomdata.yml (no scripts_version in the pointer).
    assert.equal(report.scripts, {
      ran: 'hotfix',
      label: 'bad-fix',
      replaced: 1,
      nodeCustomData: { outcome: 'skipped', scriptsVersion: '' },
    });
    assert.equal(report.provision, { state: 'failed', exitCode: 50, name: 'ERR_OUTBOUND_CONN_FAIL' });
    assert.is(report.hotfix.quarantine?.cause, 'provisionFailed');
  } finally {
    await api.close();
  }
});

test.run();

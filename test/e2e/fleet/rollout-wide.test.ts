// Issue 40 (Low): `hotfix rollout status -o wide` (or --wide) names the nodes under each row, by where they are.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer } from '../../fakes/apiserver.ts';
import { annotateNode as annotate, reportText } from '../../fakes/node-report.ts';
import { runAnc } from '../harness.ts';

const TOKEN = 'publisher.0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'anc-rollout-wide-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

const report = (path: 'hotfix' | 'baked', decision: string, exitCode = 0, name = 'ERR_SUCCESS') =>
  reportText({ path, decision, exitCode, name, wave: { percent: 100 }, signed: false });

test('rollout status -o wide: each row followed by its nodes; --wide the same; the plain table has no names', async () => {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'publisher', canRead: true, canWrite: true } } });
  try {
    const kubeconfig = join(work, 'publisher.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(api, { token: TOKEN }));
    annotate(api, 'aks-pool-0', report('hotfix', 'upgrade'));
    annotate(api, 'aks-pool-1', report('hotfix', 'upgrade'));
    annotate(api, 'aks-pool-2', report('hotfix', 'upgrade', 50, 'ERR_OUTBOUND_CONN_FAIL'));
    annotate(api, 'aks-pool-3', undefined);
    const wide = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '-o', 'wide']);
    assert.is(wide.exitCode, 2, wide.stderr);
    assert.match(wide.stdout, '\n  on hotfix: aks-pool-0, aks-pool-1\n');
    assert.match(wide.stdout, '\n  failed: aks-pool-2 (ERR_OUTBOUND_CONN_FAIL)\n');
    assert.match(wide.stdout, /\n {2}not reported: aks-pool-3\n/);
    const flag = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig, '--wide']);
    assert.is(flag.stdout.replace(/^rollout at \S+/, ''), wide.stdout.replace(/^rollout at \S+/, ''));
    const plain = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', kubeconfig]);
    assert.not.match(plain.stdout, 'aks-pool-0');
  } finally {
    await api.close();
  }
});

test.run();

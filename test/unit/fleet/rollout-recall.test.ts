// The fleet view's recall arithmetic (fleet/rollout.ts): which bucket a report lands in under the live
// pointer's recall, the per-base recall list, the counts, and when `rollout status` must exit non-zero.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildReport, type NodeReport, parseReport, renderReport } from '../../../src/fleet/report.ts';
import { rolloutText } from '../../../src/fleet/rollout-text.ts';
import { classify, recallFor, rolloutFailed, rolloutView } from '../../../src/fleet/rollout.ts';
import type { NodeObject } from '../../../src/kube/nodes.ts';
import type { StatusReport } from '../../../src/status/collect.ts';
import { nodeReport, REPORT_ANNOTATION } from '../../fakes/node-report.ts';

const NOW = new Date('2026-11-27T06:00:00Z');

function node(
  name: string,
  fields: {
    path?: NodeReport['hotfix']['path'];
    decision?: string;
    running?: string;
    quarantine?: NodeReport['hotfix']['quarantine'];
    exitCode?: number;
    bootId?: string;
  },
): NodeObject {
  const report = nodeReport({
    ...fields,
    requested: '202604.01.2',
    serial: 6,
    name: fields.exitCode ? 'ERR_X' : undefined,
    bootId: undefined, // the report's own boot; `fields.bootId` is the kubelet's
  });
  const annotations = { [REPORT_ANNOTATION]: JSON.stringify(report) };
  return { name, labels: {}, annotations, bootId: fields.bootId ?? 'boot-1', osImage: '', architecture: '' };
}

const RECALL = ['202604.01.1', '202605.02.3'];
const recalled = { version: '202604.01.1', reason: 'recalled', cause: 'recalled' };
const failedQ = {
  version: '202604.01.2',
  reason: 'provisioning failed',
  cause: 'provisionFailed',
  exitCode: 31,
  exitName: 'ERR_KUBELET_START_FAIL',
};

test('recallFor: only the versions of that base', () => {
  assert.equal(recallFor(RECALL, '202604.01'), ['202604.01.1']);
  assert.equal(recallFor(RECALL, '202604.0'), []);
});

test('classify: recalled, failed → quarantined, other fallback, still on recalled (this boot only), a newer hotfix after a recall', () => {
  assert.is(classify(node('a', { decision: 'not-listed', quarantine: recalled }), RECALL).bucket, 'recalled');
  assert.is(classify(node('a', { decision: 'recalled' }), RECALL).bucket, 'recalled');
  const q = classify(node('b', { decision: 'quarantined', quarantine: failedQ }), RECALL);
  assert.equal([q.bucket, q.exit], ['quarantined', { code: 31, name: 'ERR_KUBELET_START_FAIL' }]);
  assert.is(
    classify(node('c', { path: 'fallback', quarantine: { version: '202604.01.2', reason: 'x', cause: 'beforeScripts' } }), RECALL).bucket,
    'fellBack',
  );
  assert.is(classify(node('d', { path: 'hotfix' }), RECALL).bucket, 'stillOnRecalled');
  assert.is(
    classify(node('d', { path: 'hotfix', running: '202604.01.1-1' }), RECALL).bucket,
    'stillOnRecalled',
    'package revision ignored',
  );
  assert.is(classify(node('d', { path: 'hotfix' }), []).bucket, 'onHotfix', 'no recall: on the hotfix');
  assert.is(
    classify(node('d', { path: 'hotfix', bootId: 'boot-0' }), RECALL).bucket,
    'notReported',
    'an older boot says nothing about now',
  );
  assert.is(classify(node('d', { path: 'hotfix', exitCode: 31 }), RECALL).bucket, 'failed', 'a failure stays a failure');
  // Recalled .1 earlier, now on the offered .2: on the hotfix.
  assert.is(classify(node('e', { path: 'hotfix', running: '202604.01.2', quarantine: recalled }), RECALL).bucket, 'onHotfix');
});

test('rolloutView: counts apart, recall per base; exit non-zero for failures and for a node still on a recalled version', () => {
  const nodes = [node('a', { quarantine: recalled, decision: 'not-listed' }), node('b', { decision: 'notInWave' })];
  const view = rolloutView(nodes, { serial: 6, recall: RECALL }, NOW);
  assert.equal(view.recall, RECALL);
  assert.equal(view.groups[0]!.recall, ['202604.01.1']);
  assert.equal([view.totals.recalled, view.totals.failedAmongTook, view.totals.stillOnRecalled], [1, 0, 0]);
  assert.is(rolloutFailed(view), false, 'a recall that worked is not a failure');
  assert.match(rolloutText(view), /\n202604\.01 ubuntu-22\.04\/amd64 {2}recalled: 202604\.01\.1 {2}gave it up \(recalled\): 1 /);
  const still = rolloutView([...nodes, node('c', { path: 'hotfix' })], { recall: RECALL }, NOW);
  assert.equal([still.totals.stillOnRecalled, still.totals.failedAmongTook, rolloutFailed(still)], [1, 0, true]);
  assert.match(rolloutText(still), /1 node\(s\) still on a recalled version this boot/);
  const q = rolloutView([...nodes, node('d', { decision: 'quarantined', quarantine: failedQ })], { recall: RECALL }, NOW);
  assert.equal([q.totals.quarantined, q.totals.failedAmongTook, rolloutFailed(q)], [1, 1, true]);
  assert.equal(q.groups[0]!.quarantinedBy, { ERR_KUBELET_START_FAIL: 1 });
  assert.not.match(rolloutText(rolloutView([node('b', { decision: 'notInWave' })], {}, NOW)), /recalled:/, 'no recall, no line');
});

test('the report carries the quarantine cause and exit, clipped, within 4 KiB', () => {
  const status = {
    hotfix: { decision: null },
    binary: { kind: 'baked', version: '202604.01.0' },
    scripts: { ran: 'baked', label: null, replaced: [] },
    state: 'succeeded',
    provision: null,
  } as unknown as StatusReport;
  const facts = {
    bootId: 'b',
    now: NOW,
    platform: 'p',
    baked: '202604.01.0',
    base: '202604.01',
    wave: null,
    pointer: { serial: 6, signed: true },
  };
  const r = buildReport(status, { ...facts, quarantine: { ...failedQ, reason: 'x'.repeat(5000) } });
  assert.equal({ ...r.hotfix.quarantine, reason: '' }, { ...failedQ, reason: '' });
  const text = renderReport(r);
  assert.ok(Buffer.byteLength(text) <= 4096);
  assert.equal(parseReport(text)?.hotfix.quarantine?.cause, 'provisionFailed');
  assert.is(buildReport(status, { ...facts, quarantine: { version: '1', reason: 'r' } }).hotfix.quarantine?.cause, undefined);
  assert.is(r.scripts.nodeCustomData, undefined, 'no scripts_version step, no field');
  // Item 3 (spec 11.2): the report says whether download-hotfix applied nodecustomdata.yml, never its error text.
  const applied = {
    ...status,
    hotfix: { decision: null, nodeCustomData: { outcome: 'failed', scriptsVersion: '202604.01.3', reason: 'newer', error: 'secret-ish' } },
  };
  const withStep = buildReport(applied as unknown as StatusReport, { ...facts, quarantine: null });
  assert.equal(withStep.scripts.nodeCustomData, { outcome: 'failed', scriptsVersion: '202604.01.3' });
  assert.not.match(renderReport(withStep), /secret-ish/);
});

test.run();

// The states `rollout status` tells per base (fleet/rollout-state.ts): halted (serial, when, frozen percent,
// still admitting), recalled, stalled (awaiting evidence for a gated step), in-progress, complete; and the
// whole rollout's state is the most pressing one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fleetView, stateLines } from '../../../src/fleet/rollout-state.ts';
import type { NodeObject } from '../../../src/kube/nodes.ts';
import { parseScheduleFlag } from '../../../src/pointer/schedule.ts';
import { nodeReport, REPORT_ANNOTATION } from '../../fakes/node-report.ts';

const NOW = new Date('2026-12-03T00:00:00Z');
const node = (name: string, fields: { path?: string; decision?: string } = {}): NodeObject => ({
  name,
  labels: {},
  bootId: 'b',
  osImage: '',
  architecture: '',
  annotations: {
    [REPORT_ANNOTATION]: JSON.stringify(nodeReport({ ...fields, bootId: 'b', time: '2026-12-02T00:00:00Z', serial: 4, name: 'SUCCESS' })),
  },
});
const steps = (() => {
  const parsed = parseScheduleFlag('202604.01=10@2026-12-01T00:00Z,50@2026-12-02T00:00Z!,100@2026-12-04T00:00Z!');
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.steps;
})();
const hotfixes = { '202604.01': '202604.01.1' };

test('complete and in-progress', () => {
  assert.is(fleetView([node('a', { path: 'hotfix' })], { serial: 4, hotfixes }, NOW).state, 'complete');
  const waiting = fleetView([node('a', { path: 'hotfix' }), node('b', { decision: 'notInWave' })], { serial: 4, hotfixes }, NOW);
  assert.is(waiting.state, 'in-progress');
});

test('stalled: a gated step whose time came without fresh evidence; the open percent is shown', () => {
  const live = { serial: 4, hotfixes, rollout: { '202604.01': { percent: 0, salt: 's', schedule: steps } } };
  const view = fleetView([node('a', { path: 'hotfix' }), node('b', { decision: 'awaitingEvidence' })], live, NOW);
  assert.is(view.state, 'stalled');
  assert.equal([view.groups[0]!.percent, view.groups[0]!.awaiting], [10, { step: 2, percent: 50, since: '2026-12-02T00:00:00Z' }]);
  assert.match(stateLines(view)[0]!, /stalled: awaiting evidence for step 2 \(50%\) since 2026-12-02T00:00:00Z/);
  const opened = { ...live, evidence: { '202604.01': { step: 2, serial: 4, expires: '2026-12-05T00:00:00Z' } } };
  assert.is(
    fleetView([node('a', { path: 'hotfix' })], opened, NOW).state,
    'in-progress',
    'fresh evidence: the next step waits on the clock',
  );
  const stale = { ...live, evidence: { '202604.01': { step: 2, serial: 3, expires: '2026-12-05T00:00:00Z' } } };
  assert.is(fleetView([node('a', { path: 'hotfix' })], stale, NOW).state, 'stalled', 'evidence of another serial opens nothing');
});

test('halted (frozen percent, admitting or not) beats recalled beats the rest', () => {
  const halted = { serial: 5, hotfixes, halted: '2026-12-02T12:00:00Z', rollout: { '202604.01': { percent: 10, salt: 's' } } };
  const view = fleetView([node('a', { path: 'hotfix' })], halted, NOW);
  assert.is(view.state, 'halted');
  assert.equal(view.groups[0]!.halt, { serial: 5, at: '2026-12-02T12:00:00Z', percent: 10, admitting: true });
  assert.match(
    stateLines(view)[0]!,
    /halted by pointer serial 5 \(signed 2026-12-02T12:00:00Z\), frozen at 10%: nodes in that wave still take the hotfix/,
  );
  const withdrawn = fleetView([node('a')], { ...halted, rollout: { '202604.01': { percent: 0, salt: 's' } } }, NOW);
  assert.is(withdrawn.groups[0]!.halt!.admitting, false);
  const recalled = fleetView([node('a')], { serial: 6, hotfixes: { '202604.01': '202604.01.2' }, recall: ['202604.01.1'] }, NOW);
  assert.is(recalled.state, 'recalled');
});

test.run();

// Reports are untrusted input (fleet/report-check.ts): a table of hostile shapes a node can write on its own
// Node object. Each is `unreadable` with the field named, never a crash, and never halts the rollout while
// the other nodes' failures still do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NodeObject } from '../../../src/kube/nodes.ts';
import { checkReport } from '../../../src/fleet/report-check.ts';
import { crossesThreshold, rolloutView } from '../../../src/fleet/rollout.ts';
import { rolloutText } from '../../../src/fleet/rollout-text.ts';

const NOW = new Date('2026-11-27T06:00:00Z');

function good(): Record<string, unknown> {
  return {
    schemaVersion: 1,
    bootId: 'boot-1',
    time: '2026-11-27T05:00:00Z',
    platform: 'ubuntu-22.04/amd64',
    baked: '202604.01.0',
    running: '202604.01.1',
    binary: 'hotfix',
    hotfix: {
      base: '202604.01',
      requested: '202604.01.1',
      decision: 'upgrade',
      path: 'hotfix',
      quarantine: null,
      wave: { percent: 25, joinsAt: null },
    },
    scripts: { ran: 'hotfix', label: null, replaced: 0 },
    pointer: { serial: 6, signed: true },
    provision: { state: 'succeeded', exitCode: 0, name: 'ERR_SUCCESS' },
  };
}

const set = (path: string, value: unknown) => {
  const doc = good();
  const keys = path.split('.');
  let at = doc as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[keys.at(-1)!] = value;
  return JSON.stringify(doc);
};

// [what, annotation text, the field the reason must name]
const HOSTILE: Array<[string, string, RegExp]> = [
  ['not JSON', '{"schemaVersion":1,', /not JSON/],
  ['a JSON string', '"hello"', /the report is not an object/],
  ['null', 'null', /the report is not an object/],
  ['an array', '[1,2]', /the report is not an object/],
  ['another schema', set('schemaVersion', 2), /schemaVersion/],
  ['hotfix.base a number', set('hotfix.base', 202604.01), /hotfix\.base is not a string/],
  ['hotfix.base an object with a non-callable toString', set('hotfix.base', { toString: 1, valueOf: 2 }), /hotfix\.base is not a string/],
  ['hotfix.base not YYYYMM.DD', set('hotfix.base', '../../etc'), /hotfix\.base is not YYYYMM\.DD/],
  ['platform an object with toString', set('platform', { toString: 'x' }), /platform is not a string/],
  ['platform a number', set('platform', 7), /platform is not a string/],
  ['running an array', set('running', ['202604.01.1']), /running is not a string/],
  ['a huge platform', set('platform', 'x'.repeat(5000)), /platform is longer than 64/],
  ['a huge annotation', `{"pad":"${'x'.repeat(20_000)}"}`, /larger than 16384 bytes/],
  ['a control character', set('platform', 'ubuntu\u001b[31m'), /platform holds control or bidirectional/],
  ['a C1 control', set('running', '202604.01.1\u009b2J'), /running holds control/],
  ['a bidi override', set('hotfix.decision', 'upgrade\u202edeliaf'), /hotfix\.decision holds control or bidirectional/],
  ['a bidi isolate', set('provision.name', '\u2066ERR_SUCCESS\u2069'), /provision\.name holds control or bidirectional/],
  ['an unknown path', set('hotfix.path', 'sideways'), /hotfix\.path is not one of/],
  ['a huge exit code', set('provision.exitCode', 1e300), /provision\.exitCode is not a small integer/],
  ['a fractional exit code', set('provision.exitCode', 1.5), /provision\.exitCode is not a small integer/],
  ['an exit code as text', set('provision.exitCode', '34'), /provision\.exitCode is not a small integer/],
  ['hotfix missing', set('hotfix', null), /hotfix is not an object/],
  ['provision a string', set('provision', 'failed'), /provision is not an object/],
  ['pointer.serial a string', set('pointer.serial', '6'), /pointer\.serial is not a serial/],
  ['pointer.signed a string', set('pointer.signed', 'yes'), /pointer\.signed is not a boolean/],
  ['wave.percent out of range', set('hotfix.wave.percent', 1e9), /hotfix\.wave\.percent/],
  ['quarantine.exitCode text', set('hotfix.quarantine', { version: 'v', reason: 'r', exitCode: 'x' }), /quarantine\.exitCode/],
  ['quarantine.reason huge', set('hotfix.quarantine', { version: 'v', reason: 'r'.repeat(400) }), /quarantine\.reason is longer than 300/],
  ['__proto__ keys', '{"__proto__":{"schemaVersion":1},"schemaVersion":1}', /hotfix is not an object/],
];

for (const [what, text, reason] of HOSTILE) {
  test(`hostile report: ${what} -> unreadable`, () => {
    const checked = checkReport(text);
    assert.ok(checked && 'unreadable' in checked, `${what}: ${JSON.stringify(checked)}`);
    assert.match((checked as { unreadable: string }).unreadable, reason);
  });
}

test('a well-formed report passes unchanged; a missing one is undefined', () => {
  const checked = checkReport(JSON.stringify(good()));
  assert.ok(checked && 'report' in checked);
  assert.equal(JSON.parse(JSON.stringify((checked as { report: unknown }).report)), good());
  assert.is(checkReport(undefined), undefined);
});

const node = (name: string, annotation: string): NodeObject => ({
  name,
  labels: {},
  annotations: { 'kubernetes.azure.com/aks-node-controller-status': annotation },
  bootId: 'boot-1',
  osImage: '',
  architecture: '',
});

test('every hostile report at once: the view is built, they are unreadable, and a real failure still halts', () => {
  const failed = set('provision', { state: 'failed', exitCode: 34, name: 'ERR_KUBELET_START_FAIL' });
  const nodes = [...HOSTILE.map(([, text], i) => node(`evil-${i}`, text)), node('good-0', JSON.stringify(good())), node('bad-0', failed)];
  const live = { serial: 6, hotfixes: { '202604.01': '202604.01.1' } };
  const view = rolloutView(nodes, live, NOW);
  assert.is(view.totals.unreadable, HOSTILE.length);
  assert.is(view.totals.failedAmongTook, 1);
  assert.ok(crossesThreshold(view, { count: 0 }));
  assert.not.ok(crossesThreshold(rolloutView(nodes.slice(0, -1), live, NOW), { count: 0 }), 'unreadable reports never halt');
  const text = rolloutText(view);
  assert.not.match(
    text,
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them is the test.
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
    'nothing a node wrote reaches the terminal raw',
  );
  assert.match(text, new RegExp(`${HOSTILE.length} node\\(s\\) not counted toward any rollout`));
});

test('a report of a base the pointer does not target, or of a version it never offered, is apart and never halts', () => {
  const failedOther = JSON.stringify({
    ...good(),
    hotfix: { ...(good().hotfix as object), base: '202511.03' },
    running: '202511.03.9',
    provision: { state: 'failed', exitCode: 34, name: 'ERR_X' },
  });
  const failedUnoffered = set('running', '202604.01.7');
  const live = { serial: 6, hotfixes: { '202604.01': '202604.01.1' }, recall: [] };
  const view = rolloutView([node('a', failedOther), node('b', failedUnoffered)], live, NOW);
  assert.equal(
    view.nodes.map((n) => [n.name, n.bucket]),
    [
      ['a', 'untargeted'],
      ['b', 'untargeted'],
    ],
  );
  assert.match(view.nodes[0]!.problem!, /base 202511\.03 is not targeted/);
  assert.match(view.nodes[1]!.problem!, /runs 202604\.01\.7, which the live pointer never offered/);
  assert.not.ok(crossesThreshold(view, { count: 0 }));
  // The baked version and a recalled one are versions the pointer offered: they count.
  const baked = set('running', '202604.01.0');
  const onBaked = rolloutView([node('c', baked)], live, NOW);
  assert.is(onBaked.nodes[0]!.bucket !== 'untargeted', true);
});

test('silence is failure: a node with no report past the timeout after its wave opened is timedOut; missing Nodes too', () => {
  const opened = Date.parse('2026-11-27T05:00:00Z');
  const schedule = [{ at: '2026-11-27T05:00:00Z', atMs: opened, percent: 25 }];
  const live = { serial: 6, hotfixes: { '202604.01': '202604.01.1' }, rollout: { '202604.01': { percent: 0, salt: 's', schedule } } };
  const silent: NodeObject = { name: 'quiet', labels: {}, annotations: {}, bootId: 'b', osImage: '', architecture: '' };
  const early = rolloutView([silent], live, new Date(opened + 60_000), { reportTimeoutMs: 120_000, since: opened });
  assert.is(early.nodes[0]!.bucket, 'notReported');
  const late = rolloutView([silent], live, new Date(opened + 180_000), { reportTimeoutMs: 120_000, since: opened, expect: 3 });
  assert.is(late.nodes[0]!.bucket, 'timedOut');
  assert.equal([late.totals.timedOut, late.totals.missing], [3, 2]);
  assert.ok(crossesThreshold(late, { count: 2 }));
});

test.run();

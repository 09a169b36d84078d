// Waves on a signed schedule: the percent in force at the step edges, when a seed joins, the flag form,
// the checks on a schedule, and the signed and unsigned readers agreeing on it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePointer, serializePointer } from '../../../src/pointer/document.ts';
import { parseSignedPointer, renderSignedPointer } from '../../../src/pointer/payload.ts';
import { haltFields } from '../../../src/pointer/render.ts';
import { joinStep, nextStep, parseSchedule, parseScheduleFlag, percentAt } from '../../../src/pointer/schedule.ts';
import { decideWave, waveSeed } from '../../../src/pointer/wave.ts';

const fail = (detail: string): never => {
  throw new Error(detail);
};
const STEPS = parseSchedule(
  [
    { at: '2026-12-01T00:00:00Z', percent: 1 },
    { at: '2026-12-02T00:00:00Z', percent: 10 },
    { at: '2026-12-04T00:00:00Z', percent: 100 },
  ],
  fail,
);
const t = (iso: string) => new Date(iso);

test('percent at the step edges: 0 before the first step, a step counts from its exact instant', () => {
  assert.is(percentAt(STEPS, t('2026-11-30T23:59:59.999Z')), 0);
  assert.is(percentAt(STEPS, t('2026-12-01T00:00:00.000Z')), 1);
  assert.is(percentAt(STEPS, t('2026-12-01T23:59:59.999Z')), 1);
  assert.is(percentAt(STEPS, t('2026-12-02T00:00:00.000Z')), 10);
  assert.is(percentAt(STEPS, t('2026-12-03T23:59:59.999Z')), 10);
  assert.is(percentAt(STEPS, t('2026-12-04T00:00:00.000Z')), 100);
  assert.is(percentAt(STEPS, t('2030-01-01T00:00:00Z')), 100);
  assert.is(nextStep(STEPS, t('2026-12-01T00:00:00Z'))?.at, '2026-12-02T00:00:00Z');
  assert.is(nextStep(STEPS, t('2026-12-04T00:00:00Z')), undefined);
});

test('joins: the first step whose percent covers the seed; the seed rule keeps a node in once it is in', () => {
  assert.is(joinStep(STEPS, 0.005)?.at, '2026-12-01T00:00:00Z');
  assert.is(joinStep(STEPS, 0.01)?.at, '2026-12-02T00:00:00Z', 'seed < percent/100: 0.01 is not under 1%');
  assert.is(joinStep(STEPS, 0.5)?.at, '2026-12-04T00:00:00Z');
  assert.is(joinStep(STEPS, null)?.at, '2026-12-04T00:00:00Z', 'no identity: only 100% reaches it');
  const entry = { percent: 0, salt: 's', schedule: STEPS };
  for (let i = 0; i < 200; i++) {
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const joins = joinStep(STEPS, waveSeed(uuid, 's'))!.atMs;
    for (const now of [joins - 1, joins, joins + 86_400_000 * 5])
      assert.is(decideWave(entry, uuid, new Date(now)).inWave, now >= joins, `${uuid} at ${now}`);
  }
  const d = decideWave(entry, '00000000-0000-4000-8000-000000000001', t('2026-12-02T00:00:00Z'));
  assert.is(d.percent, 10);
  assert.is(d.nextStepAt, '2026-12-04T00:00:00Z');
});

test('checks: ascending in time and percent, UTC, real times, 0..100, not empty', () => {
  const bad = (value: unknown, pattern: RegExp) => assert.throws(() => parseSchedule(value, fail), pattern);
  bad([], /non-empty list/);
  bad(
    [
      { at: '2026-12-02T00:00:00Z', percent: 5 },
      { at: '2026-12-01T00:00:00Z', percent: 10 },
    ],
    /schedule\[1\]\.at must be later than schedule\[0\]\.at/,
  );
  bad(
    [
      { at: '2026-12-01T00:00:00Z', percent: 5 },
      { at: '2026-12-01T00:00:00Z', percent: 10 },
    ],
    /later than/,
  );
  bad(
    [
      { at: '2026-12-01T00:00:00Z', percent: 50 },
      { at: '2026-12-02T00:00:00Z', percent: 10 },
    ],
    /must not be lower/,
  );
  bad([{ at: '2026-12-01T00:00:00+01:00', percent: 5 }], /UTC time ending in Z/);
  bad([{ at: '2026-02-30T00:00:00Z', percent: 5 }], /RFC 3339/);
  bad([{ at: '2026-12-01T00:00:00Z', percent: 101 }], /from 0 to 100/);
  bad(['x'], /schedule\[0\] must be an object/);
});

test('--schedule flag: minutes without seconds, errors name the step', () => {
  const ok = parseScheduleFlag('202604.01=1@2026-12-01T00:00Z,10@2026-12-02T06:30:15Z,100@2026-12-04T00:00Z');
  assert.ok(!('error' in ok));
  if (!('error' in ok)) {
    assert.is(ok.base, '202604.01');
    assert.equal(
      ok.steps.map((s) => `${s.percent}@${s.at}`),
      ['1@2026-12-01T00:00:00Z', '10@2026-12-02T06:30:15Z', '100@2026-12-04T00:00:00Z'],
    );
  }
  assert.match((parseScheduleFlag('202604.01=1@2026-12-01') as { error: string }).error, /step "1@2026-12-01"/);
  assert.match((parseScheduleFlag('202604.01=10@2026-12-02T00:00Z,1@2026-12-03T00:00Z') as { error: string }).error, /must not be lower/);
});

test('the signed payload and the pointer file carry the schedule; the signed reader refuses unknown step keys', () => {
  const fields = {
    serial: 3,
    expires: '2099-01-01T00:00:00Z',
    scope: {},
    hotfixes: { '202604.01': '202604.01.1' },
    rollout: { '202604.01': { percent: 0, salt: 'x', schedule: STEPS } },
  };
  const text = renderSignedPointer(fields);
  const signed = parseSignedPointer(Buffer.from(text));
  assert.equal(signed.rollout?.['202604.01']?.schedule, STEPS);
  const file = parsePointer(text, 'p');
  assert.equal(file.rollout?.['202604.01']?.schedule, STEPS);
  assert.equal(parsePointer(serializePointer(file), 'p').rollout, file.rollout, 'the staged file keeps the schedule');
  const extra = text.replace('"percent":1}', '"percent":1,"pct":2}');
  assert.throws(() => parseSignedPointer(Buffer.from(extra)), /schedule\[0\]\.pct.* is not part of the signed pointer/);
  const unsorted = text.replace('"percent":10', '"percent":0');
  assert.throws(() => parseSignedPointer(Buffer.from(unsorted)), /schedule\[2\]|schedule\[1\]/);
});

test('halt: serial + 1, schedules frozen at the percent in force, --withdraw to 0 (bases without a wave too)', () => {
  const live = parseSignedPointer(
    Buffer.from(
      renderSignedPointer({
        serial: 7,
        expires: '2099-01-01T00:00:00Z',
        scope: { cluster: ['c'] },
        hotfixes: { '202604.01': '202604.01.1', '202605.02': '202605.02.3' },
        rollout: { '202604.01': { percent: 0, salt: 'x', schedule: STEPS } },
      }),
    ),
  );
  const frozen = haltFields(live, { at: t('2026-12-02T00:00:00Z'), withdraw: false });
  assert.is(frozen.serial, 8);
  assert.equal(frozen.rollout, { '202604.01': { percent: 10, salt: 'x' } });
  assert.equal(frozen.scope, { cluster: ['c'] });
  const withdrawn = haltFields(live, { at: t('2026-12-02T00:00:00Z'), withdraw: true });
  assert.equal(withdrawn.rollout, { '202604.01': { percent: 0, salt: 'x' }, '202605.02': { percent: 0, salt: '202605.02.3' } });
});

test.run();

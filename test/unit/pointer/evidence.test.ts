// The evidence gate's arithmetic and its key roles (pointer/schedule.ts, evidence.ts, evidence-gate.ts):
// gated steps in the flag and the signed bytes (older agents read only the ungated prefix), which percent
// is open with which evidence, what the watch may sign, and that a release key never signs evidence nor an
// observer key a pointer. End to end: test/e2e/fleet/rehearsal.test.ts (--gated --watch-dies-after-wave 1).
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePointer } from '../../../src/pointer/document.ts';
import { POINTER_PAYLOAD_TYPE, serializeEnvelope } from '../../../src/pointer/dsse.ts';
import { acceptEvidence, type Evidence, signEvidence } from '../../../src/pointer/evidence.ts';
import { awaitedStep, planEvidence } from '../../../src/pointer/evidence-gate.ts';
import { decidePointer } from '../../../src/pointer/gate.ts';
import { parseKeySet, type TrustedKey } from '../../../src/pointer/keys.ts';
import { parseSignedPointer, renderSignedPointer } from '../../../src/pointer/payload.ts';
import { openPercent, parseScheduleFlag, type ScheduleStep } from '../../../src/pointer/schedule.ts';
import { signPayload } from '../../../src/pointer/signature.ts';

const pem = () => {
  const pair = generateKeyPairSync('ed25519');
  return {
    priv: String(pair.privateKey.export({ type: 'pkcs8', format: 'pem' })),
    pub: String(pair.publicKey.export({ type: 'spki', format: 'pem' })),
  };
};
const release = pem();
const observer = pem();
const KEYS: TrustedKey[] = parseKeySet(
  JSON.stringify({
    keys: [
      { keyid: 'rel', algorithm: 'ed25519', publicKey: release.pub },
      { keyid: 'obs', algorithm: 'ed25519', publicKey: observer.pub, role: 'observer' },
    ],
  }),
  'test',
);

function steps(): ScheduleStep[] {
  const parsed = parseScheduleFlag('202604.01=1@2026-12-01T00:00Z,10@2026-12-02T00:00Z!,100@2026-12-04T00:00Z!');
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.steps;
}

test('--schedule: `!` gates a step; the first step cannot be gated; a role other than release/observer is refused', () => {
  assert.equal(
    steps().map((s) => [s.percent, s.gated === true]),
    [
      [1, false],
      [10, true],
      [100, true],
    ],
  );
  const first = parseScheduleFlag('202604.01=1@2026-12-01T00:00Z!,10@2026-12-02T00:00Z');
  assert.ok('error' in first && /schedule\[0\] cannot be gated/.test(first.error));
  assert.throws(
    () => parseKeySet(JSON.stringify({ keys: [{ keyid: 'x', algorithm: 'ed25519', publicKey: release.pub, role: 'admin' }] }), 'k'),
    /keys\[0\]\.role must be "release" or "observer"/,
  );
});

test('signed bytes: `schedule` holds only the ungated prefix (older agents stay there), `gatedSchedule` all steps', () => {
  const text = renderSignedPointer({
    serial: 3,
    expires: '2027-01-01T00:00:00Z',
    scope: {},
    hotfixes: { '202604.01': '202604.01.1' },
    rollout: { '202604.01': { percent: 0, salt: 's', schedule: steps() } },
  });
  const doc = JSON.parse(text);
  assert.equal(doc.rollout['202604.01'].schedule, [{ at: '2026-12-01T00:00:00Z', percent: 1 }]);
  assert.is(doc.rollout['202604.01'].gatedSchedule.length, 3);
  const back = parseSignedPointer(Buffer.from(text));
  assert.equal(
    back.rollout!['202604.01']!.schedule!.map((s) => s.gated === true),
    [false, true, true],
  );
  // The staged pointer file reads the same three steps back; a tampered prefix is refused.
  assert.is(parsePointer(text, 'p').rollout!['202604.01']!.schedule!.length, 3);
  doc.rollout['202604.01'].schedule = [{ at: '2026-12-01T00:00:00Z', percent: 5 }];
  assert.throws(() => parseSignedPointer(Buffer.from(JSON.stringify(doc))), /schedule must be the steps of gatedSchedule/);
});

test('openPercent: the clock opens ungated steps; a gated one only with evidence for it (or a later step)', () => {
  const s = steps();
  const at = (t: string) => new Date(t);
  assert.equal(openPercent(s, at('2026-12-01T12:00:00Z'), 0), { percent: 1 });
  assert.equal(openPercent(s, at('2026-12-02T12:00:00Z'), 0), { percent: 1, awaiting: 1 });
  assert.equal(openPercent(s, at('2026-12-02T12:00:00Z'), 2), { percent: 10 });
  assert.equal(openPercent(s, at('2026-12-05T00:00:00Z'), 2), { percent: 10, awaiting: 2 });
  assert.equal(openPercent(s, at('2026-12-05T00:00:00Z'), 3), { percent: 100 });
  // Evidence never opens a step whose time has not come.
  assert.equal(openPercent(s, at('2026-12-01T12:00:00Z'), 3), { percent: 1 });
  const live = { step: 2, serial: 3, expires: '2026-12-03T00:00:00Z' };
  assert.is(awaitedStep(s, live, 3, at('2026-12-02T12:00:00Z')), undefined);
  assert.is(awaitedStep(s, live, 4, at('2026-12-02T12:00:00Z'))?.index, 1, 'evidence for another serial opens nothing');
  assert.is(awaitedStep(s, live, 3, at('2026-12-03T00:00:01Z'))?.index, 1, 'expired evidence opens nothing');
});

test('planEvidence: healthy waves open the next gated step, never past the schedule; too few on the hotfix waits', () => {
  const s = steps();
  const counts = { nodes: 200, onHotfix: 2, failed: 0, timedOut: 0 };
  const early = planEvidence(s, undefined, 3, new Date('2026-12-01T12:00:00Z'), counts, 1)!;
  assert.is(early.step, 0, 'never before the gated step time: a watch that dies before it leaves nothing that opens it');
  assert.match(early.waiting!, /step 2 \(10%\) opens at 2026-12-02T00:00:00Z if the wave before it is healthy then/);
  const day2 = new Date('2026-12-02T00:00:10Z');
  const plan = planEvidence(s, undefined, 3, day2, counts, 1)!;
  assert.equal([plan.step, plan.required, plan.write], [2, 2, true]);
  assert.is(plan.expiresMs, day2.getTime() + 2 * 86_400_000, 'two step intervals from signing');
  const short = planEvidence(s, undefined, 3, day2, { ...counts, onHotfix: 1 }, 1)!;
  assert.is(short.step, 0);
  assert.match(short.waiting!, /needs 2 node\(s\) on the hotfix, 1 are/);
  const all = planEvidence(s, undefined, 3, new Date('2026-12-09T00:00:00Z'), { ...counts, onHotfix: 200 }, 1)!;
  assert.is(all.step, 3);
  const fresh = { step: 3, serial: 3, expires: new Date(all.expiresMs).toISOString() };
  assert.is(planEvidence(s, fresh, 3, new Date('2026-12-09T00:00:00Z'), { ...counts, onHotfix: 200 }, 1)!.write, false);
});

const EVIDENCE: Evidence = {
  schemaVersion: 1,
  serial: 3,
  time: '2026-12-02T00:00:00Z',
  expires: '2026-12-06T00:00:00Z',
  bases: { '202604.01': { step: 2, percent: 10, counts: { nodes: 200, onHotfix: 2, required: 2, failed: 0, timedOut: 0 } } },
};
const NOW = new Date('2026-12-02T01:00:00Z');

test('key roles: the node accepts evidence only from an observer key, and a pointer only from a release key', () => {
  const good = acceptEvidence(signEvidence(EVIDENCE, observer.priv, 'obs'), KEYS, 3, NOW);
  assert.ok('evidence' in good && good.keyid === 'obs');
  const byRelease = acceptEvidence(signEvidence(EVIDENCE, release.priv, 'rel'), KEYS, 3, NOW);
  assert.ok('refused' in byRelease && /rel, a key whose role is not observer: a release key never signs evidence/.test(byRelease.refused));
  const other = acceptEvidence(signEvidence(EVIDENCE, observer.priv, 'obs'), KEYS, 4, NOW);
  assert.ok('refused' in other && /for pointer serial 3, not 4/.test(other.refused));
  const late = acceptEvidence(signEvidence(EVIDENCE, observer.priv, 'obs'), KEYS, 3, new Date('2026-12-06T00:00:00Z'));
  assert.ok('refused' in late && /expired/.test(late.refused));
  // A pointer signed by the observer key is refused, whatever it says.
  const payload = Buffer.from(
    renderSignedPointer({ serial: 9, expires: '2027-01-01T00:00:00Z', scope: {}, hotfixes: { '202604.01': '202604.01.9' } }),
  );
  const { sig } = signPayload(payload, observer.priv, 'obs');
  const envelope = serializeEnvelope({ payloadType: POINTER_PAYLOAD_TYPE, payload, signatures: [{ keyid: 'obs', sig }] });
  const verdict = decidePointer({ envelope }, { mode: 'enforce', keys: KEYS, facts: undefined, minSerial: 0, now: NOW });
  assert.is(verdict.accepted, false);
  assert.match((verdict as { reason: string }).reason, /obs, a key whose role is not release: an observer key signs only evidence/);
});

test.run();

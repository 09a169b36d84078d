// Pointer signing in-process: DSSE PAE (the specification's worked shape), strict base64, the payload
// schema, scope matching, render flag checks, and the exhaustive tamper property: every single-bit flip
// of every byte of the envelope text, of the payload and of the signature is refused.
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pae, parseEnvelope, POINTER_PAYLOAD_TYPE, serializeEnvelope, strictBase64 } from '../../../src/pointer/dsse.ts';
import { decidePointer, signingMode, type GateContext } from '../../../src/pointer/gate.ts';
import { parseKeySet } from '../../../src/pointer/keys.ts';
import { parseSignedPointer, renderSignedPointer } from '../../../src/pointer/payload.ts';
import { pointerFieldsFromFlags } from '../../../src/pointer/render.ts';
import { nodeFacts, outOfScopeReason } from '../../../src/pointer/scope.ts';
import { signPayload } from '../../../src/pointer/signature.ts';
import type { AgentError } from '../../../src/platform/errors.ts';

const pair = generateKeyPairSync('ed25519');
const PRIVATE = String(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
const KEYS = [{ keyid: 'k1', algorithm: 'ed25519' as const, publicKey: String(pair.publicKey.export({ type: 'spki', format: 'pem' })) }];
const NOW = new Date('2026-11-23T00:00:00Z');
const CONTEXT: GateContext = { mode: 'enforce', keys: KEYS, facts: { region: 'eastus' }, minSerial: 0, now: NOW };
const TEXT = renderSignedPointer({
  serial: 5,
  expires: '2027-01-01T00:00:00Z',
  scope: { region: ['eastus'] },
  hotfixes: { '202604.01': '202604.01.1' },
  rollout: { '202604.01': { percent: 10, salt: 's' } },
});

function signedEnvelope(text = TEXT): string {
  const payload = Buffer.from(text);
  const { sig } = signPayload(payload, PRIVATE, 'k1');
  return serializeEnvelope({ payloadType: POINTER_PAYLOAD_TYPE, payload, signatures: [{ keyid: 'k1', sig }] });
}

test('PAE follows DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body', () => {
  assert.is(
    pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString(),
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
  assert.is(pae('t', Buffer.from('é')).toString('latin1').startsWith('DSSEv1 1 t 2 '), true, 'lengths are byte counts');
});

test('strict base64: both alphabets, padded or not, only canonical', () => {
  assert.equal(strictBase64('aGk=', 'x'), Buffer.from('hi'));
  assert.equal(strictBase64('aGk', 'x'), Buffer.from('hi'));
  assert.equal(strictBase64('-_8', 'x'), Buffer.from([0xfb, 0xff]));
  for (const bad of ['aGl=', 'aG k=', 'aGk==', 'a+_b', 5])
    assert.throws(
      () => strictBase64(bad, 'x'),
      (e: AgentError) => e.step === 'signatureInvalid',
      String(bad),
    );
});

test('accepted: only the signed bytes come out, with key id and serial', () => {
  const verdict = decidePointer({ envelope: signedEnvelope(), unsignedText: '{"hotfixes":{"x":"y"}}' }, CONTEXT);
  assert.ok(verdict.accepted && verdict.signed);
  if (verdict.accepted && verdict.signed) {
    assert.is(verdict.text, TEXT);
    assert.is(verdict.keyid, 'k1');
    assert.is(verdict.pointer.serial, 5);
    assert.equal(verdict.pointer.rollout, { '202604.01': { percent: 10, salt: 's' } });
  }
});

test('property: every single-bit flip of the envelope text, the payload or the signature is refused', () => {
  const good = signedEnvelope();
  let checked = 0;
  const refused = (envelope: string, what: string) => {
    const verdict = decidePointer({ envelope }, CONTEXT);
    checked++;
    if (verdict.accepted) assert.unreachable(`${what} verified`);
  };
  const text = Buffer.from(good);
  for (let i = 0; i < text.length; i++) {
    for (let bit = 0; bit < 8; bit++) {
      const copy = Buffer.from(text);
      copy[i]! ^= 1 << bit;
      refused(copy.toString('latin1'), `envelope text byte ${i} bit ${bit}`);
    }
  }
  const doc = JSON.parse(good);
  for (const field of ['payload', 'sig'] as const) {
    const bytes = Buffer.from(field === 'payload' ? doc.payload : doc.signatures[0].sig, 'base64');
    for (let i = 0; i < bytes.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const copy = Buffer.from(bytes);
        copy[i]! ^= 1 << bit;
        const tampered =
          field === 'payload'
            ? { ...doc, payload: copy.toString('base64') }
            : { ...doc, signatures: [{ keyid: 'k1', sig: copy.toString('base64') }] };
        refused(JSON.stringify(tampered), `${field} byte ${i} bit ${bit}`);
      }
    }
  }
  assert.ok(checked > 8 * (good.length + 64 + TEXT.length) - 1, `${checked} flips`);
});

test('the checks in order: rolledBack, expired, outOfScope; unsigned by mode', () => {
  const env = signedEnvelope();
  const outcome = (context: Partial<GateContext>, input: object = { envelope: env }) => {
    const verdict = decidePointer(input, { ...CONTEXT, ...context });
    return verdict.accepted ? 'accepted' : verdict.outcome;
  };
  assert.is(outcome({ minSerial: 6 }), 'rolledBack');
  assert.is(outcome({ minSerial: 5 }), 'accepted');
  assert.is(outcome({ now: new Date('2027-01-01T00:00:00Z') }), 'expired');
  assert.is(outcome({ minSerial: 9, now: new Date('2028-01-01T00:00:00Z') }), 'rolledBack');
  assert.is(outcome({ facts: { region: 'westus' } }), 'outOfScope');
  assert.is(outcome({ facts: undefined }), 'accepted');
  assert.is(outcome({ keys: [] }), 'signatureInvalid');
  assert.is(outcome({}, { unsignedText: '{}' }), 'unsigned');
  assert.is(outcome({ mode: 'unsigned-allowed' }, { unsignedText: '{}' }), 'accepted');
});

test('signing mode: default unsigned-allowed, a typo enforces with a warning', () => {
  assert.equal(signingMode(undefined), { mode: 'unsigned-allowed' });
  assert.equal(signingMode(' enforce '), { mode: 'enforce' });
  assert.is(signingMode('Enforce').mode, 'enforce');
  assert.ok(signingMode('Enforce').warning);
});

test('payload schema: every field named when wrong', () => {
  const base = JSON.parse(TEXT);
  const problems: Array<[object, string]> = [
    [{ ...base, schemaVersion: 2 }, 'schemaVersion 2 is not supported'],
    [{ ...base, serial: 1.5 }, 'serial must be an integer >= 1'],
    [{ ...base, serial: 0 }, 'serial must be an integer >= 1'],
    [{ ...base, expires: '2027-01-01' }, 'is not a valid RFC 3339 time'],
    [{ ...base, scope: { region: 'eastus' } }, 'scope.region must be a list of strings'],
    [{ ...base, hotfixes: { a: 1 } }, 'hotfixes["a"] must be a string'],
    [{ ...base, rollout: { a: { percent: 101, salt: 's' } } }, 'rollout["a"].percent must be a number from 0 to 100'],
  ];
  for (const [doc, message] of problems) {
    assert.throws(
      () => parseSignedPointer(Buffer.from(JSON.stringify(doc))),
      (e: AgentError) => e.message.includes(message),
      message,
    );
  }
  assert.throws(() => parseSignedPointer(Buffer.from([0xff, 0xfe])), /not UTF-8/);
});

test('scope: node facts from the configuration, every key must match, missing facts are out of scope', () => {
  const facts = nodeFacts({
    apiServerConfig: { apiServerName: 'https://My-Aks.hcp.eastus.azmk8s.io:443' },
    clusterConfig: { location: 'eastus' },
  });
  assert.equal(facts, { cluster: 'My-Aks.hcp.eastus.azmk8s.io', region: 'eastus' });
  assert.is(outOfScopeReason({}, facts), undefined);
  assert.is(outOfScopeReason({ cluster: ['my-aks.hcp.eastus.azmk8s.io'], region: ['westus', 'eastus'] }, facts), undefined);
  assert.match(outOfScopeReason({ subscription: ['s'] }, facts)!, 'has no subscription');
  assert.match(outOfScopeReason({ region: [] }, facts)!, 'empty list');
});

test('render flags: shapes, duplicates, waves only for listed bases, expiry in the future', () => {
  const flags = {
    hotfix: ['202604.01=202604.01.2'],
    rollout: ['202604.01=12.5:a:b'],
    serial: '3',
    expires: '2027-01-01T00:00:00Z',
    scope: ['region=eastus', 'region=westus', 'region=eastus'],
  };
  assert.equal(pointerFieldsFromFlags(flags, NOW), {
    serial: 3,
    expires: '2027-01-01T00:00:00Z',
    scope: { region: ['eastus', 'westus'] },
    hotfixes: { '202604.01': '202604.01.2' },
    rollout: { '202604.01': { percent: 12.5, salt: 'a:b' } },
  });
  const bad: Array<[object, string]> = [
    [{ hotfix: ['202604.1=202604.1.1'] }, 'expected BASE=VERSION'],
    [{ hotfix: ['202604.01=202604.01.1', '202604.01=202604.01.2'], rollout: [] }, 'given twice'],
    [{ rollout: ['202605.01=10:a'] }, 'has no --hotfix'],
    [{ rollout: ['202604.01=101:a'] }, 'PERCENT 0..100'],
    [{ rollout: ['202604.01=10'] }, 'BASE=PERCENT:SALT'],
    [{ serial: '0' }, '--serial "0"'],
    [{ serial: undefined }, '--serial is missing: '],
    [{ expires: undefined }, '--expires is missing: '],
    [{ expires: '2020-01-01T00:00:00Z' }, 'already past'],
    [{ scope: ['zone=1'] }, 'KEY one of cluster, region, subscription, resourceGroup'],
  ];
  for (const [change, message] of bad)
    assert.throws(
      () => pointerFieldsFromFlags({ ...flags, ...change }, NOW),
      (e: AgentError) => e.message.includes(message),
      message,
    );
});

test('key sets: the documented format; ids unique; errors name the field', () => {
  assert.equal(parseKeySet('', 'x'), []);
  assert.is(parseKeySet(JSON.stringify({ keys: KEYS }), 'x')[0]!.keyid, 'k1');
  assert.throws(() => parseKeySet(JSON.stringify({ keys: [...KEYS, ...KEYS] }), 'f'), /keyid "k1" appears twice/);
  assert.throws(() => parseKeySet('{"keys":[{"keyid":"a b"}]}', 'f'), /keys\[0\]\.keyid/);
  assert.throws(() => parseKeySet('{', 'f'), /pointer key set f: not valid JSON/);
});

test('an envelope is parsed with exact keys; signatures need base64', () => {
  assert.throws(() => parseEnvelope({ payloadType: 'x', payload: 'e30=', signatures: [] }), /signatures is missing or empty/);
  assert.throws(() => parseEnvelope({ PayloadType: 'x', payload: 'e30=', signatures: [{ sig: 'AA==' }] }), /unknown field "PayloadType"/);
  assert.throws(() => parseEnvelope({ payload: 'e30=', signatures: [{ sig: 'AA==' }] }), /payloadType is missing/);
  assert.throws(
    () => parseEnvelope({ payloadType: 'x', payload: 'e30=', signatures: [{ sig: 'AA==', jeyid: 'k1' }] }),
    /signatures\[0\]: unknown field "jeyid"/,
  );
  assert.throws(() => parseEnvelope([]), /not a JSON object/);
  const many = Array.from({ length: 17 }, () => ({ sig: 'AA==' }));
  assert.throws(() => parseEnvelope({ payloadType: 'x', payload: 'e30=', signatures: many }), /17 signatures \(at most 16\)/);
});

test.run();

// check-hotfix on the compiled binary (built with test keys baked in) against the apiserver stand-in:
// every pointer-signing outcome, both modes, the anti-rollback floor (state file and the node's own
// custom data), scope against the node configuration, and the cold-start envelope. A rejection stages
// nothing, exits 0 and says why in the event and the log.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import {
  ANC_VERSION,
  CM_KEY,
  EXISTING_POINTER,
  LOG,
  assertRun,
  mergedPointer,
  nodeFor,
  registerSecretGrep,
  runCheck,
  type CheckRun,
  type NodeSetup,
} from '../check-hotfix/node.ts';
import { CURRENT, NEXT, SIGNED_BIN, STRANGER, envelope, payload, signedData, type PayloadFields } from './keys.ts';

const SERIAL_STATE = '/opt/azure/containers/aks-node-controller-hotfix-serial.json';
const HOTFIXES = { [ANC_VERSION.base]: ANC_VERSION.target };

interface Case {
  data: unknown;
  setup?: NodeSetup;
  mode?: string;
  before?: (run: { sb: ReturnType<typeof nodeFor> }) => void;
}

async function check(c: Case): Promise<CheckRun> {
  const api: FakeApiServer = await startFakeApiServer({ configMaps: c.data === undefined ? {} : { [CM_KEY]: c.data } });
  try {
    const sb = nodeFor(api, c.setup ?? {});
    c.before?.({ sb });
    return await runCheck(sb, { bin: SIGNED_BIN, env: c.mode === undefined ? {} : { ANC_HOTFIX_POINTER_SIGNING: c.mode } });
  } finally {
    await api.close();
  }
}

function logLines(run: CheckRun): Array<Record<string, unknown>> {
  const path = run.sb.path(LOG);
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
}

function assertRejected(run: CheckRun, outcome: string, reason: RegExp, logOutcome = outcome): void {
  assertRun(run, outcome);
  assert.match(run.error, reason);
  assert.is(run.pointer, EXISTING_POINTER, 'nothing staged: the pointer file is untouched');
  const line = logLines(run).find((l) => l.msg === `hotfix pointer rejected: outcome=${logOutcome}; nothing staged`);
  assert.ok(line, 'a log line names the rejection');
  assert.is(line!.outcome, logOutcome);
}

const signed = (fields: PayloadFields, keys = [CURRENT]) => signedData({ hotfixes: HOTFIXES, ...fields }, keys);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('signed and valid: staged from the signed bytes only, serial recorded (both modes)', async () => {
  for (const mode of [undefined, 'enforce', 'unsigned-allowed']) {
    const data = signed({ serial: 7 });
    // The unsigned copy says something else: the node must not read it.
    data['hotfixes.json'] = JSON.stringify({ hotfixes: { [ANC_VERSION.base]: `${ANC_VERSION.base}.99` } });
    const run = await check({ data, mode });
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, mergedPointer(HOTFIXES));
    const state = JSON.parse(run.sb.read(SERIAL_STATE));
    assert.is(state.serial, 7);
    assert.is(state.keyid, CURRENT.keyid);
    assert.ok(logLines(run).some((l) => l.msg === 'hotfix pointer signature verified' && l.serial === 7));
  }
});

test('rotation by overlap: signed by the next key only, or by a stranger and the next key', async () => {
  assertRun(await check({ data: signed({}, [NEXT]), mode: 'enforce' }), 'configMapRead');
  assertRun(await check({ data: signed({}, [STRANGER, NEXT]), mode: 'enforce' }), 'configMapRead');
});

test('unsigned: refused in enforce (outcome unsigned), read as before in unsigned-allowed and by default', async () => {
  const data = { 'hotfixes.json': JSON.stringify({ hotfixes: HOTFIXES }) };
  assertRejected(await check({ data, mode: 'enforce' }), 'unsigned', /carries no signature/);
  for (const mode of [undefined, 'unsigned-allowed']) {
    const run = await check({ data, mode });
    assertRun(run, 'configMapRead');
    assert.is(run.pointer, mergedPointer(HOTFIXES));
    assert.not.ok(existsSync(run.sb.path(SERIAL_STATE)), 'an unsigned pointer raises no serial');
  }
});

test('an unknown mode enforces (the safe reading of a typo) and says so', async () => {
  const run = await check({ data: { 'hotfixes.json': JSON.stringify({ hotfixes: HOTFIXES }) }, mode: 'enforced' });
  assertRejected(run, 'unsigned', /no signature/);
  assert.ok(
    logLines(run).some((l) =>
      String(l.msg).includes('ANC_HOTFIX_POINTER_SIGNING="enforced" is not enforce or unsigned-allowed; enforcing'),
    ),
  );
});

test('signatureInvalid: a stranger key, a tampered payload, a tampered signature, a broken envelope (in every mode)', async () => {
  const tamperedPayload = signed({});
  const env = JSON.parse(tamperedPayload['pointer.dsse.json']!);
  env.payload = Buffer.from(payload({ hotfixes: { [ANC_VERSION.base]: `${ANC_VERSION.base}.66` } })).toString('base64');
  tamperedPayload['pointer.dsse.json'] = JSON.stringify(env);
  const tamperedSig = signed({});
  const env2 = JSON.parse(tamperedSig['pointer.dsse.json']!);
  const sig = Buffer.from(env2.signatures[0].sig, 'base64');
  sig[10]! ^= 1;
  env2.signatures[0].sig = sig.toString('base64');
  tamperedSig['pointer.dsse.json'] = JSON.stringify(env2);
  const cases: Array<[Record<string, string>, RegExp]> = [
    [signed({}, [STRANGER]), /no signature by a trusted key \(signed by: stranger/],
    [tamperedPayload, /signature by key fleet-2026a does not verify/],
    [tamperedSig, /does not verify/],
    [{ ...signed({}), 'pointer.dsse.json': '{"payload":' }, /DSSE envelope: not valid JSON/],
    [
      { 'hotfixes.json': payload({}), 'pointer.dsse.json': envelope(payload({}), [CURRENT], 'application/json') },
      /payloadType "application\/json" is not/,
    ],
  ];
  for (const [data, reason] of cases) {
    for (const mode of ['enforce', 'unsigned-allowed']) assertRejected(await check({ data, mode }), 'signatureInvalid', reason);
  }
});

test('expired: refused after its expiry time', async () => {
  assertRejected(await check({ data: signed({ expires: '2020-01-01T00:00:00Z' }) }), 'expired', /expired at 2020-01-01T00:00:00Z/);
});

test('rolledBack: lower than the recorded serial; equal is accepted; the floor only rises', async () => {
  const run = await check({
    data: signed({ serial: 4 }),
    before: ({ sb }) => sb.write(SERIAL_STATE, '{"serial":5,"keyid":"x","acceptedAt":"2026-01-01T00:00:00Z"}'),
  });
  assertRejected(run, 'rolledBack', /serial 4 is lower than 5/);
  const same = await check({
    data: signed({ serial: 5 }),
    before: ({ sb }) => sb.write(SERIAL_STATE, '{"serial":5,"keyid":"x","acceptedAt":"a"}'),
  });
  assertRun(same, 'configMapRead');
  // A state file from before the payload digest was kept gains it (same serial, floor unchanged).
  const state = JSON.parse(same.sb.read(SERIAL_STATE));
  assert.is(state.serial, 5);
  assert.is(state.payloadSha256, sha256(payload({ serial: 5, hotfixes: HOTFIXES })));
});

test('a reused serial: the node records the payload digest and refuses another payload at that serial', async () => {
  const first = payload({ serial: 5, hotfixes: HOTFIXES });
  const accepted = `{"serial":5,"keyid":"x","acceptedAt":"a","payloadSha256":"${sha256(first)}"}`;
  // The same payload again (a re-apply, another boot): accepted, state untouched.
  const again = await check({ data: signed({ serial: 5 }), before: ({ sb }) => sb.write(SERIAL_STATE, accepted) });
  assertRun(again, 'configMapRead');
  assert.is(again.sb.read(SERIAL_STATE), accepted);
  // Another payload signed under the same serial: refused, nothing staged, the reason names both digests.
  const other = await check({
    data: signedData({ serial: 5, hotfixes: { [ANC_VERSION.base]: `${ANC_VERSION.base}.7` } }),
    before: ({ sb }) => sb.write(SERIAL_STATE, accepted),
  });
  assertRejected(
    other,
    'rolledBack',
    /serial 5 was already accepted with another payload \(sha256 [0-9a-f]{12}…, this one [0-9a-f]{12}…\)/,
  );
  // A fresh node records the digest of what it accepted.
  const fresh = await check({ data: signed({ serial: 9 }) });
  assert.is(JSON.parse(fresh.sb.read(SERIAL_STATE)).payloadSha256, sha256(payload({ serial: 9, hotfixes: HOTFIXES })));
});

test('an unreadable serial state counts as a fresh node, with a warning, and is rewritten on accept', async () => {
  const run = await check({ data: signed({ serial: 2 }), before: ({ sb }) => sb.write(SERIAL_STATE, 'SECRETTOKEN.abcdef') });
  assertRun(run, 'configMapRead');
  const warning = logLines(run).find((l) => l.msg === 'hotfix pointer serial state is unreadable; treating this node as fresh');
  assert.ok(warning);
  // The file is named with a byte offset; its content is never quoted (it may be a symlink to a secret).
  assert.is(warning!.error, 'not valid JSON (syntax error at byte offset 0 of 18)');
  assert.not.match(run.sb.read(LOG), 'SECRET');
  assert.is(JSON.parse(run.sb.read(SERIAL_STATE)).serial, 2);
});

test('fresh node: its own signed custom-data pointer sets the floor; an unverifiable one does not', async () => {
  const own = (serial: number, keys = [CURRENT]) => ({ extra: { hotfixPointerEnvelope: JSON.parse(envelope(payload({ serial }), keys)) } });
  assertRejected(await check({ data: signed({ serial: 3 }), setup: own(6) }), 'rolledBack', /serial 3 is lower than 6/);
  assertRun(await check({ data: signed({ serial: 6 }), setup: own(6) }), 'configMapRead');
  assertRun(await check({ data: signed({ serial: 3 }), setup: own(6, [STRANGER]) }), 'configMapRead');
});

test('outOfScope: scope against the node configuration (region, cluster), unknown keys, missing facts', async () => {
  const node = { extra: { clusterConfig: { location: 'eastus', resourceGroup: 'rg1' }, authConfig: { subscriptionId: 'sub-1' } } };
  assertRun(
    await check({ data: signed({ scope: { region: ['westus', 'EastUS'], subscription: ['sub-1'] } }), setup: node }),
    'configMapRead',
  );
  assertRejected(
    await check({ data: signed({ scope: { region: ['westus'] } }), setup: node }),
    'outOfScope',
    /region "eastus" is not in the scope \(westus\)/,
  );
  const api = await startFakeApiServer();
  const cluster = api.address.split(':')[0]!;
  await api.close();
  assertRun(await check({ data: signed({ scope: { cluster: [cluster] } }), setup: node }), 'configMapRead');
  assertRejected(
    await check({ data: signed({ scope: { cluster: ['other.hcp.eastus.azmk8s.io'] } }), setup: node }),
    'outOfScope',
    /cluster/,
  );
  assertRejected(await check({ data: signed({ scope: { zone: ['1'] } }), setup: node }), 'outOfScope', /scope key "zone" is unknown/);
  assertRejected(await check({ data: signed({ scope: { region: ['eastus'] } }) }), 'outOfScope', /has no region/);
});

test('a signed payload this agent cannot read is refused (failed), nothing staged', async () => {
  const text = JSON.stringify({ schemaVersion: 2, serial: 1, expires: '2099-01-01T00:00:00Z', scope: {}, hotfixes: {} });
  const run = await check({ data: { 'hotfixes.json': text, 'pointer.dsse.json': envelope(text, [CURRENT]) } });
  assertRejected(run, 'failed', /schemaVersion 2 is not supported/, 'invalidPayload');
});

test('cold start (fetch failed): the node config envelope follows the same rules', async () => {
  const own = (text: string, keys = [CURRENT]) => ({ extra: { hotfixPointerEnvelope: JSON.parse(envelope(text, keys)) } });
  const good = await check({ data: undefined, setup: own(payload({ serial: 2, hotfixes: HOTFIXES })), mode: 'enforce' });
  assertRun(good, 'customDataFallback');
  assert.is(good.pointer, mergedPointer(HOTFIXES));
  assert.is(JSON.parse(good.sb.read(SERIAL_STATE)).serial, 2);
  assertRejected(
    await check({ data: undefined, setup: own(payload({ hotfixes: HOTFIXES }), [STRANGER]) }),
    'signatureInvalid',
    /trusted key/,
  );
  assertRejected(await check({ data: undefined, setup: own(payload({ expires: '2001-01-01T00:00:00Z' })) }), 'expired', /expired/);
  assertRejected(await check({ data: undefined, setup: { extra: { hotfixes: HOTFIXES } }, mode: 'enforce' }), 'unsigned', /no signature/);
  const legacy = await check({ data: undefined, setup: { extra: { hotfixes: HOTFIXES } } });
  assertRun(legacy, 'customDataFallback');
});

registerSecretGrep(test);
test.run();

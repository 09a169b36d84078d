// The publishing loop on the compiled binary: render -> sign -> real `kubectl apply` -> `kubectl get` ->
// check-hotfix reads it back; widening a wave and withdrawing a hotfix with `kubectl replace`; `verify`
// on files and on the cluster, naming every outcome (exit 0 accepted, 1 rejected); flipped bytes of the
// payload or the signature never verify; the build and `version -o json` name the baked key ids; the
// private key never appears in any output; the launcher hands the mode over from enabled_features.sh.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigFor, startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import { imagePaths, recordedCalls, runLauncher, writeFakeAgent, writeHostname } from '../../fakes/node-image.ts';
import { ANC_VERSION, CM_KEY, assertRun, nodeFor, runCheck } from '../check-hotfix/node.ts';
import { runAnc, type RunOutcome } from '../harness.ts';
import { BUILD_OUTPUT, CURRENT, KEYSET_FILE, NEXT, SIGNED_BIN, STRANGER, envelope, keyFile, payload } from './keys.ts';
import { type KubectlRun, runKubectl } from './kubectl.ts';

const ADMIN = 'admin0.0123456789abcdef';
const WORK = mkdtempSync(join(tmpdir(), 'anc-publish-'));
const OUTPUTS: string[] = [];
test.after(() => rmSync(WORK, { recursive: true, force: true }));

async function anc(args: string[]): Promise<RunOutcome> {
  const out = await runAnc(args, { bin: SIGNED_BIN, root: WORK, cwd: WORK });
  OUTPUTS.push(out.stdout, out.stderr);
  return out;
}

function kubectl(api: FakeApiServer, args: string[]): Promise<KubectlRun> {
  const kubeconfig = join(WORK, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(api, { token: ADMIN }), { mode: 0o600 });
  return runKubectl(kubeconfig, WORK, args);
}

/** check-hotfix again on the same node: only this run's event counts. */
function again(sb: ReturnType<typeof nodeFor>) {
  rmSync(sb.path('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events'), { recursive: true, force: true });
  return runCheck(sb, { bin: SIGNED_BIN, env: { ANC_HOTFIX_POINTER_SIGNING: 'enforce' } });
}

const BASE = ANC_VERSION.base;
const TARGET = ANC_VERSION.target;
// Weeks away, as the docs ask (an expiry over 90 days away is warned about).
const EXPIRES = new Date(Date.now() + 60 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function renderSigned(name: string, flags: string[], keys = [CURRENT]): Promise<string> {
  const rendered = await anc(['hotfix', 'pointer', 'render', ...flags, '--expires', EXPIRES]);
  assert.is(rendered.exitCode, 0, rendered.stderr);
  let file = join(WORK, `${name}.yaml`);
  writeFileSync(file, rendered.stdout);
  for (const key of keys) {
    const out = await anc(['hotfix', 'pointer', 'sign', '--key', keyFile(key), '--key-id', key.keyid, file]);
    assert.is(out.exitCode, 0, out.stderr);
    file = join(WORK, `${name}-signed-${key.keyid}.yaml`);
    writeFileSync(file, out.stdout);
  }
  return file;
}

test('the build prints the baked key ids; version -o json lists them under pointerKeyIds', async () => {
  assert.match(BUILD_OUTPUT, `pointer keys baked: ${CURRENT.keyid}, ${NEXT.keyid}`);
  const out = await anc(['version', '-o', 'json']);
  assert.is(out.exitCode, 0);
  assert.equal(JSON.parse(out.stdout).pointerKeyIds, [CURRENT.keyid, NEXT.keyid]);
  const plain = await runAnc(['version', '-o', 'json'], { root: WORK });
  assert.equal(JSON.parse(plain.stdout).pointerKeyIds, [], 'the default test build bakes no keys');
});

test('a bad key set fails the build with the file and the field named', async () => {
  const bad = join(WORK, 'bad-keys.json');
  writeFileSync(bad, JSON.stringify({ keys: [{ keyid: 'k', algorithm: 'rsa', publicKey: CURRENT.publicPem }] }));
  const build = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['build.mjs', '--quiet', '--outdir', join(WORK, 'badbuild'), ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...env },
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  for (const out of [await build(['--pointer-keys', bad]), await build([], { ANC_POINTER_KEYS: bad })]) {
    assert.is(out.code, 1);
    assert.match(out.stderr, `--pointer-keys ${bad}: keys[0].algorithm must be "ed25519"`);
  }
});

test('publish with kubectl apply, read back with kubectl get and check-hotfix; widen and withdraw with kubectl replace', async () => {
  const api = await startFakeApiServer({
    configMaps: {},
    tokens: {
      [ADMIN]: { user: 'admin', canRead: true, canWrite: true },
      'abcdef.0123456789abcdef': { user: 'system:bootstrap:abcdef', canRead: true },
    },
  });
  try {
    const wave10 = await renderSigned('wave10', ['--hotfix', `${BASE}=${TARGET}`, '--rollout', `${BASE}=10:wave-a`, '--serial', '1']);
    const applied = await kubectl(api, ['apply', '-f', wave10]);
    assert.is(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, 'configmap/anc-hotfix-version created');
    assert.ok(
      api.requests.some((r) => r.method === 'POST'),
      'kubectl created it',
    );
    const got = await kubectl(api, ['-n', 'kube-system', 'get', 'configmap', 'anc-hotfix-version', '-o', 'yaml']);
    assert.is(got.code, 0, got.stderr);
    const fetched = join(WORK, 'fetched.yaml');
    writeFileSync(fetched, got.stdout);
    const verdict = await anc(['hotfix', 'pointer', 'verify', fetched, '--mode', 'enforce']);
    assert.is(verdict.exitCode, 0, verdict.stdout);
    assert.match(verdict.stdout, `accepted: outcome=accepted (signed by key ${CURRENT.keyid}, serial 1)`);
    assert.match(verdict.stdout, `rollout: ${BASE}: 10%; salt "wave-a"`);
    const sb = nodeFor(api, { pointer: null });
    const first = await again(sb);
    assertRun(first, 'configMapRead');
    assert.equal(JSON.parse(first.pointer!).hotfixes, { [BASE]: TARGET });

    // Widen the wave: a new serial, signed by both keys of a rotation, replaced in place.
    const wave50 = await renderSigned(
      'wave50',
      ['--hotfix', `${BASE}=${TARGET}`, '--rollout', `${BASE}=50:wave-a`, '--serial', '2'],
      [CURRENT, NEXT],
    );
    const replaced = await kubectl(api, ['replace', '-f', wave50]);
    assert.is(replaced.code, 0, replaced.stderr);
    assert.ok(
      api.requests.some((r) => r.method === 'PUT'),
      'kubectl replaced it',
    );
    const second = await again(sb);
    assertRun(second, 'configMapRead');
    assert.is(JSON.parse(sb.read('/opt/azure/containers/aks-node-controller-hotfix-serial.json')).serial, 2);

    // Re-applying the old wave (a rollback) is refused by the node that saw serial 2.
    assert.is((await kubectl(api, ['apply', '-f', wave10])).code, 0);
    const rolled = await again(sb);
    assertRun(rolled, 'rolledBack');
    const fromCluster = await anc(['hotfix', 'pointer', 'verify', '--kubeconfig', join(WORK, 'kubeconfig'), '--min-serial', '2']);
    assert.is(fromCluster.exitCode, 1);
    assert.match(fromCluster.stdout, 'rejected: outcome=rolledBack');
    // $KUBECONFIG, as kubectl reads it, when neither a file nor --kubeconfig is given.
    const fromEnv = await runAnc(['hotfix', 'pointer', 'verify', '--min-serial', '2'], {
      bin: SIGNED_BIN,
      root: WORK,
      cwd: WORK,
      env: { KUBECONFIG: `${join(WORK, 'kubeconfig')}:/nonexistent` },
    });
    assert.equal([fromEnv.exitCode, fromEnv.stdout], [fromCluster.exitCode, fromCluster.stdout]);

    // Withdraw: no hotfix for the base, a higher serial.
    const withdrawn = await renderSigned('withdrawn', ['--serial', '3']);
    assert.is((await kubectl(api, ['replace', '-f', withdrawn])).code, 0);
    const third = await again(sb);
    assertRun(third, 'noHotfixForBase');
    assert.equal(JSON.parse(third.pointer!).hotfixes, {});
    assert.match(JSON.stringify(api.configMaps.get(CM_KEY)), '\\"serial\\":3');
  } finally {
    await api.close();
  }
});

test('verify names every outcome, exit 0 only when accepted', async () => {
  const write = (name: string, data: Record<string, string>) => {
    const file = join(WORK, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'anc-hotfix-version', namespace: 'kube-system' }, data }),
    );
    return file;
  };
  const signedText = (fields: object, keys = [CURRENT]) => {
    const text = payload({ hotfixes: { [BASE]: TARGET }, ...fields });
    return { 'hotfixes.json': text, 'pointer.dsse.json': envelope(text, keys) };
  };
  const nodeConfig = join(WORK, 'node-config.json');
  writeFileSync(
    nodeConfig,
    JSON.stringify({
      version: 'v1',
      apiServerConfig: { apiServerName: 'aks-1.hcp.eastus.azmk8s.io:443' },
      clusterConfig: { location: 'eastus' },
    }),
  );
  // N6 (issue 32): the node configuration through the same bytes-to-text step as provision: one BOM is
  // skipped (the same facts), two are a syntax error (no facts: the scoped pointer does not apply).
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const nodeConfigOneBom = join(WORK, 'node-config-bom.json');
  const nodeConfigTwoBoms = join(WORK, 'node-config-boms.json');
  writeFileSync(nodeConfigOneBom, Buffer.concat([bom, readFileSync(nodeConfig)]));
  writeFileSync(nodeConfigTwoBoms, Buffer.concat([bom, bom, readFileSync(nodeConfig)]));
  const cases: Array<[string, string[], number, string]> = [
    [
      'node config with one BOM',
      [
        write('scope5', signedText({ scope: { region: ['eastus'], cluster: ['aks-1.hcp.eastus.azmk8s.io'] } })),
        '--node-config',
        nodeConfigOneBom,
      ],
      0,
      'scope: region=eastus cluster=aks-1.hcp.eastus.azmk8s.io\n',
    ],
    [
      'node config with two BOMs',
      [write('scope6', signedText({ scope: { region: ['eastus'] } })), '--node-config', nodeConfigTwoBoms],
      1,
      'rejected: outcome=outOfScope',
    ],
    ['ok', [write('ok', signedText({ serial: 4 }))], 0, 'accepted: outcome=accepted'],
    ['unsigned', [write('unsigned', { 'hotfixes.json': '{"hotfixes":{}}' }), '--mode', 'enforce'], 1, 'rejected: outcome=unsigned'],
    ['unsigned allowed', [write('unsigned2', { 'hotfixes.json': '{"hotfixes":{}}' })], 0, 'accepted: outcome=accepted (unsigned)'],
    ['stranger', [write('stranger', signedText({}, [STRANGER]))], 1, 'rejected: outcome=signatureInvalid'],
    ['expired', [write('expired', signedText({ expires: '2021-01-01T00:00:00Z' }))], 1, 'rejected: outcome=expired'],
    [
      'expired later',
      [write('later', signedText({ expires: '2030-01-01T00:00:00Z' })), '--at', '2031-01-01T00:00:00Z'],
      1,
      'rejected: outcome=expired',
    ],
    ['rolled back', [write('rb', signedText({ serial: 3 })), '--min-serial', '4'], 1, 'rejected: outcome=rolledBack'],
    [
      'out of scope',
      [write('scope', signedText({ scope: { region: ['eastus'] } })), '--node', 'region=westus'],
      1,
      'rejected: outcome=outOfScope',
    ],
    [
      'in scope',
      [write('scope2', signedText({ scope: { region: ['eastus'] } })), '--node', 'region=EASTUS'],
      0,
      'accepted: outcome=accepted',
    ],
    [
      'node config',
      [
        write('scope3', signedText({ scope: { region: ['eastus'], cluster: ['aks-1.hcp.eastus.azmk8s.io'] } })),
        '--node-config',
        nodeConfig,
      ],
      0,
      'scope: region=eastus cluster=aks-1.hcp.eastus.azmk8s.io\n',
    ],
    [
      'node config, other cluster',
      [write('scope4', signedText({ scope: { cluster: ['aks-2.hcp.eastus.azmk8s.io'] } })), '--node-config', nodeConfig],
      1,
      'this node\'s cluster "aks-1.hcp.eastus.azmk8s.io" is not in the scope',
    ],
    ['own key set', [write('own', signedText({}, [STRANGER])), '--keys', join(WORK, 'stranger-keys.json')], 0, 'accepted'],
  ];
  writeFileSync(
    join(WORK, 'stranger-keys.json'),
    JSON.stringify({ keys: [{ keyid: STRANGER.keyid, algorithm: 'ed25519', publicKey: STRANGER.publicPem }] }),
  );
  for (const [name, args, code, line] of cases) {
    const out = await anc(['hotfix', 'pointer', 'verify', ...args]);
    assert.is(out.exitCode, code, `${name}: ${out.stdout}${out.stderr}`);
    assert.match(out.stdout, line, name);
    if (code === 1) assert.match(out.stdout, /\nhint: /, `${name} says what to do`);
  }
  const yaml = await anc(['hotfix', 'pointer', 'verify', '-o', 'yaml', join(WORK, 'rb.json'), '--min-serial', '4']);
  assert.match(yaml.stdout, /^accepted: false\noutcome: rolledBack\n/);
  const json = await anc(['hotfix', 'pointer', 'verify', '-o', 'json', join(WORK, 'rb.json'), '--min-serial', '4']);
  assert.equal(Object.keys(JSON.parse(json.stdout)).slice(0, 3), ['accepted', 'outcome', 'reason']);
  // Which key set was checked is named (issue 29); the rest of the report is as before.
  assert.match(JSON.parse(json.stdout).keySet, `the keys baked into `);
  assert.equal(
    { ...JSON.parse(json.stdout), reason: undefined, warnings: undefined, keySet: undefined },
    {
      accepted: false,
      outcome: 'rolledBack',
      mode: 'unsigned-allowed',
      minSerial: 4,
      scopeChecked: false,
      signed: true,
      keyid: CURRENT.keyid,
      serial: 3,
      expires: '2099-01-01T00:00:00Z',
      scope: {},
      hotfixes: { [BASE]: TARGET },
      reason: undefined,
      warnings: undefined,
      keySet: undefined,
    },
  );
});

test('property: flipping any sampled byte of the payload or the signature never verifies (compiled binary)', async () => {
  const text = payload({ serial: 9, hotfixes: { [BASE]: TARGET }, scope: { region: ['eastus'] } });
  const good = JSON.parse(envelope(text, [CURRENT]));
  const payloadBytes = Buffer.from(good.payload, 'base64');
  const sigBytes = Buffer.from(good.signatures[0].sig, 'base64');
  // Deterministic spread: every 7th payload byte and every 4th signature byte, one different bit each time.
  const flips: Array<{ where: 'payload' | 'sig'; at: number; bit: number }> = [];
  for (let at = 0; at < payloadBytes.length; at += 7) flips.push({ where: 'payload', at, bit: at % 8 });
  for (let at = 0; at < sigBytes.length; at += 4) flips.push({ where: 'sig', at, bit: (at * 3) % 8 });
  for (const flip of flips) {
    const p = Buffer.from(payloadBytes);
    const s = Buffer.from(sigBytes);
    (flip.where === 'payload' ? p : s)[flip.at]! ^= 1 << flip.bit;
    const env = { ...good, payload: p.toString('base64'), signatures: [{ keyid: CURRENT.keyid, sig: s.toString('base64') }] };
    const file = join(WORK, 'flip.json');
    writeFileSync(file, JSON.stringify({ kind: 'ConfigMap', data: { 'hotfixes.json': text, 'pointer.dsse.json': JSON.stringify(env) } }));
    const out = await anc(['hotfix', 'pointer', 'verify', '--node', 'region=eastus', file]);
    assert.is(out.exitCode, 1, `${flip.where}[${flip.at}] bit ${flip.bit} verified: ${out.stdout}`);
    assert.match(out.stdout, 'rejected: outcome=signatureInvalid');
  }
  assert.ok(flips.length > 30, `${flips.length} flips`);
});

test('render -o json prints the same ConfigMap as JSON; sign -o json keeps it JSON', async () => {
  const out = await anc([
    'hotfix',
    'pointer',
    'render',
    '-o',
    'json',
    '--serial',
    '5',
    '--expires',
    EXPIRES,
    '--hotfix',
    `${BASE}=${TARGET}`,
    '--scope',
    'cluster=a.example',
    '--scope',
    'cluster=b.example',
  ]);
  assert.is(out.exitCode, 0, out.stderr);
  const cm = JSON.parse(out.stdout);
  assert.equal(cm.metadata, { name: 'anc-hotfix-version', namespace: 'kube-system' });
  assert.is(
    cm.data['hotfixes.json'],
    `{"schemaVersion":1,"serial":5,"expires":"${EXPIRES}","scope":{"cluster":["a.example","b.example"]},"hotfixes":{"${BASE}":"${TARGET}"}}`,
  );
  const file = join(WORK, 'rendered.json');
  writeFileSync(file, out.stdout);
  const signedOut = await anc(['hotfix', 'pointer', 'sign', '-o', 'json', '--key', keyFile(NEXT), '--key-id', NEXT.keyid, file]);
  assert.is(signedOut.exitCode, 0, signedOut.stderr);
  const envelopeDoc = JSON.parse(JSON.parse(signedOut.stdout).data['pointer.dsse.json']);
  assert.equal(
    envelopeDoc.signatures.map((s: { keyid: string }) => s.keyid),
    [NEXT.keyid],
  );
  assert.is(Buffer.from(envelopeDoc.payload, 'base64').toString(), cm.data['hotfixes.json']);
});

test('sign refuses what a node would not read, and names the problem', async () => {
  const file = join(WORK, 'plain.json');
  writeFileSync(file, JSON.stringify({ kind: 'ConfigMap', data: { 'hotfixes.json': '{"hotfixes":{}}' } }));
  const out = await anc(['hotfix', 'pointer', 'sign', '--key', keyFile(CURRENT), '--key-id', CURRENT.keyid, file]);
  assert.is(out.exitCode, 1);
  assert.match(out.stderr, 'data.hotfixes.json is not a signable pointer: signed pointer payload: schemaVersion null is not supported');
  const notKey = await anc([
    'hotfix',
    'pointer',
    'sign',
    '--key',
    KEYSET_FILE,
    '--key-id',
    'x',
    await renderSigned('any', ['--serial', '1'], []),
  ]);
  assert.is(notKey.exitCode, 1);
  assert.match(notKey.stderr, 'the --key file is not a PEM private key');
  const past = await anc(['hotfix', 'pointer', 'render', '--serial', '1', '--expires', '2001-01-01T00:00:00Z']);
  assert.is(past.exitCode, 1);
  assert.match(past.stderr, '--expires 2001-01-01T00:00:00Z is already past');
  const badHotfix = await anc(['hotfix', 'pointer', 'render', '--serial', '1', '--expires', EXPIRES, '--hotfix', '202604.01=202605.01.1']);
  assert.match(badHotfix.stderr, 'version 202605.01.1 is not a patch of base 202604.01');
});

test('the launcher hands ANC_HOTFIX_POINTER_SIGNING from enabled_features.sh to check-hotfix', async () => {
  const root = mkdtempSync(join(tmpdir(), 'anc-launcher-signing-'));
  try {
    const p = imagePaths(root);
    const rec = join(root, 'calls');
    writeFakeAgent(p.binary, rec);
    writeHostname(root);
    writeFileSync(p.config, '{}');
    writeFileSync(p.features, 'ENABLE_PROVISIONING_HOTFIX=true\nANC_HOTFIX_POINTER_SIGNING=enforce\n');
    const out = await runLauncher(root);
    assert.is(out.exitCode, 0, out.stdout + out.stderr);
    const check = recordedCalls(rec).find((c) => c.args[0] === 'check-hotfix');
    assert.ok(check, 'check-hotfix ran');
    assert.is(check!.env.ANC_HOTFIX_POINTER_SIGNING, 'enforce');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('no private key material in any output', () => {
  const all = OUTPUTS.join('\n');
  for (const key of [CURRENT, NEXT, STRANGER]) {
    for (const line of key.privatePem.split('\n').filter((l) => l && !l.startsWith('-----')))
      assert.not.ok(all.includes(line), `${key.keyid} leaked`);
  }
  assert.ok(readFileSync(KEYSET_FILE, 'utf8').includes('PUBLIC KEY'));
});

test.run();

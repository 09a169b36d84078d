// Conformance list 12.3 (CM-DRAFT) adapted to D2/D3: ConfigMap parsing, outcomes, cold start, staging.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readColdStartHotfixes, runCheckHotfix, stagePointer } from '../../../../src/pointer/check.ts';
import { parseConfigMapPointer } from '../../../../src/pointer/configmap-body.ts';
import { parsePointer } from '../../../../src/pointer/document.ts';
import { resolveVersion } from '../../../../src/pointer/resolve.ts';
import { AgentError, errorMessage } from '../../../../src/platform/errors.ts';
import { fakeDeps, type FakeDeps } from '../../../fakes/deps.ts';

const MAP = '{"hotfixes":{"202604.01":"202604.01.1"}}';
const cm = (data: unknown) => JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'anc-hotfix-version' }, data });
const parseError = (body: string) => {
  try {
    parseConfigMapPointer(body);
  } catch (error) {
    return errorMessage(error);
  }
  return 'no error';
};

function write(path: string, content: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, mode);
}

async function check(deps: FakeDeps, fetch: () => Promise<string>, args: string[] = []) {
  const code = await runCheckHotfix(deps, { args, fetchConfigMap: fetch });
  const event = deps.emitted[0]!;
  let pointer: string | null = null;
  try {
    pointer = readFileSync(deps.paths.hotfixPointer, 'utf8');
  } catch {}
  return { code, event, pointer, events: deps.emitted.length };
}

test('ConfigMap: documented hotfixes.json key; single other key; shares parser with download-hotfix', () => {
  assert.equal(parseConfigMapPointer(cm({ 'hotfixes.json': MAP, other: 'x' })).hotfixes, { '202604.01': '202604.01.1' });
  assert.equal(parseConfigMapPointer(cm({ whatever: MAP })).hotfixes, { '202604.01': '202604.01.1' });
  assert.equal(parseConfigMapPointer(cm({ 'hotfixes.json': MAP })), parsePointer(MAP, '/file'));
  assert.equal(parseConfigMapPointer(JSON.stringify({ DATA: { 'hotfixes.json': MAP } })).hotfixes, { '202604.01': '202604.01.1' });
});

test('ConfigMap errors (12.3 wording)', () => {
  assert.match(parseError(cm({ a: '{}', b: '{}' })), 'expected exactly 1');
  assert.is(parseError(cm({})), 'ConfigMap has no data');
  assert.is(parseError(JSON.stringify({ kind: 'ConfigMap' })), 'ConfigMap has no data');
  assert.is(parseError('null'), 'ConfigMap has no data');
  assert.is(parseError(cm({ 'hotfixes.json': ' \n ' })), 'ConfigMap hotfix entry is empty');
  assert.match(parseError(cm({ 'hotfixes.json': 'not valid json' })), /^unmarshaling hotfix pointer JSON: /);
  assert.match(parseError('{"data":'), /^unmarshaling ConfigMap: /);
  assert.match(parseError('[1]'), /^unmarshaling ConfigMap: cannot unmarshal array/);
  assert.match(parseError(cm('x')), /^unmarshaling ConfigMap: cannot unmarshal string into field data/);
  assert.match(
    parseError(cm({ 'hotfixes.json': { hotfixes: {} } })),
    /^unmarshaling ConfigMap: cannot unmarshal object into field data\["hotfixes.json"\]/,
  );
  assert.is(parseError(cm({ 'hotfixes.json': null })), 'ConfigMap hotfix entry is empty');
});

test('SuccessReadAndWrite: map hit -> configMapRead, staged map equals the served map, 0644', async () => {
  const deps = fakeDeps({ version: '202604.01.0' });
  const r = await check(deps, async () => cm({ 'hotfixes.json': MAP }));
  assert.equal(
    [r.code, r.event.message, r.event.level, r.event.task],
    [0, 'check-hotfix outcome=configMapRead', 'Informational', 'CheckHotfix'],
  );
  assert.is(r.pointer, '{"hotfixes":{"202604.01":"202604.01.1"}}');
  assert.is(statSync(deps.paths.hotfixPointer).mode & 0o777, 0o644);
  assert.equal(resolveVersion(parsePointer(r.pointer, 'p'), '202604.01.0').resolved, '202604.01.1');
  assert.ok(
    deps.logs.some(
      (l) =>
        l.msg === 'staged hotfix pointer for download-hotfix' && l.attrs.path === '/opt/azure/containers/aks-node-controller-hotfix.json',
    ),
  );
  assert.ok(deps.logs.some((l) => l.msg === 'check-hotfix completed' && l.attrs.outcome === 'configMapRead'));
  deps.cleanup();
});

test('NoHotfixForBase: other base -> noHotfixForBase, full map still staged', async () => {
  const deps = fakeDeps({ version: '202607.15.0' });
  const r = await check(deps, async () => cm({ 'hotfixes.json': MAP }));
  assert.is(r.event.message, 'check-hotfix outcome=noHotfixForBase');
  assert.is(r.pointer, '{"hotfixes":{"202604.01":"202604.01.1"}}');
  deps.cleanup();
});

test('D3: judged on the STAGED pointer: an existing legacy version still resolves when the map is empty', async () => {
  const deps = fakeDeps({ version: '202607.15.0' });
  write(deps.paths.hotfixPointer, '{"version":"202607.15.2","scripts_version":"sv"}', 0o600);
  const r = await check(deps, async () => cm({ 'hotfixes.json': '{"hotfixes":{}}' }));
  assert.is(r.event.message, 'check-hotfix outcome=configMapRead');
  assert.is(r.pointer, '{"version":"202607.15.2","scripts_version":"sv","hotfixes":{}}');
  assert.is(statSync(deps.paths.hotfixPointer).mode & 0o777, 0o600);
  deps.cleanup();
});

test('D2: a served legacy version replaces ours; scripts_version kept', async () => {
  const deps = fakeDeps({ version: '202604.01.0' });
  write(deps.paths.hotfixPointer, '{"version":"old","scripts_version":"sv","hotfixes":{"x":"y"}}');
  const r = await check(deps, async () => cm({ 'hotfixes.json': '{"version":"202604.01.3"}' }));
  assert.is(r.event.message, 'check-hotfix outcome=configMapRead');
  assert.is(r.pointer, '{"version":"202604.01.3","scripts_version":"sv","hotfixes":{}}');
  deps.cleanup();
});

for (const [name, error] of [
  ['404', 'apiserver returned status 404 for https://h:443/x'],
  ['timeout', 'GET https://h:443/x: no complete answer within 10 s'],
  ['connection', 'GET https://h:443/x: connect ECONNREFUSED 127.0.0.1:443'],
] as const) {
  test(`FetchErrorFailsOpenWithoutFallback (${name}): failed, Error event, nothing staged`, async () => {
    const deps = fakeDeps();
    const r = await check(deps, async () => {
      throw new AgentError('ANC_KUBE', error);
    });
    assert.equal([r.code, r.event.level, r.pointer, r.events], [0, 'Error', null, 1]);
    assert.is(r.event.message, `check-hotfix outcome=failed error=configmap fetch failed and no cold-start pointer present: ${error}`);
    assert.ok(
      deps.logs.some((l) => l.level === 'WARN' && l.msg === 'failed to read anc-hotfix-version ConfigMap, attempting cold-start fallback'),
    );
    assert.ok(deps.logs.some((l) => l.level === 'WARN' && l.msg === 'check-hotfix completed with error (fail-open)'));
    deps.cleanup();
  });
}

test('InvalidConfigMapFailsOpen: fetched but unparseable -> failed, no fallback even with a cold-start pointer', async () => {
  const deps = fakeDeps();
  write(deps.paths.nodeConfig, `{"version":"v1","hotfixes":${MAP.slice(12, -1)}}`);
  const r = await check(deps, async () => cm({ 'hotfixes.json': 'not valid json' }));
  assert.match(
    r.event.message,
    /^check-hotfix outcome=failed error=parsing anc-hotfix-version ConfigMap: unmarshaling hotfix pointer JSON: /,
  );
  assert.is(r.pointer, null);
  deps.cleanup();
});

test('ColdStartFallback: fetch 404 + node config hotfixes -> customDataFallback, staged', async () => {
  const deps = fakeDeps({ version: '202604.01.0' });
  write(deps.paths.nodeConfig, '{"version":"v1","hotfixes":{"202604.01":"202604.01.1"}}');
  const r = await check(deps, async () => {
    throw new AgentError('ANC_KUBE', 'apiserver returned status 404 for u');
  });
  assert.equal([r.event.message, r.event.level], ['check-hotfix outcome=customDataFallback', 'Informational']);
  assert.is(r.pointer, '{"hotfixes":{"202604.01":"202604.01.1"}}');
  deps.cleanup();
});

test('ColdStartNoPointerFails / unreadable / not JSON (the parser message is never quoted)', async () => {
  for (const [content, expected] of [
    ['{"version":"v1"}', 'configmap fetch failed and no cold-start pointer present: boom'],
    [
      '{"version":"v1","tok":"abcdef.leakleak"',
      'configmap fetch failed (boom) and cold-start fallback failed: parsing node config /opt/azure/containers/aks-node-controller-config.json: not complete JSON (it ends at byte 39 inside a value)',
    ],
  ] as const) {
    const deps = fakeDeps();
    write(deps.paths.nodeConfig, content);
    const r = await check(deps, async () => {
      throw new Error('boom');
    });
    assert.is(r.event.message, `check-hotfix outcome=failed error=${expected}`);
    assert.is(r.pointer, null);
    deps.cleanup();
  }
});

test('ColdStartHotfixConfig: missing file / present pointer / no hotfixes key / case-insensitive key', () => {
  const deps = fakeDeps();
  assert.is(readColdStartHotfixes(deps), undefined);
  write(deps.paths.nodeConfig, '{"version":"v1","hotfixes":{"202604.01":"202604.01.1"}}');
  assert.equal(readColdStartHotfixes(deps), { '202604.01': '202604.01.1' });
  write(deps.paths.nodeConfig, '{"version":"v1"}');
  assert.is(readColdStartHotfixes(deps), undefined);
  write(deps.paths.nodeConfig, '{"HotFixes":{"a":"b"}}');
  assert.equal(readColdStartHotfixes(deps), { a: 'b' });
  deps.cleanup();
});

test('WriteHotfixConfig shape, atomicity (no temp left), mode preserved, round trip', () => {
  const deps = fakeDeps();
  const staged = stagePointer(deps, { '202604.01': '202604.01.1' });
  const text = readFileSync(deps.paths.hotfixPointer, 'utf8');
  assert.equal(JSON.parse(text), { hotfixes: { '202604.01': '202604.01.1' } });
  assert.equal(parsePointer(text, 'p'), staged);
  assert.is(resolveVersion(parsePointer(text, 'p'), '202604.01.0').resolved, '202604.01.1');
  chmodSync(deps.paths.hotfixPointer, 0o640);
  stagePointer(deps, {});
  assert.is(statSync(deps.paths.hotfixPointer).mode & 0o777, 0o640);
  assert.is(readFileSync(deps.paths.hotfixPointer, 'utf8'), '{"hotfixes":{}}');
  assert.equal(
    readdirSync(dirname(deps.paths.hotfixPointer)).filter((n) => n.startsWith('.')),
    [],
  );
  deps.cleanup();
});

test('AlwaysFailOpen: an unexpected TypeError anywhere -> failed, exit 0, one Error event', async () => {
  const deps = fakeDeps();
  Object.defineProperty(deps, 'version', {
    get: () => {
      throw new TypeError('version exploded');
    },
  });
  const r = await check(deps, async () => cm({ 'hotfixes.json': MAP }));
  assert.equal([r.code, r.events, r.event.level], [0, 1, 'Error']);
  assert.is(r.event.message, 'check-hotfix outcome=failed error=unexpected error: version exploded');
  deps.cleanup();
});

test('a fetch that throws a TypeError is a failed fetch (cold-start path), still exit 0', async () => {
  const deps = fakeDeps();
  const r = await check(deps, async () => {
    throw new TypeError('x is not a function');
  });
  assert.is(
    r.event.message,
    'check-hotfix outcome=failed error=configmap fetch failed and no cold-start pointer present: x is not a function',
  );
  deps.cleanup();
});

test('extra arguments: WARN, ignored', async () => {
  const deps = fakeDeps();
  await check(deps, async () => cm({ 'hotfixes.json': MAP }), ['a', 'b']);
  assert.ok(deps.logs.some((l) => l.level === 'WARN' && l.msg === 'ignoring unexpected check-hotfix arguments' && l.attrs.args === 'a b'));
  assert.is(deps.logs[0]!.msg, 'aks-node-controller check-hotfix started');
  deps.cleanup();
});

test('ConfigMap: lone surrogates become U+FFFD at both levels (the entry is a JSON document in a string)', () => {
  const outer = '{"data":{"hotfixes.json":"{\\"hotfixes\\":{\\"202604.01\\":\\"202604.01.1\\ud800\\"}}"}}';
  assert.equal(parseConfigMapPointer(outer).hotfixes, { '202604.01': '202604.01.1\uFFFD' });
  const inner = '{"data":{"hotfixes.json":"{\\"hotfixes\\":{\\"202604.01\\":\\"202604.01.1\\\\udfff\\"}}"}}';
  assert.equal(parseConfigMapPointer(inner).hotfixes, { '202604.01': '202604.01.1\uFFFD' });
  assert.equal(parseConfigMapPointer(cm({ 'hotfixes.json': `\u0085${MAP}\u3000` })).hotfixes, { '202604.01': '202604.01.1' });
  assert.throws(() => parseConfigMapPointer(cm({ 'hotfixes.json': `\uFEFF${MAP}` })), /unmarshaling hotfix pointer JSON/);
  assert.throws(() => parseConfigMapPointer(cm({ 'hotfixes.json': '\u0085' })), /ConfigMap hotfix entry is empty/);
});

test('cold start: the node config read by encoding/json turns a lone surrogate escape into U+FFFD', () => {
  const deps = fakeDeps();
  write(deps.paths.nodeConfig, '{"version":"v1","hotfixes":{"202604.01":"202604.01.1\\ud800"}}');
  assert.equal(readColdStartHotfixes(deps), { '202604.01': '202604.01.1\uFFFD' });
  deps.cleanup();
});

test.run();

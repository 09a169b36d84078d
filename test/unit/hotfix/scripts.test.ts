// The script payload's rules and its apply / rollback / restore, in-process on a temp node root.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyScriptHotfix, removeStaleStaged } from '../../../src/hotfix/scripts/apply.ts';
import { readRecord } from '../../../src/hotfix/scripts/backup.ts';
import { decodePayload, type EmbeddedPayload } from '../../../src/hotfix/scripts/embedded.ts';
import { destinationProblem, SCRIPT_CAPS, type ScriptEntry, worstRecordBytes } from '../../../src/hotfix/scripts/format.ts';
import { scriptPlatform } from '../../../src/hotfix/scripts/node-platform.ts';
import { restoreForFallback } from '../../../src/hotfix/scripts/restore.ts';
import { isAgentError } from '../../../src/platform/errors.ts';
import { type FakeDeps, fakeDeps } from '../../fakes/deps.ts';

const C = '/opt/azure/containers';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

for (const [osRelease, platform] of [
  ['ID=ubuntu\n', 'ubuntu'],
  ['ID="mariner"\n', 'mariner'],
  ['ID=azurelinux\nVARIANT_ID=osguard\n', 'azlosguard'],
  ['ID=azurelinux\nVARIANT_ID=azurecontainerlinux\n', 'acl'],
  ['ID=azurecontainerlinux\n', 'acl'],
  ['ID=azurelinux\n', 'mariner'],
  ['ID=flatcar\n', 'flatcar'],
  ['ID=debian\n', undefined],
  ['', undefined],
] as const) {
  test(`os-release ${JSON.stringify(osRelease)} -> ${platform}`, () => assert.is(scriptPlatform(osRelease).platform, platform));
}

test('destinations: only provisioning scripts under the containers directory', () => {
  assert.is(destinationProblem(`${C}/provision_start.sh`), undefined);
  assert.is(destinationProblem(`${C}/sub/dir/x.sh`), undefined);
  for (const bad of [
    'relative.sh',
    `${C}`,
    `${C}/`,
    `${C}/./x.sh`,
    `${C}//x.sh`,
    '/opt/azure/containersX/x.sh',
    `${C}/aks-node-controller`,
    `${C}/aks-node-controller-launcher.sh`,
    `${C}/aks-node-controller-scripts-started`,
    `${C}/sub/aks-node-controller-x/y`,
    `${C}/provision.complete`,
    `${C}/enabled_features.sh`,
    `${C}/.aks-node-controller-baked-guard`,
    `${C}/.aks-node-controller-update-123`,
    `${C}/.aks-node-controller-fetch-abc/x`,
    `${C}/.anc-script-hotfix-x.sh.1`,
    `${C}/aks-node-controller-hotfix.pending`,
    `${C}/nodecustomdata.yml`,
  ]) {
    assert.type(destinationProblem(bad), 'string', bad);
  }
});

test('the shared caps are consistent: the widest record the entry caps allow fits the record cap the node reads with', () => {
  const longest = `${C}/${'x'.repeat(SCRIPT_CAPS.destinationLength - C.length - 1)}`;
  assert.is(destinationProblem(longest), undefined);
  assert.type(destinationProblem(`${longest}x`), 'string');
  assert.ok(worstRecordBytes(Array(SCRIPT_CAPS.entries).fill(longest)) <= SCRIPT_CAPS.recordBytes);
});

function payload(files: Record<string, string>, label = 'fix-1'): EmbeddedPayload {
  const entries: ScriptEntry[] = Object.entries(files).map(([name, content]) => ({
    source: name,
    destination: `${C}/${name}`,
    mode: '0755',
    platforms: ['ubuntu'],
    sha256: sha(content),
    encoding: 'utf8',
    content,
  }));
  return decodePayload(JSON.stringify({ schemaVersion: 1, label, entries }));
}

function node(): FakeDeps {
  const deps = fakeDeps();
  const put = (p: string, text: string, mode = 0o755) => {
    mkdirSync(dirname(deps.paths.under(p)), { recursive: true });
    writeFileSync(deps.paths.under(p), text, { mode });
  };
  put('/etc/os-release', 'ID=ubuntu\n', 0o644);
  put(`${C}/a.sh`, 'baked a\n');
  put(`${C}/b.sh`, 'baked b\n', 0o700);
  put(`${C}/c.sh`, 'baked c\n');
  return deps;
}
const read = (d: FakeDeps, name: string) => readFileSync(d.paths.under(`${C}/${name}`), 'utf8');
const modeOf = (d: FakeDeps, name: string) => statSync(d.paths.under(`${C}/${name}`)).mode & 0o777;
const messages = (d: FakeDeps) => d.emitted.map((e) => e.message);

test('apply replaces, backs up, is idempotent; another payload restores the originals first', () => {
  const d = node();
  const p1 = payload({ 'a.sh': 'fixed a\n', 'b.sh': 'baked b\n', 'gone.sh': 'x' });
  assert.equal(applyScriptHotfix(d, p1).replaced, [`${C}/a.sh`, `${C}/b.sh`], 'b.sh differs in mode only: replaced');
  assert.equal([read(d, 'a.sh'), modeOf(d, 'b.sh')], ['fixed a\n', 0o755]);
  const again = applyScriptHotfix(d, p1);
  assert.ok(again.alreadyApplied);
  assert.is(readRecord(d)!.entries[0]!.oldSha256, sha('baked a\n'), 'the backup is still the original');
  const p2 = payload({ 'c.sh': 'fixed c\n' }, 'fix-2');
  applyScriptHotfix(d, p2);
  assert.equal([read(d, 'a.sh'), modeOf(d, 'b.sh'), read(d, 'c.sh')], ['baked a\n', 0o700, 'fixed c\n']);
  assert.equal(messages(d), [
    'apply label=fix-1 platform=ubuntu replaced=2 unchanged=0 missing=1',
    'apply label=fix-1 platform=ubuntu replaced=0 unchanged=2 missing=1 already applied (2 replaced earlier)',
    'restore label=fix-1 reason=this binary carries another payload (fix-2) restored=2 unchanged=0 problems=0',
    'apply label=fix-2 platform=ubuntu replaced=1 unchanged=0 missing=0',
  ]);
  // A binary without a payload (the baked one) restores too.
  assert.is(applyScriptHotfix(d, undefined).scripts, 'baked');
  assert.is(read(d, 'c.sh'), 'baked c\n');
  d.cleanup();
});

test('a commit failing halfway rolls back what was committed and is an agent error', () => {
  const d = node();
  let renames = 0;
  const realRename = d.fs.rename;
  d.fs.rename = (from, to) => {
    if (++renames === 2) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
    realRename(from, to);
  };
  let error: unknown;
  try {
    applyScriptHotfix(d, payload({ 'a.sh': 'fixed a\n', 'b.sh': 'fixed b\n', 'c.sh': 'fixed c\n' }));
  } catch (e) {
    error = e;
  }
  assert.ok(isAgentError(error) && error.code === 'ANC_SCRIPT_HOTFIX', String(error));
  assert.match(String((error as Error).message), 'EIO: i/o error, rename; rolled back 1');
  assert.equal([read(d, 'a.sh'), read(d, 'b.sh'), read(d, 'c.sh')], ['baked a\n', 'baked b\n', 'baked c\n']);
  assert.is(readRecord(d), undefined);
  const left = d.fs.readdir(d.paths.under(C)).filter((n) => n.startsWith('.anc-script'));
  assert.equal(left, [], 'no staged file stays behind');
  d.cleanup();
});

test('restore leaves a file someone else changed since, and keeps the record for the next try', () => {
  const d = node();
  applyScriptHotfix(d, payload({ 'a.sh': 'fixed a\n', 'b.sh': 'fixed b\n' }));
  writeFileSync(d.paths.under(`${C}/b.sh`), 'edited by hand\n');
  const r = restoreForFallback(d)!;
  assert.equal(r.restored, [`${C}/a.sh`]);
  assert.match(r.problems[0]!, 'b.sh changed since the payload was applied');
  assert.is(read(d, 'b.sh'), 'edited by hand\n');
  assert.ok(readRecord(d), 'record kept');
  d.cleanup();
});

test('files staged by a killed earlier apply are removed at the start of any provision, payload or not', () => {
  const d = node();
  mkdirSync(d.paths.under(`${C}/sub`), { recursive: true });
  const stale = [d.paths.under(`${C}/.anc-script-hotfix-a.sh.1234567890`), d.paths.under(`${C}/sub/.anc-script-hotfix-x.sh.1`)];
  for (const f of stale) {
    writeFileSync(f, 'half');
    utimesSync(f, new Date(2020, 0, 1), new Date(2020, 0, 1));
  }
  removeStaleStaged(d, new Date());
  for (const f of stale) assert.not.ok(existsSync(f), f);
  d.cleanup();
});

test('an embedded payload that fails its own checks is refused with every problem', () => {
  const bad = {
    schemaVersion: 1,
    label: 'x',
    entries: [{ source: 's', destination: '/etc/x', mode: '0755', platforms: ['ubuntu'], sha256: 'no', encoding: 'utf8', content: 'y' }],
  };
  assert.throws(
    () => decodePayload(JSON.stringify(bad)),
    /destination \/etc\/x is outside .*; entry 0 \(s\): content does not match its sha256/,
  );
});

test.run();

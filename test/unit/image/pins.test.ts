// Issue 29's pure pieces: the manifest's canonical bytes and parser, the diff, the closest-name
// suggestion, the payload pinned against image manifests, the node's pin rule and no-op verdict, the plan
// on an image, the expiry warning.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ScriptEntry, ScriptPayload } from '../../../src/hotfix/scripts/format.ts';
import { noopVerdict } from '../../../src/hotfix/scripts/plan.ts';
import { planOnImage } from '../../../src/image/plan.ts';
import { pinPayload, pinProblem } from '../../../src/image/pins.ts';
import { diffManifests } from '../../../src/image/diff.ts';
import { closestPath, type ImageManifest, isAgentOwned, parseManifest, renderManifest } from '../../../src/image/manifest.ts';
import { expiryWarning } from '../../../src/pointer/expiry.ts';

const C = '/opt/azure/containers';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const file = (name: string, content: string, mode = '0755') => ({ path: `${C}/${name}`, sha256: sha(content), mode, size: content.length });
const image = (name: 'ubuntu' | 'mariner', files = [file('provision_start.sh', 'old'), file('helper.sh', 'h', '0644')]): ImageManifest => ({
  schemaVersion: 1,
  agentVersion: '202604.01.0',
  platform: { name, id: name === 'ubuntu' ? 'ubuntu' : 'azurelinux', versionId: '1', variantId: '' },
  files,
});
const entry = (over: Partial<ScriptEntry> = {}): ScriptEntry => ({
  source: 's.sh',
  destination: `${C}/provision_start.sh`,
  mode: '0755',
  platforms: ['ubuntu'],
  sha256: sha('new'),
  encoding: 'utf8',
  content: 'new',
  ...over,
});
const payload = (entries: ScriptEntry[]): ScriptPayload => ({ schemaVersion: 1, label: 'l', entries });

test('renderManifest: sorted, fixed key order, the same bytes whatever order the files came in', () => {
  const a = image('ubuntu');
  const b = { ...a, files: [...a.files].reverse().map((f) => ({ size: f.size, mode: f.mode, sha256: f.sha256, path: f.path })) };
  assert.is(renderManifest(a), renderManifest(b as ImageManifest));
  assert.equal(parseManifest(renderManifest(a), 'm.json'), JSON.parse(renderManifest(a)));
  assert.throws(
    () => parseManifest('{"schemaVersion":2}', 'm.json'),
    /image manifest m\.json: schemaVersion 2 is not 1; agentVersion must be/,
  );
});

test('isAgentOwned: the agent, its state, staged files and the boot files are left out', () => {
  for (const own of [
    'aks-node-controller',
    'aks-node-controller-hotfix.json',
    'aks-node-controller-script-hotfix/backups/000.orig',
    '.aks-node-controller-baked-guard',
    '.anc-script-hotfix-x.sh.1',
    'provision.complete',
    'nodecustomdata.yml',
  ])
    assert.ok(isAgentOwned(own), own);
  for (const script of ['provision_start.sh', 'sub/provision.complete', 'enable-dhcpv6.sh']) assert.not.ok(isAgentOwned(script), script);
});

test('closestPath suggests the near name, nothing for a far one', () => {
  const names = [`${C}/provision_start.sh`, `${C}/provision_source.sh`];
  assert.is(closestPath(`${C}/provision_star.sh`, names), `${C}/provision_start.sh`);
  assert.is(closestPath(`${C}/completely-different-name.sh`, names), undefined);
});

test('diffManifests: changed (explained or edited), removed, added', () => {
  const was = image('ubuntu');
  const now = { ...was, files: [file('provision_start.sh', 'new'), file('added.sh', 'a')] };
  const d = diffManifests(was, now, (path, digest) => (path.endsWith('start.sh') && digest === sha('new') ? 'hotfix l' : undefined));
  assert.equal(
    d.changed.map((c) => [c.path, c.by]),
    [[`${C}/provision_start.sh`, 'hotfix l']],
  );
  assert.equal([d.removed, d.added, d.unchanged], [[`${C}/helper.sh`], [`${C}/added.sh`], 0]);
});

test("pinPayload: pins to the images' bytes; refuses a missing destination, an unlisted platform, a no-op entry", () => {
  const ok = pinPayload(payload([entry()]), [{ source: 'u.json', manifest: image('ubuntu') }], []);
  assert.equal(ok.problems, []);
  assert.equal(ok.payload.entries[0]!.replaces, [sha('old')]);
  assert.equal(ok.payload.uncheckedPlatforms, []);
  const bad = pinPayload(
    payload([
      entry({ destination: `${C}/provision_star.sh` }),
      entry({ source: 'm', platforms: ['mariner'] }),
      entry({ source: 'same', destination: `${C}/helper.sh`, mode: '0644', sha256: sha('h'), content: 'h' }),
    ]),
    [{ source: 'u.json', manifest: image('ubuntu') }],
    [],
  );
  assert.equal(bad.problems, [
    'platform mariner: entry 1 (m) lists it, but no --image-manifest of a mariner image was given (give one, or --unchecked-platform mariner to leave it unchecked on purpose)',
    `entry 0 (s.sh): destination ${C}/provision_star.sh does not exist on image u.json (ubuntu 1, agent 202604.01.0); did you mean ${C}/provision_start.sh?`,
    `entry 2 (same): changes nothing on any image given: ${C}/helper.sh already holds these bytes (sha256:${sha('h')}) and mode 0644 on u.json (ubuntu 1, agent 202604.01.0)`,
  ]);
  const unchecked = pinPayload(
    payload([entry({ platforms: ['ubuntu', 'mariner'] })]),
    [{ source: 'u.json', manifest: image('ubuntu') }],
    ['mariner'],
  );
  assert.equal([unchecked.problems, unchecked.payload.uncheckedPlatforms], [[], ['mariner']]);
});

test("pinProblem: the image's bytes or the new ones pass; anything else, or a missing file, is another image build", () => {
  const pinned = entry({ replaces: [sha('old')] });
  assert.is(pinProblem(pinned, sha('old')), undefined);
  assert.is(pinProblem(pinned, sha('new')), undefined);
  assert.match(
    pinProblem(pinned, sha('other'))!,
    `a hotfix for another image build: the file holds sha256:${sha('other')}, not the image's sha256:${sha('old')}`,
  );
  assert.match(pinProblem(pinned, undefined)!, 'the file is missing here');
  assert.is(pinProblem(entry(), sha('other')), undefined, 'unpinned: replace-only');
});

test('planOnImage and noopVerdict: replace, refused, and nothing that applies', () => {
  const embedded = (e: ScriptEntry[]) => payload(e);
  const take = planOnImage(embedded([entry({ replaces: [sha('old')] })]), image('ubuntu'), 'u.json');
  assert.equal([take.takes, take.entries[0]!.action, take.entries[0]!.current], [true, 'replace', sha('old')]);
  const refused = planOnImage(embedded([entry({ replaces: [sha('other')] })]), image('ubuntu'), 'u.json');
  assert.equal([refused.takes, refused.entries[0]!.action], [false, 'refused']);
  const none = planOnImage(embedded([entry({ destination: `${C}/gone.sh` })]), image('ubuntu'), 'u.json');
  assert.is(none.noop, `no entry applies on this image: ${C}/gone.sh missing`);
  const mariner = planOnImage(embedded([entry()]), image('mariner'), 'm.json');
  assert.match(mariner.skipped!, 'no entry for platform mariner');
  const plan = {
    label: 'l',
    digest: 'd',
    node: { platform: 'ubuntu' as const, id: 'ubuntu', variantId: '' },
    items: [{ entry: entry(), action: 'missing' as const }],
  };
  assert.is(noopVerdict(plan), `no entry applies on this image: ${C}/provision_start.sh missing`);
  assert.is(noopVerdict({ ...plan, items: [{ entry: entry(), action: 'replace' }] }), undefined);
});

test('expiryWarning: under an hour or over 90 days away', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  assert.match(expiryWarning('2026-01-01T00:02:00Z', now)!, 'expires in 2 minutes');
  assert.match(expiryWarning('2036-01-01T00:00:00Z', now)!, 'expires in 3652 days');
  assert.is(expiryWarning('2026-01-22T00:00:00Z', now), undefined);
  assert.is(expiryWarning('2025-01-01T00:00:00Z', now), undefined, 'past: render refuses it; verify says expired');
});

test.run();

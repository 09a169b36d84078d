// Issue 40 item 6: a pre-publish preview of a schedule whose first step is still ahead is the fleet's
// view, per step with the share of the image's nodes, never the release machine's missing product_uuid;
// --uuid answers for that node (with its version or image), never for the release machine's own binary.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-preview-schedule-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const UUID = '4b1e0c9a-3f6d-4f7e-9a1b-2c3d4e5f6a7b';
const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString().replace(':00.000Z', 'Z');
const first = minute(Date.now() + 3_600_000);
const full = minute(Date.now() + 86_400_000);
const image = join(work, 'ubuntu-2204.json');
const configMap = join(work, 'scheduled.yaml');

test.before(async () => {
  const manifest = {
    schemaVersion: 1,
    agentVersion: '202604.01.0',
    platform: { name: 'ubuntu', id: 'ubuntu', versionId: '22.04', variantId: '' },
    files: [],
  };
  writeFileSync(image, JSON.stringify(manifest));
  const args = ['hotfix', 'pointer', 'render', '--hotfix', '202604.01=202604.01.1', '--schedule', `202604.01=10@${first},100@${full}`];
  const r = await runAnc(
    [...args, '--serial', '1', '--expires', new Date(Date.now() + 14 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z')],
    { root: work },
  );
  assert.is(r.exitCode, 0, r.stderr);
  writeFileSync(configMap, r.stdout);
});

test('a schedule whose first step is in an hour: the image takes it in waves, each step with its share; exit 0', async () => {
  const r = await runAnc(['hotfix', 'explain', '--pointer', configMap, '--image-manifest', image], { root: work });
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  const at = (s: string) => s.replace(/Z$/, ':00Z');
  assert.match(
    r.stdout,
    `: TAKES the hotfix: takes hotfix 202604.01.1 in waves: 10% of its nodes from ${at(first)}, 100% of its nodes from ${at(full)} (--uuid U: one node's answer)\n`,
  );
  assert.not.match(r.stdout, 'product_uuid');
  assert.not.match(r.stdout, 'NO image takes');
  const json = JSON.parse(
    (await runAnc(['hotfix', 'explain', '--pointer', configMap, '--image-manifest', image, '-o', 'json'], { root: work })).stdout,
  );
  assert.equal(json.images[0].waves, [
    { at: at(first), percent: 10 },
    { at: at(full), percent: 100 },
  ]);
});

test("--uuid answers for that node: with its image, when it joins; without a version, refused (never this machine's binary)", async () => {
  const node = await runAnc(['hotfix', 'explain', '--pointer', configMap, '--image-manifest', image, '--uuid', UUID], { root: work });
  assert.match(node.stdout, /\(notInWave: node is outside the 0% wave for base 202604\.01: seed [\d.]+, cutoff 0; it joins at /);
  assert.not.match(node.stdout, 'product_uuid');
  const bare = await runAnc(['hotfix', 'explain', '--pointer', configMap, '--uuid', UUID], { root: work });
  assert.is(bare.exitCode, 1);
  assert.match(bare.stderr, `--uuid ${UUID} decides for that node, but its version is not known here`);
  assert.match(bare.stderr, "give the node's version (--current-version V) or its image (--image-manifest FILE)");
  assert.not.match(bare.stdout, 'not-newer');
  const given = await runAnc(['hotfix', 'explain', '--pointer', configMap, '--uuid', UUID, '--current-version', '202604.01.0'], {
    root: work,
  });
  assert.match(given.stdout, '202604.01.0 (requested 202604.01.1): stays (notInWave');
});

test.run();

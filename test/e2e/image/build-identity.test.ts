// Issue 40 item 9: a build's bytes do not depend on where it ran. The payload checked against an image
// records the image's identity (os, version, agent, the manifest's digest), never the release machine's
// path to the manifest: the same inputs built from two directories give the same executable, no path in it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAgent } from '../../fakes/repos.ts';
import { imageManifestFor, pinnedFixEntries, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-build-identity-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('the same payload and image manifest built from two directories: the same bytes, no path inside', async () => {
  const manifest = imageManifestFor(buildAgent('202604.01.0', join(work, 'baked')), join(work, 'image'));
  const payload = writePayloadDir(join(work, 'payload'), pinnedFixEntries());
  const bins = ['first-checkout', 'elsewhere/second-checkout'].map((dir) => {
    const inputs = join(work, dir);
    mkdirSync(inputs, { recursive: true });
    cpSync(payload, join(inputs, 'payload'), { recursive: true });
    cpSync(manifest, join(inputs, 'ubuntu-2204.json'));
    const args = [
      '--scripts',
      join(inputs, 'payload'),
      '--scripts-label',
      SCRIPT_LABEL,
      '--image-manifest',
      join(inputs, 'ubuntu-2204.json'),
    ];
    return buildAgent('202604.01.1', join(inputs, 'out'), args);
  });
  assert.is(sha(bins[0]!), sha(bins[1]!), 'the same bytes from two directories');
  for (const bin of bins) assert.not.ok(readFileSync(bin).includes(work), `${bin} holds no build path`);
  const info = JSON.parse((await runAnc(['version', '-o', 'json'], { root: work, bin: bins[0] })).stdout).scriptPayload;
  const digest = createHash('sha256').update(readFileSync(manifest)).digest('hex');
  assert.equal(info.checkedAgainst, [`ubuntu 22.04, agent 202604.01.0, manifest sha256:${digest}`]);
});

test.run();

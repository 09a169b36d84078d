// Issue 41 §4 (R4-18, R4-19) on the compiled binary: `image manifest --root <image>` never runs the image's
// executable. The version comes from the marker build.mjs writes into the executable, which `version`
// also reports; it is read from the bytes, so an image for another architecture reads the same. The
// on-node manifest is never read through a symlink, and its parse error never quotes it (R4-19).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-image-no-exec-'));
const C = 'opt/azure/containers';
test.after(() => rmSync(work, { recursive: true, force: true }));

function imageRoot(name: string): string {
  const root = join(work, name);
  mkdirSync(join(root, 'etc'), { recursive: true });
  mkdirSync(join(root, C), { recursive: true });
  writeFileSync(join(root, 'etc/os-release'), 'ID=ubuntu\nVERSION_ID="22.04"\n');
  writeFileSync(join(root, C, 'provision_start.sh'), '#!/bin/bash\nexit 0\n', { mode: 0o755 });
  return root;
}

async function agentVersion(root: string): Promise<unknown> {
  const r = await runAnc(['image', 'manifest', '--root', root, '-o', 'json'], { root: work });
  assert.is(r.exitCode, 0, r.stderr);
  return JSON.parse(r.stdout).agentVersion;
}

test('R4-18: a hostile image executable is never run; its version comes from the marker in its bytes', async () => {
  const root = imageRoot('hostile');
  const escaped = join(work, 'escaped-from-the-image');
  // It would write outside the image if run (and claim another version); the marker is only bytes.
  writeFileSync(
    join(root, C, 'aks-node-controller'),
    `#!/bin/sh\ntouch ${escaped}\necho 202604.01.5\n# ANC_VERSION_MARKER=202604.01.7;\n`,
    { mode: 0o755 },
  );
  assert.is(await agentVersion(root), '202604.01.7');
  assert.not.ok(existsSync(escaped), 'the image executable never ran');
});

test('R4-18: the real build: the marker `image manifest` reads is the version `version` prints', async () => {
  const root = imageRoot('real');
  copyFileSync(BIN, join(root, C, 'aks-node-controller'));
  const printed = spawnSync(BIN, ['version'], { encoding: 'utf8' }).stdout.trim();
  assert.match(printed, /^\d{6}\.\d{2}\.\d+$/);
  assert.ok(readFileSync(BIN).includes(`ANC_VERSION_MARKER=${printed};`), 'the marker is in the executable');
  assert.is(await agentVersion(root), printed);
});

test('R4-18: an executable for another architecture (an arm64 image built on amd64) reads the same way', async () => {
  const root = imageRoot('arm64');
  const bytes = readFileSync(BIN);
  bytes.writeUInt16LE(183, 18); // e_machine: EM_AARCH64; this host cannot run it at all
  writeFileSync(join(root, C, 'aks-node-controller'), bytes, { mode: 0o755 });
  const printed = spawnSync(BIN, ['version'], { encoding: 'utf8' }).stdout.trim();
  assert.is(await agentVersion(root), printed);
});

test('R4-18: a symlinked executable (to a secret on the build host) and an ambiguous one give no version', async () => {
  const linked = imageRoot('linked');
  const secret = join(work, 'secret');
  writeFileSync(secret, 'ANC_VERSION_MARKER=202604.01.8;\n');
  symlinkSync(secret, join(linked, C, 'aks-node-controller'));
  assert.is(await agentVersion(linked), null);
  const two = imageRoot('two');
  writeFileSync(join(two, C, 'aks-node-controller'), 'ANC_VERSION_MARKER=202604.01.1;\nANC_VERSION_MARKER=202604.01.2;\n', { mode: 0o755 });
  assert.is(await agentVersion(two), null);
});

test('R4-19: the on-node image manifest: a symlink (to a secret) is refused, a damaged one is named by offset, never quoted', async () => {
  const root = imageRoot('on-node');
  const secret = join(work, 'node-secret');
  writeFileSync(secret, 'TOKEN=abcdef.0123456789abcdef\n');
  const manifest = join(root, C, 'aks-node-controller-image-manifest.json');
  symlinkSync(secret, manifest);
  for (const args of [['status'], ['status', '-o', 'json']]) {
    const r = await runAnc(args, { root });
    assert.not.match(r.stdout + r.stderr, 'abcdef');
    assert.match(r.stdout, `${C}/aks-node-controller-image-manifest.json is a symbolic link; not read`);
  }
  rmSync(manifest);
  writeFileSync(manifest, 'TOKEN=abcdef.0123456789abcdef\n');
  const r = await runAnc(['status'], { root });
  assert.not.match(r.stdout + r.stderr, 'abcdef');
  assert.match(
    r.stdout,
    `image manifest /${C}/aks-node-controller-image-manifest.json: not valid JSON (syntax error at byte offset 0 of 30)`,
  );
});

test.run();

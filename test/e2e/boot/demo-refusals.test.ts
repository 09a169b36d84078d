// Issue 40 items 8 and 11: the rehearsal never calls a refused hotfix a success, and says why (a payload
// pinned to the real image cannot take on the demo's own image); without the Debian tools it stops at once,
// naming what is missing, instead of a spawn error seconds in.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAgent, buildHotfixPackages } from '../../fakes/repos.ts';
import { imageManifestFor, pinnedFixEntries, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { BIN, runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-demo-refusals-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

function demo(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--no-warnings', '--loader', 'tsm', 'scripts/demo.ts', ...args], {
    env: { ...process.env, TMPDIR: work, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return new Promise((done) => child.on('close', (code) => done({ code, out, ms: Date.now() - started })));
}

test('without the Debian tools: refused at once, the missing tools named, what to do', async () => {
  const bin = join(work, 'node-only');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  const r = await demo([], { PATH: bin });
  assert.is(r.code, 1, r.out);
  assert.match(
    r.out,
    'demo: cannot run here: it boots a node through the Linux launcher with apt and a signed repository (missing apt-get, dpkg, dpkg-deb, apt-ftparchive, gpg).',
  );
  assert.match(r.out, 'README "On a Mac" lists what runs where');
  assert.not.match(r.out, 'ENOENT');
});

test('--packages whose payload is pinned to another image: REFUSED with the reason, exit 1, never "succeeded" alone', async () => {
  // The release engineer's payload, checked against their real image (another provision_start.sh than the demo's).
  const baked = (await runAnc(['version'])).stdout.trim();
  const [y, d, patch] = baked.split('.');
  const target = `${y}.${d}.${Number(patch) + 1}`;
  const manifest = imageManifestFor(BIN, join(work, 'real-image'), { exitCode: 7, note: 'the real image' });
  const payload = writePayloadDir(join(work, 'payload'), pinnedFixEntries());
  const bin = buildAgent(target, join(work, 'hotfix'), [
    '--scripts',
    payload,
    '--scripts-label',
    SCRIPT_LABEL,
    '--image-manifest',
    manifest,
  ]);
  const built = buildHotfixPackages(target, join(work, 'built'), { bin });
  const packages = join(work, 'packages');
  mkdirSync(packages);
  copyFileSync(built.deb, join(packages, built.deb.split('/').pop()!));
  const r = await demo(['--packages', packages, '--baked-bin', BIN]);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, "the image's agent (--baked-bin)");
  assert.not.match(r.out, "build the image's agent");
  assert.not.match(r.out, /\w+Ms=\d/, 'raw telemetry only with --verbose');
  assert.match(r.out, /\nREFUSED: the node did not take the hotfix: .+\n/);
  assert.match(r.out, 'pinned to the images it was built against; this demo boots its own image');
  assert.match(r.out, 'npm run demo:vm');
});

test.run();

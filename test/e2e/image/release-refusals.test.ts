// Issue 40 items 3-5: `npm run release` never destroys or says "done" over nothing. A non-empty --out-dir
// that is not a release's output is refused (--force writes beside what is there, deleting nothing of it);
// a script payload no checked image takes fails the release before packaging, naming the images; a
// repository root or apt suite that does not exist is refused without --new-repository; a delta that
// would not be built (from an executable of an architecture the release does not build) is an error.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAgent } from '../../fakes/repos.ts';
import { imageManifestFor, pinnedFixEntries, writePayloadDir } from '../../fakes/script-fix.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-release-refusals-'));
const release = (args: string[]) =>
  spawnSync(process.execPath, ['scripts/release.mjs', '--version', '202604.01.1', '--no-pointer-keys', '--arch', 'amd64', ...args], {
    encoding: 'utf8',
  });
let manifest = '';
let baked = '';

test.before(() => {
  baked = buildAgent('202604.01.0', join(work, 'baked'));
  manifest = imageManifestFor(baked, join(work, 'ubuntu-2204'));
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test('--out-dir: a non-empty directory that is not a release output is refused, untouched', () => {
  const out = join(work, 'mine');
  mkdirSync(join(out, 'notes'), { recursive: true });
  writeFileSync(join(out, 'keep.txt'), 'mine\n');
  const r = release(['--image-manifest', manifest, '--out-dir', out]);
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    `release: --out-dir ${out} is not empty and is not a release's output (no .aks-node-controller-release in it): it holds `,
  );
  assert.match(
    r.stderr,
    'or --force to write into it (only bin/, packages/ and pointer-proposed.yaml are replaced; nothing else is deleted)',
  );
  assert.is(r.stdout, '', 'nothing started');
  assert.equal(readdirSync(out).sort(), ['keep.txt', 'notes']);
  assert.is(readFileSync(join(out, 'keep.txt'), 'utf8'), 'mine\n');
  // A file is not a directory.
  const file = join(work, 'a-file');
  writeFileSync(file, 'x');
  assert.match(release(['--image-manifest', manifest, '--out-dir', file]).stderr, `--out-dir ${file} is not a directory`);
});

test('a payload no checked image takes (the wrong platform, after --unchecked-platform): exit 1 before packaging, the images named', () => {
  const marinerOnly = pinnedFixEntries().map((e) => ({ ...e, platforms: ['mariner'] }));
  const payload = writePayloadDir(join(work, 'mariner-payload'), marinerOnly);
  // --force into a directory of someone else's: the release writes beside keep.txt and deletes none of it.
  const out = join(work, 'forced');
  mkdirSync(out);
  writeFileSync(join(out, 'keep.txt'), 'mine\n');
  const args = ['--scripts', payload, '--scripts-label', 'bad-fix', '--unchecked-platform', 'mariner'];
  const r = release([...args, '--image-manifest', manifest, '--out-dir', out, '--force']);
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    'release: the script payload bad-fix changes nothing on any checked image: it is no fix there, so it is not released.\n',
  );
  assert.match(
    r.stderr,
    `  takes nothing: ${manifest} (ubuntu 22.04, agent 202604.01.0): no script hotfix on this image: the payload has no entry for platform ubuntu`,
  );
  assert.not.match(r.stdout, /done|package/);
  assert.match(
    r.stdout,
    'release 202604.01.1: build linux-amd64 only, the script payload checked against 1 image(s)\n',
    'not "every target"',
  );
  assert.not.ok(existsSync(join(out, 'packages')), 'nothing packaged');
  assert.is(readFileSync(join(out, 'keep.txt'), 'utf8'), 'mine\n');
  assert.not.ok(existsSync(join(out, '.aks-node-controller-release')), 'a directory of others is never marked as ours');
  // Its own earlier output is emptied without --force: marked, and nothing else in it.
  const own = join(work, 'own');
  const first = release([...args, '--image-manifest', manifest, '--out-dir', own]);
  assert.is(first.status, 1);
  assert.ok(existsSync(join(own, '.aks-node-controller-release')));
  const again = release([...args, '--image-manifest', manifest, '--out-dir', own]);
  assert.is(again.status, 1);
  assert.match(again.stderr, 'changes nothing on any checked image', 'refused for the payload, not for the directory');
});

test('--repository-root or --apt-suite that does not exist: refused (a typo?) unless --new-repository', () => {
  const base = ['--image-manifest', manifest, '--out-dir', join(work, 'repo-out'), '--repository-path', '/'];
  const typo = join(work, 'rpeo');
  const r = release([...base, '--repository-root', typo]);
  assert.is(r.status, 1);
  assert.is(r.stderr, `release: --repository-root ${typo} does not exist (a typo?); give --new-repository to start one there on purpose\n`);
  assert.not.ok(existsSync(typo));
  const repo = join(work, 'repo');
  mkdirSync(join(repo, 'dists/stable'), { recursive: true });
  const suite = release([...base, '--repository-root', repo, '--apt-suite', 'stabel']);
  assert.is(suite.status, 1);
  assert.is(
    suite.stderr,
    `release: --apt-suite stabel: ${repo}/dists/stabel does not exist (suites there: stable); give --new-repository to start one there on purpose\n`,
  );
  assert.not.ok(existsSync(join(repo, 'dists/stabel')));
  assert.not.ok(existsSync(join(work, 'repo-out')), 'refused before anything is written');
});

test('--delta-from an executable of another architecture: an error before the build, never "+ delta" with none built', () => {
  const arm64 = join(work, 'arm64-agent');
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header.writeUInt16LE(0xb7, 18); // EM_AARCH64
  writeFileSync(arm64, header);
  const r = release(['--image-manifest', manifest, '--out-dir', join(work, 'delta-out'), '--delta-from', arm64]);
  assert.is(r.status, 1);
  assert.is(
    r.stderr,
    `release: --delta-from ${arm64} is an arm64 executable, but this release builds amd64 only: no delta from it would be built (--arch all, or leave it out)\n`,
  );
  const notElf = join(work, 'not-elf');
  writeFileSync(notElf, '#!/bin/sh\n');
  assert.match(
    release(['--image-manifest', manifest, '--delta-from', notElf]).stderr,
    `--delta-from ${notElf}: not an executable (no ELF header)`,
  );
  // The host's own baked agent is of the built architecture: accepted (the next check, --out-dir, speaks).
  const accepted = release(['--image-manifest', manifest, '--out-dir', join(work, 'mine'), '--delta-from', baked]);
  assert.match(accepted.stderr, /^release: --out-dir \S+ is not empty/);
});

test.run();

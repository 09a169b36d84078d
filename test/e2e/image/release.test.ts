// `npm run release` (issue 29 §4) on the compiled binaries it builds: build (the payload checked against
// the image and pinned), package with progress, publish the hotfix index into a repository root, preview
// each image; the warning of a release that trusts no pointer signing key (build.mjs --all, npm run
// package, npm run release), silenced by --no-pointer-keys; a refused payload stops the release.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSigningKey } from '../../fakes/repo-index.ts';
import { buildAgent, serveDir } from '../../fakes/repos.ts';
import { imageManifestFor, pinnedFixEntries, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-release-'));
const WARNING = 'warning: no --pointer-keys: these executables trust no pointer signing key, so every signed hotfix pointer is refused';
const node = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, ...env } });
let manifest = '';
let payload = '';

test.before(() => {
  manifest = imageManifestFor(buildAgent('202604.01.0', join(work, 'baked')), join(work, 'ubuntu-2204'));
  payload = writePayloadDir(join(work, 'payload'), pinnedFixEntries());
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test('npm run release: build, package with progress, publish the hotfix index, preview; warns without pointer keys', () => {
  const key = createSigningKey(work, 'repo');
  const repository = join(work, 'repository');
  const args = ['scripts/release.mjs', '--version', '202604.01.1', '--scripts', payload, '--scripts-label', SCRIPT_LABEL];
  args.push('--image-manifest', manifest, '--arch', 'amd64', '--formats', 'deb', '--fast', '--out-dir', join(work, 'out'));
  args.push('--repository-root', repository, '--repository-path', '/', '--new-repository');
  const r = node(args, { GNUPGHOME: key.home });
  key.close();
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.stderr.split(WARNING).length - 1, 2, `said before and after: ${r.stderr}`);
  assert.match(r.stdout, `checked against ${manifest} (ubuntu 22.04, agent 202604.01.0): 2 replace, 0 unchanged`);
  assert.match(r.stdout, /\n {2}building 1\/1 aks-node-controller_202604\.01\.1_amd64\.deb \(\d+ s\)\n/);
  assert.match(r.stdout, `hotfix index signed and published (dists/stable/aks-node-controller)`);
  const index = readFileSync(join(repository, 'dists/stable/aks-node-controller/Packages'), 'utf8');
  assert.match(index, /Package: aks-node-controller\n(?:.+\n)*?Version: 202604\.01\.1\n/);
  assert.ok(existsSync(join(repository, 'dists/stable/aks-node-controller/InRelease')));
  assert.match(r.stdout, `on image ${manifest} (ubuntu 22.04, agent 202604.01.0): takes the payload`);
  assert.match(r.stdout, `${manifest} (ubuntu 22.04, agent 202604.01.0): TAKES the hotfix: takes hotfix 202604.01.1 (scripts: 2 replaced)`);
  assert.match(r.stdout, /release 202604\.01\.1: done in \d+ s/);
  // npm run package repeats the warning for an executable without keys; --no-pointer-keys silences it.
  const bin = join(work, 'out/bin/aks-node-controller-linux-amd64');
  const pkg = (extra: string[]) =>
    node([
      'vhd/packaging/build-packages.mjs',
      '--bin',
      bin,
      '--arch',
      'amd64',
      '--formats',
      'deb',
      '--fast',
      '--out-dir',
      join(work, 'pkg'),
      ...extra,
    ]);
  const warned = pkg([]);
  assert.is(warned.status, 0, warned.stderr);
  assert.match(warned.stderr, `build-packages: ${bin}: ${WARNING}`);
  assert.not.match(pkg(['--no-pointer-keys']).stderr, WARNING);
});

test('hotfix explain --repository: the published signed hotfix index lists the version, checked as a node checks it', async () => {
  const repo = await serveDir(join(work, 'repository'));
  const bin = join(work, 'out/bin/aks-node-controller-linux-amd64');
  const explain = (keyring: string) =>
    runAnc(
      ['hotfix', 'explain', '--pointer', join(work, 'out/pointer-proposed.yaml'), '--candidate', bin, '--image-manifest', manifest].concat([
        '--repository',
        `${repo.url}/dists/stable/`,
        '--repository-keyring',
        keyring,
        '--arch',
        'amd64',
      ]),
      { bin, root: mkdtempSync(join(work, 'root-')) },
    );
  try {
    const listed = await explain(join(work, 'repo.gpg'));
    assert.is(listed.exitCode, 0, listed.stdout + listed.stderr);
    assert.match(
      listed.stdout,
      `repository: ${repo.url}/dists/stable/aks-node-controller/ lists aks-node-controller 202604.01.1 for amd64 (signed index verified as a node verifies it)`,
    );
    const stranger = createSigningKey(work, 'stranger');
    stranger.close();
    const refused = await explain(join(work, 'stranger.gpg'));
    assert.is(refused.exitCode, 3, refused.stdout);
    assert.match(refused.stdout, `does NOT list aks-node-controller 202604.01.1 for amd64: INTEGRITY: `);
    assert.match(refused.stdout, 'NO image takes the hotfix (exit 3)');
  } finally {
    await repo.close();
  }
});

test('build.mjs --all without --pointer-keys warns, naming the consequence; --no-pointer-keys silences it', () => {
  const warned = node(['build.mjs', '--quiet', '--all', '--outdir', join(work, 'all')]);
  assert.is(warned.status, 0, warned.stderr);
  assert.match(
    warned.stderr,
    `${WARNING} and nodes in enforce mode stage no hotfix; pass --pointer-keys FILE, or --no-pointer-keys if that is on purpose`,
  );
  const quiet = node(['build.mjs', '--quiet', '--all', '--no-pointer-keys', '--outdir', join(work, 'all')]);
  assert.is(quiet.status, 0, quiet.stderr);
  assert.is(quiet.stderr, '');
});

test('a payload refused at build stops the release, with the reason', () => {
  const typo = writePayloadDir(join(work, 'typo'), [{ ...pinnedFixEntries()[0]!, destination: '/opt/azure/containers/provision_star.sh' }]);
  const r = node([
    'scripts/release.mjs',
    '--version',
    '202604.01.1',
    '--scripts',
    typo,
    '--image-manifest',
    manifest,
    '--arch',
    'amd64',
    '--no-pointer-keys',
    '--out-dir',
    join(work, 'typo-out'),
  ]);
  assert.is(r.status, 1);
  assert.match(r.stderr, 'release: build refused:');
  assert.match(r.stderr, 'did you mean /opt/azure/containers/provision_start.sh?');
  assert.not.ok(existsSync(join(work, 'typo-out/packages')), 'nothing packaged');
});

test.run();

// `npm run package -- --delta-from`: the aks-node-controller-delta packages beside the full ones, their
// manifest (read with the node's own parser), deltas that the node's decoder turns back into the exact
// target, byte-reproducible builds, and the CLI's refusals.
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deltaFor, parseDeltaManifest } from '../../../src/hotfix/delta/manifest.ts';
import { reconstructTarget } from '../../../src/hotfix/delta/reconstruct.ts';
import { buildPackages, rpmlintProblems, type BuiltPackage } from '../../../vhd/packaging/build-packages.mjs';
import { fakeDeps } from '../../fakes/deps.ts';
import { buildAgent } from '../../fakes/repos.ts';

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const DIR = 'usr/lib/aks-node-controller/delta';
const ctx = {} as { work: string; base: string; otherBase: string; target: string; built: BuiltPackage[] };

function debFile(deb: string, path: string): Buffer {
  return execFileSync('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./$2"', 'sh', deb, path], { maxBuffer: 1 << 28 });
}

function rpmFile(rpm: string, path: string): Buffer {
  return execFileSync('sh', ['-c', 'rpm2cpio "$1" | cpio --quiet -i --to-stdout "./$2"', 'sh', rpm, path], { maxBuffer: 1 << 28 });
}

test.before(() => {
  ctx.work = mkdtempSync(join(tmpdir(), 'anc-delta-pkg-'));
  ctx.base = buildAgent('202604.01.0', join(ctx.work, 'base'));
  ctx.otherBase = buildAgent('202604.01.2', join(ctx.work, 'other'));
  ctx.target = buildAgent('202604.01.3', join(ctx.work, 'target'));
  ctx.built = buildPackages({
    bins: { amd64: ctx.target },
    outDir: join(ctx.work, 'out'),
    fast: true,
    deltaFrom: [ctx.base, ctx.otherBase],
  });
});

test.after(() => rmSync(ctx.work, { recursive: true, force: true }));

test('delta packages in both formats beside the full ones, same version and architecture, small', () => {
  const names = ctx.built.map((b) => `${b.package} ${b.format} ${b.arch} ${b.version}`);
  assert.equal(names, [
    'aks-node-controller deb amd64 202604.01.3',
    'aks-node-controller rpm amd64 202604.01.3',
    'aks-node-controller-delta deb amd64 202604.01.3',
    'aks-node-controller-delta rpm amd64 202604.01.3',
  ]);
  const [deb, rpm] = ctx.built.filter((b) => b.package === 'aks-node-controller-delta');
  assert.match(deb!.file, /aks-node-controller-delta_202604\.01\.3_amd64\.deb$/);
  assert.match(rpm!.file, /aks-node-controller-delta-202604\.01\.3-1\.x86_64\.rpm$/);
  assert.is(execFileSync('dpkg-deb', ['-f', deb!.file, 'Package']).toString().trim(), 'aks-node-controller-delta');
  assert.is(
    execFileSync('rpm', ['-qp', '--qf', '%{NAME} %{VERSION} %{ARCH}', rpm!.file]).toString(),
    'aks-node-controller-delta 202604.01.3 x86_64',
  );
  // rpmlint-clean like the full package (the filters in rpmlint.toml say why each is there).
  assert.equal(rpmlintProblems(rpm!.file), []);
  // Two bases, one executable apart in version and a log line: each delta is tens of KB.
  for (const p of [deb!, rpm!]) assert.ok(p.size < 200 * 1024, `${p.file}: ${p.size} bytes`);
});

test('the manifest: lowercase hex sha256 of the target and of each base, parsed by the node', () => {
  const [deb, rpm] = ctx.built.filter((b) => b.package === 'aks-node-controller-delta');
  const text = debFile(deb!.file, `${DIR}/manifest.json`);
  assert.ok(text.equals(rpmFile(rpm!.file, `${DIR}/manifest.json`)), 'same manifest in the .deb and the .rpm');
  const manifest = parseDeltaManifest(text, { version: '202604.01.3', architecture: 'amd64' });
  const target = readFileSync(ctx.target);
  assert.equal(manifest.target, { sha256: sha(target), size: target.length });
  assert.equal(manifest.deltas.map((d) => d.base.sha256).sort(), [sha(readFileSync(ctx.base)), sha(readFileSync(ctx.otherBase))].sort());
  assert.match(text.toString(), /^\{"schema":"aks-node-controller-delta\/1",/);
  for (const hex of text.toString().match(/"[0-9a-fA-F]{64}(\.vcdiff)?"/g)!) assert.match(hex, /^"[0-9a-f]{64}(\.vcdiff)?"$/);
});

test("each delta rebuilds the exact target from its base with the node's decoder", () => {
  const deb = ctx.built.find((b) => b.package === 'aks-node-controller-delta' && b.format === 'deb')!;
  const manifest = parseDeltaManifest(debFile(deb.file, `${DIR}/manifest.json`), { version: '202604.01.3', architecture: 'amd64' });
  const deps = fakeDeps();
  try {
    for (const base of [ctx.base, ctx.otherBase]) {
      const entry = deltaFor(manifest, sha(readFileSync(base)))!;
      const out = join(deps.cwd, `rebuilt-${entry.base.sha256}`);
      const written = reconstructTarget(deps, manifest, entry, debFile(deb.file, `${DIR}/${entry.file}`), base, out, 0o755);
      assert.equal(written, manifest.target);
      assert.is(
        execFileSync(out, ['version'], { env: { PATH: process.env.PATH, AKS_NODE_ROOT: deps.cwd } })
          .toString()
          .trim(),
        '202604.01.3',
      );
    }
  } finally {
    deps.cleanup();
  }
});

test('byte-reproducible: a second build gives identical delta packages', () => {
  const again = buildPackages({
    bins: { amd64: ctx.target },
    outDir: join(ctx.work, 'again'),
    fast: true,
    deltaFrom: [ctx.otherBase, ctx.base],
  });
  const deltas = (list: BuiltPackage[]) =>
    list.filter((b) => b.package === 'aks-node-controller-delta').map((b) => sha(readFileSync(b.file)));
  assert.equal(deltas(again), deltas(ctx.built));
});

test('arm64: real arm64 builds give an arm64 delta package (.deb arm64, .rpm aarch64) that rebuilds the target', () => {
  const build = (version: string, dir: string) => {
    execFileSync(process.execPath, [resolve('build.mjs'), '--quiet', '--all', '--outdir', dir], {
      env: { ...process.env, ANC_VERSION: version },
      stdio: 'ignore',
    });
    return join(dir, 'aks-node-controller-linux-arm64');
  };
  const base = build('202604.01.0', join(ctx.work, 'arm-base'));
  const target = build('202604.01.3', join(ctx.work, 'arm-target'));
  const built = buildPackages({
    bins: { arm64: target },
    outDir: join(ctx.work, 'arm-out'),
    version: '202604.01.3',
    fast: true,
    deltaFrom: [base, ctx.base],
  });
  const deltas = built.filter((b) => b.package === 'aks-node-controller-delta');
  assert.equal(
    deltas.map((b) => `${b.format} ${b.arch}`),
    ['deb arm64', 'rpm arm64'],
  );
  assert.match(deltas[1]!.file, /aks-node-controller-delta-202604\.01\.3-1\.aarch64\.rpm$/);
  const manifest = parseDeltaManifest(debFile(deltas[0]!.file, `${DIR}/manifest.json`), { version: '202604.01.3', architecture: 'arm64' });
  assert.equal(
    manifest.deltas.map((d) => d.base.sha256),
    [sha(readFileSync(base))],
    'only the arm64 base',
  );
  const deps = fakeDeps();
  try {
    const entry = manifest.deltas[0]!;
    const written = reconstructTarget(
      deps,
      manifest,
      entry,
      rpmFile(deltas[1]!.file, `${DIR}/${entry.file}`),
      base,
      join(deps.cwd, 'rebuilt'),
      0o755,
    );
    assert.equal(written, { sha256: sha(readFileSync(target)), size: readFileSync(target).length });
  } finally {
    deps.cleanup();
  }
});

test('CLI: --delta-from takes several files; bases of another architecture are skipped; non-ELF refused', () => {
  const script = resolve('vhd/packaging/build-packages.mjs');
  const arm = join(ctx.work, 'arm64-base');
  const elf = Buffer.alloc(64);
  elf.write('\x7fELF', 0, 'latin1');
  elf.writeUInt16LE(0xb7, 18);
  writeFileSync(arm, elf);
  const out = join(ctx.work, 'cli');
  const ok = spawnSync(
    process.execPath,
    [script, '--fast', '--arch', 'amd64', '--bin', ctx.target, '--out-dir', out, '--delta-from', ctx.base, arm, '--formats', 'deb'],
    { encoding: 'utf8' },
  );
  assert.is(ok.status, 0, ok.stderr);
  assert.match(
    ok.stdout,
    /aks-node-controller-delta_202604\.01\.3_amd64\.deb {2}\d+ bytes {2}target sha256 [0-9a-f]{64} {2}deltas [0-9a-f]{12}: \d+ bytes {2}\(\d+\.\d s\)( {2}\[\d+\/\d+, total [^\]\n]+\])?\n/,
  );
  const manifest = JSON.parse(debFile(join(out, 'aks-node-controller-delta_202604.01.3_amd64.deb'), `${DIR}/manifest.json`).toString());
  assert.is(manifest.deltas.length, 1);
  const armOnly = spawnSync(
    process.execPath,
    [
      script,
      '--fast',
      '--arch',
      'amd64',
      '--bin',
      ctx.target,
      '--out-dir',
      join(ctx.work, 'cli-arm'),
      '--delta-from',
      arm,
      '--formats',
      'deb',
    ],
    { encoding: 'utf8' },
  );
  assert.is(armOnly.status, 0, armOnly.stderr);
  assert.match(armOnly.stderr, 'no --delta-from executable is of a built architecture (amd64): no delta package');
  const text = join(ctx.work, 'not-elf');
  writeFileSync(text, '#!/bin/sh\n');
  const bad = spawnSync(
    process.execPath,
    [script, '--fast', '--arch', 'amd64', '--bin', ctx.target, '--out-dir', out, '--delta-from', text],
    { encoding: 'utf8' },
  );
  assert.is(bad.status, 1);
  assert.match(bad.stderr, `--delta-from ${text}: not an ELF executable`);
  const none = spawnSync(process.execPath, [script, '--fast', '--delta-from', '--arch', 'amd64'], { encoding: 'utf8' });
  assert.is(none.status, 1);
  assert.match(none.stderr, '--delta-from needs at least one executable');
});

test.run();

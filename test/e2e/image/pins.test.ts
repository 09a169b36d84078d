// Issue 29 on the compiled binary: the image manifest (deterministic, the agent's own files left out,
// --diff after a script hotfix), a payload checked against the images it targets at build time (a typo'd
// destination and a wrong platform refused with the suggestion, a no-op entry refused, pins recorded),
// the previews on image manifests (`hotfix scripts`, `hotfix explain`), and a no-op payload on a node
// (an Error-level event, `status` says so).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BAKED_START,
  fixEntries,
  imageManifestFor,
  type PayloadEntry,
  pinnedFixEntries,
  SCRIPT_LABEL,
  writePayloadDir,
} from '../../fakes/script-fix.ts';
import { buildAgent } from '../../fakes/repos.ts';
import { BIN, makeSandbox, runAnc } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-image-pins-'));
const VERSION = '202604.01.1';
const C = '/opt/azure/containers';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const build = (outdir: string, args: string[]) =>
  spawnSync(process.execPath, ['build.mjs', '--quiet', '--outdir', outdir, ...args], {
    env: { ...process.env, ANC_VERSION: VERSION },
    encoding: 'utf8',
  });
let good = '';
let other = '';
let mariner = '';
let pinned = '';

test.before(() => {
  good = imageManifestFor(BIN, join(work, 'good'));
  other = imageManifestFor(BIN, join(work, 'other'), { exitCode: 50, note: 'another image build' });
  mariner = imageManifestFor(BIN, join(work, 'mariner'), {}, 'NAME="Microsoft Azure Linux"\nVERSION_ID="3.0"\nID=azurelinux\n');
  pinned = buildAgent(VERSION, join(work, 'pinned'), [
    '--scripts',
    writePayloadDir(join(work, 'pinned-payload'), pinnedFixEntries()),
    '--scripts-label',
    SCRIPT_LABEL,
    '--image-manifest',
    good,
  ]);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

function refusedBuild(name: string, entries: PayloadEntry[], extra: string[]): string {
  const r = build(join(work, `out-${name}`), ['--scripts', writePayloadDir(join(work, `p-${name}`), entries), ...extra]);
  assert.is(r.status, 1, `${name}: ${r.stdout}`);
  return r.stderr;
}

test("image manifest: the same tree gives the same bytes; the agent's own files are left out", async () => {
  const manifest = JSON.parse(readFileSync(good, 'utf8'));
  assert.equal(manifest.platform, { name: 'ubuntu', id: 'ubuntu', versionId: '22.04', variantId: '' });
  assert.match(manifest.agentVersion, /^\d{6}\.\d{2}\.\d+$/);
  const start = manifest.files.find((f: { path: string }) => f.path === `${C}/provision_start.sh`);
  assert.equal(start, { path: `${C}/provision_start.sh`, sha256: sha(BAKED_START), mode: '0755', size: Buffer.byteLength(BAKED_START) });
  // Another root with the same files written in another order, plus the agent's own and the boot's files.
  const root = join(work, 'again');
  mkdirSync(join(root, 'etc'), { recursive: true });
  copyFileSync(join(work, 'good/image/etc/os-release'), join(root, 'etc/os-release'));
  for (const f of [...manifest.files].reverse()) {
    mkdirSync(join(root, f.path, '..'), { recursive: true });
    copyFileSync(join(work, 'good/image', f.path), join(root, f.path));
    spawnSync('chmod', [f.mode, join(root, f.path)]);
  }
  for (const own of ['aks-node-controller-hotfix.json', 'provision.complete', 'aks-node-controller-config.json', '.anc-script-hotfix-x.1'])
    writeFileSync(join(root, C, own), 'x');
  mkdirSync(join(root, C, 'aks-node-controller-script-hotfix'), { recursive: true });
  writeFileSync(join(root, C, 'aks-node-controller-script-hotfix/record.json'), '{}');
  symlinkSync('provision_start.sh', join(root, C, 'a-link.sh'));
  const a = await runAnc(['image', 'manifest', '--root', root, '-o', 'json'], { root: work });
  const b = await runAnc(['image', 'manifest', '--root', root], { root: work });
  assert.is(a.exitCode, 0, a.stderr);
  assert.is(a.stdout, b.stdout, 'text and json are the same canonical bytes');
  const again = JSON.parse(a.stdout);
  assert.equal(again.files, manifest.files, 'same files, same order, nothing of the agent or the boot, no symlink');
  const bad = join(work, 'bad.json');
  writeFileSync(bad, JSON.stringify({ ...manifest, files: [{ path: '/etc/passwd', sha256: 'x', mode: '755', size: -1 }] }));
  const refused = await runAnc(['image', 'manifest', '--root', root, '--diff', bad], { root: work });
  assert.is(refused.exitCode, 1);
  assert.match(
    refused.stderr,
    /image manifest .*bad\.json: files\[0\] \(\/etc\/passwd\): path must be under \/opt\/azure\/containers\/; files\[0\] \(\/etc\/passwd\): sha256 must be 64/,
  );
});

test("build: a typo'd destination and a wrong platform are refused, naming entry, image and the closest name", () => {
  const typo = refusedBuild('typo', [{ ...pinnedFixEntries()[0]!, destination: `${C}/provision_star.sh` }], ['--image-manifest', good]);
  assert.match(typo, `entry 0 (cse_start.sh): destination ${C}/provision_star.sh does not exist on image ${good} (ubuntu 22.04, agent `);
  assert.match(typo, `; did you mean ${C}/provision_start.sh?`);
  const wrong = refusedBuild('platform', [{ ...pinnedFixEntries()[0]!, platforms: ['mariner'] }], ['--image-manifest', good]);
  assert.match(
    wrong,
    'platform mariner: entry 0 (cse_start.sh) lists it, but no --image-manifest of a mariner image was given (give one, or --unchecked-platform mariner to leave it unchecked on purpose)',
  );
  const noop = refusedBuild(
    'noop',
    [{ ...pinnedFixEntries()[1]!, content: '#!/bin/bash\n# stand-in: nothing to source\n' }],
    ['--image-manifest', good],
  );
  assert.match(
    noop,
    /entry 0 \(cse_helpers\.sh\): changes nothing on any image given: \/opt\/azure\/containers\/provision_source\.sh already holds these bytes/,
  );
  // On purpose: mariner unchecked builds, and says so.
  const ok = build(join(work, 'out-unchecked'), [
    '--scripts',
    writePayloadDir(
      join(work, 'p-unchecked'),
      fixEntries().filter((e) => !e.destination.endsWith('not-on-this-image.sh')),
    ),
    '--image-manifest',
    good,
    '--unchecked-platform',
    'mariner',
  ]);
  assert.is(ok.status, 0, ok.stderr);
});

test("version -o json lists each entry's pin and the platforms left unchecked", async () => {
  const info = JSON.parse((await runAnc(['version', '-o', 'json'], { root: work, bin: pinned })).stdout).scriptPayload;
  assert.equal(
    info.pins.map((p: { destination: string; replaces: string[] }) => [p.destination, p.replaces]),
    [
      [`${C}/provision_start.sh`, [sha(BAKED_START)]],
      [`${C}/provision_source.sh`, [sha('#!/bin/bash\n# stand-in: nothing to source\n')]],
    ],
  );
  assert.is(info.checkedAgainst.length, 1);
  assert.equal(info.uncheckedPlatforms, []);
  const unchecked = join(work, 'out-unchecked', 'aks-node-controller');
  const u = JSON.parse((await runAnc(['version', '-o', 'json'], { root: work, bin: unchecked })).stdout).scriptPayload;
  assert.equal(u.uncheckedPlatforms, ['mariner']);
});

test('hotfix scripts --image-manifest: the plan on each image; exit 3 when refused or nothing applies', async () => {
  const on = (m: string, json = true) =>
    runAnc(['hotfix', 'scripts', '--binary', pinned, '--image-manifest', m, ...(json ? ['-o', 'json'] : [])], { root: work });
  const ok = await on(good);
  assert.is(ok.exitCode, 0, ok.stderr);
  const plan = JSON.parse(ok.stdout).images[0];
  assert.equal([plan.takes, plan.entries.map((e: { action: string }) => e.action)], [true, ['replace', 'replace']]);
  assert.is(plan.entries[0].current, sha(BAKED_START));
  const wrong = await on(other, false);
  assert.is(wrong.exitCode, 3, wrong.stdout);
  assert.match(wrong.stdout, /REFUSES the payload/);
  assert.match(wrong.stdout, `refused   ${C}/provision_start.sh`);
  assert.match(
    wrong.stdout,
    `holds sha256:${JSON.parse(readFileSync(other, 'utf8')).files.find((f: { path: string }) => f.path.endsWith('provision_start.sh')).sha256}, not the image's sha256:${sha(BAKED_START)} (what the payload was built against) nor the new sha256:`,
  );
  const none = await on(mariner);
  assert.is(none.exitCode, 3);
  assert.match(JSON.parse(none.stdout).images[0].skipped, 'the payload has no entry for platform mariner');
});

test('hotfix explain --pointer CONFIGMAP --candidate --image-manifest: per image, exit 3 when none takes; --mode', async () => {
  const version = JSON.parse(readFileSync(good, 'utf8')).agentVersion as string;
  const base = version.split('.').slice(0, 2).join('.');
  const expires = new Date(Date.now() + 14 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const rendered = await runAnc(['hotfix', 'pointer', 'render', '--hotfix', `${base}=${base}.7`, '--serial', '1', '--expires', expires], {
    root: work,
  });
  assert.is(rendered.exitCode, 0, rendered.stderr);
  assert.is(rendered.stderr, '', 'two weeks: no expiry warning');
  const cm = join(work, 'configmap.yaml');
  writeFileSync(cm, rendered.stdout);
  const explain = (m: string, extra: string[] = []) =>
    runAnc(['hotfix', 'explain', '--pointer', cm, '--candidate', pinned, '--image-manifest', m, ...extra], { root: work });
  const takes = await explain(good);
  assert.is(takes.exitCode, 0, takes.stdout + takes.stderr);
  assert.match(takes.stdout, `${good} (ubuntu 22.04, agent ${version}): TAKES the hotfix: takes hotfix ${base}.7 (scripts: 2 replaced)`);
  const refused = await explain(other, ['-o', 'json']);
  assert.is(refused.exitCode, 3, refused.stdout);
  const image = JSON.parse(refused.stdout).images[0];
  assert.equal([image.takes, image.decision.upgrade], [false, true]);
  assert.match(image.why, 'no fix: the script payload is refused here');
  const enforced = await explain(good, ['--mode', 'enforce']);
  assert.is(enforced.exitCode, 3, enforced.stdout);
  assert.match(enforced.stdout, 'a node would refuse this pointer (unsigned:');
});

/** A node root with the image's scripts and a configuration (the node() of script-payload.test.ts). */
function node() {
  const box = makeSandbox('anc-image-node-');
  box.write('/etc/os-release', 'ID=ubuntu\nVERSION_ID="22.04"\n');
  box.write('/opt/azure/components.json', '{}\n');
  box.write('/config.json', '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  box.write(`${C}/provision_start.sh`, BAKED_START, 0o755);
  box.write(`${C}/provision_source.sh`, '#!/bin/bash\n# stand-in: nothing to source\n', 0o644);
  box.write(`${C}/provision_configs.sh`, '#!/bin/bash\n# stand-in: nothing to source\n', 0o644);
  return box;
}

test('a no-op payload on a node: an Error-level ScriptHotfix event, and status says so', async () => {
  const entries = fixEntries().filter((e) => e.destination.endsWith('not-on-this-image.sh'));
  const noop = buildAgent(VERSION, join(work, 'noop'), ['--scripts', writePayloadDir(join(work, 'noop-payload'), entries)]);
  const box = node();
  const seam = await runAnc(['apply-embedded-hotfix'], { root: box.root, bin: noop });
  assert.is(seam.exitCode, 0, seam.stderr);
  assert.match(seam.stdout, /^NO-OP: this binary's script payload changes nothing on this image \(no entry applies on this image: /);
  const run = await runAnc(['provision', `--provision-config=${box.path('/config.json')}`], { root: box.root, bin: noop });
  assert.ok(run.exitCode !== 0, 'the baked (buggy) script ran: the no-op fixed nothing');
  const events = box.events().filter((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix');
  assert.is(events.length, 2, 'one per apply: the seam, then provision');
  assert.ok(events.every((e) => e.EventLevel === 'Error'));
  assert.match(
    events[0]!.Message!,
    `apply label=${VERSION} platform=ubuntu replaced=0 unchanged=0 missing=1: no entry applies on this image: ${C}/not-on-this-image.sh missing`,
  );
  const status = await runAnc(['status'], { root: box.root });
  assert.match(
    status.stdout,
    `scripts:\n  ran        baked (the image's own provisioning scripts)\n  NO-OP      hotfix ${VERSION} changed nothing on this image: it is not a fix here\n`,
  );
  const json = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout).scripts;
  assert.equal(json.noop, { label: VERSION, verdict: `no entry applies on this image: ${C}/not-on-this-image.sh missing` });
  assert.not.ok(existsSync(box.path(`${C}/aks-node-controller-script-hotfix/record.json`)), 'no record: nothing was replaced');
  box.cleanup();
});

test('image manifest --diff after a script hotfix: replaced by the hotfix vs edited by hand; status shows it', async () => {
  const box = node();
  const kept = await runAnc(['image', 'manifest', '-o', 'json'], { root: box.root });
  box.write(`${C}/aks-node-controller-image-manifest.json`, kept.stdout);
  const run = await runAnc(['provision', `--provision-config=${box.path('/config.json')}`], { root: box.root, bin: pinned });
  assert.is(run.exitCode, 0, run.stderr);
  box.write(`${C}/provision_configs.sh`, '#!/bin/bash\necho edited on the node\n', 0o644);
  const manifest = box.path(`${C}/aks-node-controller-image-manifest.json`);
  const diff = JSON.parse((await runAnc(['image', 'manifest', '--diff', manifest, '-o', 'json'], { root: box.root })).stdout);
  assert.equal(
    diff.changed.map((c: { path: string; by: string }) => `${c.by} ${c.path}`),
    [
      `edited ${C}/provision_configs.sh`,
      `hotfix ${SCRIPT_LABEL} ${C}/provision_source.sh`,
      `hotfix ${SCRIPT_LABEL} ${C}/provision_start.sh`,
    ],
  );
  assert.equal([diff.removed, diff.added], [[], []]);
  const text = (await runAnc(['image', 'manifest', '--diff', manifest], { root: box.root })).stdout;
  assert.match(text, `changed  ${C}/provision_configs.sh: edited by hand (no script hotfix wrote these bytes)`);
  assert.match(text, `changed  ${C}/provision_start.sh: replaced by hotfix ${SCRIPT_LABEL}`);
  const status = (await runAnc(['status'], { root: box.root })).stdout;
  assert.match(status, `  image      3 changed since the image was built (${C}/aks-node-controller-image-manifest.json)\n`);
  assert.match(status, `             edited by hand: ${C}/provision_configs.sh\n`);
  assert.match(status, `             replaced by hotfix ${SCRIPT_LABEL}: ${C}/provision_start.sh\n`);
  box.cleanup();
});

test.run();

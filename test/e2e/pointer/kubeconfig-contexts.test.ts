// The operator commands read the kubeconfig as kubectl does (issue 37 §3): --kubeconfig FILE alone, else
// every file of $KUBECONFIG merged (first file to define a name wins, first current-context wins), else
// ~/.kube/config; the context is --context, else current-context. Two apiserver stand-ins play two
// clusters whose pointers differ (serial 5 on A, serial 9 on B) and whose Node lists differ, so which
// cluster a command read shows in its output. A missing file is named, never an apiserver error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeApiServer, type FakeApiServer } from '../../fakes/apiserver.ts';
import { runAnc } from '../harness.ts';
import { KUBECTL } from './kubectl.ts';

const TOKEN = 'operator.0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'anc-kubeconfig-'));
const home = join(work, 'home');
mkdirSync(home);
const clusters: FakeApiServer[] = [];
test.after(async () => {
  for (const api of clusters) await api.close();
  rmSync(work, { recursive: true, force: true });
});

async function cluster(serial: number, nodes: string[]): Promise<FakeApiServer> {
  const api = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'operator', canRead: true } } });
  clusters.push(api);
  const rendered = await runAnc(
    [
      'hotfix',
      'pointer',
      'render',
      '--hotfix',
      `202604.01=202604.01.${serial}`,
      '--serial',
      String(serial),
      '--expires',
      '2099-01-01T00:00:00Z',
      '-o',
      'json',
    ],
    { env: { HOME: home } },
  );
  assert.is(rendered.exitCode, 0, rendered.stderr);
  api.configMaps.set('kube-system/anc-hotfix-version', JSON.parse(rendered.stdout).data);
  for (const name of nodes) api.nodes.register(name, { bootId: 'boot-1' });
  return api;
}

/** A kubeconfig with one context per cluster; the CA as a file RELATIVE to the kubeconfig's directory. */
function kubeconfig(dir: string, entries: Array<{ name: string; api: FakeApiServer }>, current?: string): string {
  mkdirSync(join(work, dir), { recursive: true });
  const lines = ['apiVersion: v1', 'kind: Config', 'clusters:'];
  for (const { name, api } of entries) {
    writeFileSync(join(work, dir, `${name}-ca.crt`), api.pki.ca.cert);
    lines.push('- cluster:', `    certificate-authority: ${name}-ca.crt`, `    server: ${api.url}`, `  name: ${name}`);
  }
  lines.push('contexts:');
  for (const { name } of entries) lines.push('- context:', `    cluster: ${name}`, `    user: ${name}-user`, `  name: ${name}`);
  lines.push('users:');
  for (const { name } of entries) lines.push(`- name: ${name}-user`, '  user:', `    token: ${TOKEN}`);
  if (current) lines.push(`current-context: ${current}`);
  const path = join(work, dir, 'config');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The server kubectl itself would talk to with this environment (and --context). */
function kubectlServer(env: Record<string, string>, context?: string): string {
  const args = ['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}', ...(context ? ['--context', context] : [])];
  return execFileSync(KUBECTL, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env }, encoding: 'utf8' }).trim();
}

const serialNote = (stderr: string) => /serial (\d+): the cluster's pointer has serial (\d+)/.exec(stderr)?.[2];
const render = (args: string[], env: Record<string, string> = {}) =>
  runAnc(['hotfix', 'pointer', 'render', '--hotfix', '202604.01=202604.01.2', '--expires', '2099-01-01T00:00:00Z', ...args], {
    env: { HOME: home, ...env },
    cwd: work,
  });

test('current-context picks the cluster, not the first one; --context picks another', async () => {
  const a = await cluster(5, ['a-node-0']);
  const b = await cluster(9, ['b-node-0', 'b-node-1']);
  // A is the FIRST cluster in the file, B the current context: kubectl talks to B.
  const file = kubeconfig(
    'two',
    [
      { name: 'cluster-a', api: a },
      { name: 'cluster-b', api: b },
    ],
    'cluster-b',
  );
  const current = await render(['--kubeconfig', file]);
  assert.is(current.exitCode, 0, current.stderr);
  assert.is(serialNote(current.stderr), '9', current.stderr);
  const other = await render(['--kubeconfig', file, '--context', 'cluster-a']);
  assert.is(serialNote(other.stderr), '5', other.stderr);
  const status = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', file, '-o', 'json'], { env: { HOME: home } });
  assert.equal(
    JSON.parse(status.stdout).nodes.map((n: { name: string }) => n.name),
    ['b-node-0', 'b-node-1'],
  );
  const statusA = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', file, '--context', 'cluster-a', '-o', 'json'], {
    env: { HOME: home },
  });
  assert.equal(
    JSON.parse(statusA.stdout).nodes.map((n: { name: string }) => n.name),
    ['a-node-0'],
  );
  // verify: cluster C (current) has no pointer at all; A has one.
  const c = await startFakeApiServer({ tokens: { [TOKEN]: { user: 'operator', canRead: true } } });
  clusters.push(c);
  const withC = kubeconfig(
    'with-c',
    [
      { name: 'cluster-a', api: a },
      { name: 'cluster-c', api: c },
    ],
    'cluster-c',
  );
  const verifyC = await runAnc(['hotfix', 'pointer', 'verify', '--kubeconfig', withC], { env: { HOME: home } });
  assert.is(verifyC.exitCode, 1);
  assert.match(verifyC.stderr, 'the cluster has no anc-hotfix-version ConfigMap to verify');
  const verifyA = await runAnc(['hotfix', 'pointer', 'verify', '--kubeconfig', withC, '--context', 'cluster-a'], { env: { HOME: home } });
  assert.is(verifyA.exitCode, 0, verifyA.stderr);
  const unknown = await render(['--kubeconfig', file, '--context', 'cluster-c']);
  assert.is(unknown.exitCode, 1);
  assert.match(unknown.stderr, `context "cluster-c" is not in kubeconfig ${file} (contexts: "cluster-a", "cluster-b")`);
  const none = kubeconfig('none', [{ name: 'cluster-a', api: a }]);
  const noCurrent = await render(['--kubeconfig', none]);
  assert.is(noCurrent.exitCode, 1);
  assert.match(noCurrent.stderr, `kubeconfig ${none} sets no current-context (contexts: "cluster-a")`);
  assert.match(noCurrent.stderr, 'Pass --context NAME');
});

test('$KUBECONFIG: every file merged, the first current-context wins, missing files skipped; ~/.kube/config last', async () => {
  const a = await cluster(5, ['a-node-0']);
  const b = await cluster(9, ['b-node-0']);
  // File 1 defines cluster A and sets current-context cluster-b; file 2 defines B (and sets cluster-a: ignored).
  const first = kubeconfig('merge-1', [{ name: 'cluster-a', api: a }], 'cluster-b');
  const second = kubeconfig('merge-2', [{ name: 'cluster-b', api: b }], 'cluster-a');
  const env = { KUBECONFIG: `${join(work, 'absent.yaml')}:${first}::${second}` };
  const merged = await render([], env);
  assert.is(merged.exitCode, 1, 'no --kubeconfig and no --context: render reads no cluster, so --serial is missing');
  const viaContext = await render(['--context', 'cluster-b'], env);
  assert.is(serialNote(viaContext.stderr), '9', viaContext.stderr);
  // kubectl agrees: current-context is file 1's (cluster-b), whose cluster file 2 defines.
  assert.is(kubectlServer(env), b.url);
  const status = await runAnc(['hotfix', 'rollout', 'status', '-o', 'json'], { env: { HOME: home, ...env } });
  assert.is(status.exitCode, 0, status.stderr);
  assert.equal(
    JSON.parse(status.stdout).nodes.map((n: { name: string }) => n.name),
    ['b-node-0'],
  );
  // A name defined twice: the first file's entry wins (file 2's cluster-a would be B's server).
  const shadow = kubeconfig('merge-3', [{ name: 'cluster-a', api: b }], 'cluster-a');
  const shadowed = await render(['--context', 'cluster-a'], { KUBECONFIG: `${first}:${shadow}` });
  assert.is(serialNote(shadowed.stderr), '5', shadowed.stderr);
  assert.is(kubectlServer({ KUBECONFIG: `${first}:${shadow}` }, 'cluster-a'), a.url, 'kubectl: the first file wins too');
  // ~/.kube/config when neither --kubeconfig nor $KUBECONFIG is given.
  const otherHome = join(work, 'home-b');
  mkdirSync(join(otherHome, '.kube'), { recursive: true });
  writeFileSync(join(otherHome, '.kube/config'), `${kubeconfig('home-b-files', [{ name: 'cluster-b', api: b }], 'cluster-b')}`);
  const fromHome = await runAnc(['hotfix', 'rollout', 'status', '-o', 'json'], { env: { HOME: otherHome } });
  assert.is(fromHome.exitCode, 1, 'the file holds a path, not a kubeconfig');
  writeFileSync(
    join(otherHome, '.kube/config'),
    `apiVersion: v1\nclusters:\n- cluster:\n    server: ${b.url}\n    certificate-authority-data: ${Buffer.from(b.pki.ca.cert).toString('base64')}\n  name: b\ncontexts:\n- context:\n    cluster: b\n    user: u\n  name: b\ncurrent-context: b\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n`,
  );
  const fromHome2 = await runAnc(['hotfix', 'rollout', 'status', '-o', 'json'], { env: { HOME: otherHome } });
  assert.is(fromHome2.exitCode, 0, fromHome2.stderr);
  assert.equal(
    JSON.parse(fromHome2.stdout).nodes.map((n: { name: string }) => n.name),
    ['b-node-0'],
  );
});

test('a missing kubeconfig says so (--kubeconfig, every $KUBECONFIG file, ~/.kube/config), never "check the apiserver"', async () => {
  const gone = join(work, 'gone.yaml');
  const explicit = await runAnc(['hotfix', 'rollout', 'status', '--kubeconfig', gone], { env: { HOME: home } });
  assert.is(explicit.exitCode, 1);
  assert.match(explicit.stderr, `kubeconfig ${gone} (--kubeconfig) does not exist`);
  assert.not.match(explicit.stderr, /apiserver/);
  const env = await runAnc(['hotfix', 'rollout', 'watch', '--halt-with', gone], { env: { HOME: home, KUBECONFIG: `${gone}:${gone}2` } });
  assert.is(env.exitCode, 1);
  const listed = await runAnc(['hotfix', 'rollout', 'status'], { env: { HOME: home, KUBECONFIG: `${gone}:${gone}2` } });
  assert.match(listed.stderr, `none of the files in $KUBECONFIG exists (${gone}, ${gone}2)`);
  const noHome = await runAnc(['hotfix', 'pointer', 'verify'], { env: { HOME: home } });
  assert.is(noHome.exitCode, 1);
  assert.match(noHome.stderr, `no kubeconfig: ${home}/.kube/config does not exist and neither --kubeconfig nor $KUBECONFIG is set`);
  assert.match(noHome.stderr, /Pass --kubeconfig FILE, set KUBECONFIG/);
});

test.run();

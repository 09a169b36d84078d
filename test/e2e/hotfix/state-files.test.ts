// The agent's own state files never leak what they hold (issue 25): a quarantine record that is a symlink
// to another file (here one holding a token) is reported by file name and byte offset in `hotfix explain`
// and in download-hotfix's event and log, never by quoting its first characters as JSON.parse does.
import { symlinkSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const QUARANTINE = '/opt/azure/containers/aks-node-controller-hotfix-quarantine.json';
const POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
const SECRET = 'SECRETTOKEN.abcdef0123456789';
const boxes: Sandbox[] = [];
test.after(() => boxes.forEach((b) => b.cleanup()));

/** A node whose quarantine record is a symlink to a file holding a secret. */
function node(): Sandbox {
  const b = makeSandbox('anc-state-files-');
  boxes.push(b);
  const secret = b.write('/etc/kubernetes/secret-token', `${SECRET}\n`, 0o600);
  b.write('/opt/azure/containers/.keep', '');
  symlinkSync(secret, b.path(QUARANTINE));
  return b;
}

const NAMED =
  /reading hotfix quarantine record \S+aks-node-controller-hotfix-quarantine\.json: not valid JSON \(syntax error at byte offset 0 of 29\)/;

test('hotfix explain: an unparsable quarantine record is named with a byte offset, its content never quoted', async () => {
  const b = node();
  b.write(POINTER, '{"hotfixes":{"202604.01":"202604.01.1"}}');
  for (const format of ['text', 'json']) {
    const r = await runAnc(['hotfix', 'explain', '-o', format, '--current-version', '202604.01.0'], { root: b.root });
    assert.is(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, NAMED, r.stdout);
    assert.not.match(r.stdout + r.stderr, 'SECRET', r.stdout);
  }
});

test('download-hotfix: the same in its event and its log', async () => {
  const b = node();
  const version = (await runAnc(['version'], { root: b.root })).stdout.trim();
  const base = version.split('.').slice(0, 2).join('.');
  b.write(POINTER, JSON.stringify({ hotfixes: { [base]: `${base}.99` } }));
  const r = await runAnc(['download-hotfix'], { root: b.root });
  const message = b.events().find((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')!.Message!;
  assert.match(message, NAMED, message);
  const log = b.read('/var/log/azure/aks-node-controller.log');
  assert.match(log, NAMED);
  assert.not.match(message + log + r.stdout + r.stderr, 'SECRET');
});

test.run();

// provision-wait (spec 5, D10) on the compiled binary: fast path, create and rename-into-place events,
// every evaluation error, --timeout; plus the redaction of a script that prints a secret (D14).
import { renameSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';
import {
  PROVISION_COMPLETE,
  PROVISION_JSON,
  SECRETS,
  assertNoSecrets,
  eventMessages,
  everything,
  makeNode,
  provisionJson,
  sleep,
  startWait,
} from './support.ts';

async function waitWith(json: string | undefined) {
  const node = makeSandbox('anc-wait-');
  try {
    if (json !== undefined) node.write(PROVISION_JSON, json);
    node.write(PROVISION_COMPLETE, '');
    return { ...(await startWait(node)), events: eventMessages(node) };
  } finally {
    node.cleanup();
  }
}

test('fast path: sentinel already there, ExitCode "0" -> exit 0, file printed exactly plus newline', async () => {
  const json = '{"ExitCode":"0","Output":"<ok> & done","Error":""}';
  const r = await waitWith(json);
  assert.is(r.exitCode, 0);
  assert.is(r.stdout, json + '\n');
  assert.equal(r.events, [
    'AKS.AKSNodeController.ProvisionWait|Informational|Starting',
    'AKS.AKSNodeController.ProvisionWait|Informational|Completed',
  ]);
});

test('evaluation errors -> exit 1 with the spec texts', async () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'failed to read provision.json: open '],
    ['{"ExitCode":"7","Error":"exit status 7","Output":"a\\tb"}', 'provision failed: exitCode=7 error=exit status 7 output=\\"a\\\\tb\\"'],
    ['{"exitcode":"+0"}', ''],
    ['{"ExitCode":"x1"}', 'invalid ExitCode in provision.json: x1'],
    ['{"Error":"no code"}', 'missing ExitCode in provision.json'],
    ['{"ExitCode":0}', 'parse provision.json: json: cannot unmarshal number into Go struct field ProvisionResult.ExitCode of type string'],
    ['not json', 'parse provision.json: invalid character'],
  ];
  for (const [json, text] of cases) {
    const r = await waitWith(json);
    if (text === '') {
      assert.is(r.exitCode, 0, `${json}: ${r.stderr}`);
      continue;
    }
    assert.is(r.exitCode, 1, String(json));
    assert.is(r.stdout, (json ?? '') + '\n');
    assert.ok(r.stderr.includes(text), `${json}: ${r.stderr}`);
    assert.ok(r.events[1]!.startsWith('AKS.AKSNodeController.ProvisionWait|Error|aks-node-controller exited with error '), r.events[1]);
  }
  const missing = await waitWith(undefined);
  assert.ok(missing.stderr.includes('no such file or directory. One reason could be that AKSNodeConfig is not properly set'));
});

test('event path: sentinel created later, and renamed into place', async () => {
  for (const how of ['create', 'rename'] as const) {
    const node = makeSandbox('anc-wait-');
    try {
      const waiter = startWait(node);
      await sleep(200);
      node.write('/var/log/azure/aks/provision.json', '{"ExitCode":"0"}');
      if (how === 'create') node.write(PROVISION_COMPLETE, '');
      else {
        writeFileSync(node.path('/opt/azure/containers/.tmp-sentinel'), '');
        renameSync(node.path('/opt/azure/containers/.tmp-sentinel'), node.path(PROVISION_COMPLETE));
      }
      const r = await waiter;
      assert.is(r.exitCode, 0, `${how}: ${r.stderr}`);
      assert.is(r.stdout, '{"ExitCode":"0"}\n');
      assert.ok(r.durationMs < 5000);
    } finally {
      node.cleanup();
    }
  }
});

test('--timeout: gives up with a clear message and exit 1; bad values are usage errors', async () => {
  const node = makeSandbox('anc-wait-');
  try {
    const r = await runAnc(['provision-wait', '--timeout', '0.5'], { root: node.root });
    assert.is(r.exitCode, 1);
    assert.is(r.stdout, '\n');
    assert.ok(
      r.stderr.includes(
        `context deadline exceeded waiting for provision complete: ${node.path(PROVISION_COMPLETE)} did not appear within 0.5s (--timeout)`,
      ),
      r.stderr,
    );
    assert.ok(r.durationMs >= 450 && r.durationMs < 5000, `${r.durationMs} ms`);
    for (const bad of ['0', '-3', 'soon']) {
      const u = await runAnc(['provision-wait', `--timeout=${bad}`], { root: node.root });
      assert.is(u.exitCode, 1);
      assert.ok(u.stderr.includes(`invalid --timeout value "${bad}"`), u.stderr);
    }
  } finally {
    node.cleanup();
  }
});

test('a script printing a secret: provision.json Output and the log are redacted (D14)', async () => {
  const node = makeNode('#!/bin/bash\necho "token=$TLS_BOOTSTRAP_TOKEN"\necho "pw=$CUSTOM_SEARCH_REALM_PASSWORD" >&2\nexit 4\n');
  try {
    const r = await runAnc(['provision', `--provision-config=${node.configPath}`], { root: node.root });
    assert.is(r.exitCode, 4);
    // The live pass-through is the script's own output; everything the agent writes is scrubbed.
    assert.ok(r.stdout.includes(SECRETS.token), 'the child really received the secret');
    const parsed = JSON.parse(provisionJson(node)!);
    assert.is(parsed.Output, 'token=<redacted>\n\npw=<redacted>\n');
    const agentStderr = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{') || l.startsWith('aks-node-controller') || l.startsWith('hint'))
      .join('\n');
    assertNoSecrets(everything(node, [{ ...r, stdout: '', stderr: agentStderr }]));
  } finally {
    node.cleanup();
  }
});

test.run();

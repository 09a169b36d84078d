// download-hotfix applies /opt/azure/containers/nodecustomdata.yml when the pointer's scripts_version is a
// same-base, strictly higher patch of the agent (spec 11.2, D19): newer, equal and absent; fail-open on an
// apply error; and the bytes yaml.v3 refuses (N16: invalid UTF-8, a raw NUL, two byte order marks) write
// nothing, while UTF-16 with a byte order mark is read. On the compiled binary, in a sandbox root.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const POINTER = '/opt/azure/containers/aks-node-controller-hotfix.json';
const CUSTOM_DATA = '/opt/azure/containers/nodecustomdata.yml';
const LOG = '/var/log/azure/aks-node-controller.log';

// The compiled binary's own version (YYYYMM.DD.PATCH): scripts_version is judged against it.
const VERSION = execFileSync(BIN, ['version'], { encoding: 'utf8' }).trim();
const [major, minor, patch] = VERSION.split('.');
const NEWER = `${major}.${minor}.${Number(patch) + 1}`;

function customData(): string {
  const gz = gzipSync(Buffer.from('#!/bin/bash\necho from-gzip\n'))
    .toString('base64')
    .replace(/(.{60})/g, '$1\n    ');
  return `#cloud-config

bootcmd:
- echo ignored
write_files:
- path: /opt/azure/containers/from-gzip.sh
  permissions: "0744"
  encoding: gzip
  owner: root
  content: !!binary |
    ${gz}

- path: /etc/kubernetes/literal.conf
  content: |
    line one
      indented: yes # not a comment
    last
- path: /etc/b64.txt
  encoding: base64
  permissions: '600'
  content: aGVsbG8gYmFzZTY0
- path: /../../escape/attempt.txt
  content: "quoted\\tvalue"
`;
}

function node(scriptsVersion: string | undefined, data: string | Uint8Array = customData()): Sandbox {
  const sb = makeSandbox('anc-scriptsver-');
  sb.write(POINTER, JSON.stringify(scriptsVersion === undefined ? {} : { scripts_version: scriptsVersion }), 0o600);
  sb.write(CUSTOM_DATA, data, 0o644);
  return sb;
}

const download = (sb: Sandbox) => runAnc(['download-hotfix'], { root: sb.root, timeoutMs: 60_000 });
const messages = (sb: Sandbox, task: string) =>
  sb
    .events()
    .filter((e) => e.TaskName === `AKS.AKSNodeController.${task}`)
    .map((e) => `${e.EventLevel}|${e.Message!.split(' | startTime=')[0]}`);
const logLine = (sb: Sandbox) =>
  sb
    .read(LOG)
    .split('\n')
    .filter((l) => l.includes('"msg":"node custom data by scripts_version"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test(`scripts_version newer (${NEWER}): nodecustomdata.yml is applied before the binary hotfix, one event`, async () => {
  const sb = node(` ${NEWER} `);
  try {
    const r = await download(sb);
    assert.is(r.exitCode, 0, r.stderr);
    assert.is(statSync(sb.path('/opt/azure/containers/from-gzip.sh')).mode & 0o777, 0o744);
    assert.is(sb.read('/etc/kubernetes/literal.conf'), 'line one\n  indented: yes # not a comment\nlast\n');
    assert.is(sb.read('/etc/b64.txt'), 'hello base64');
    assert.is(statSync(sb.path('/etc/b64.txt')).mode & 0o777, 0o600);
    assert.is(sb.read('/escape/attempt.txt'), 'quoted\tvalue', '.. cannot leave the sandbox root');
    assert.equal(messages(sb, 'NodeCustomData'), [`Informational|outcome=applied scriptsVersion=${NEWER} current=${VERSION} files=4`]);
    assert.equal(logLine(sb)[0]!.outcome, 'applied');
    // The binary hotfix step ran after it (the pointer asks for no version).
    assert.match(messages(sb, 'DownloadHotfix')[0]!, /^Informational\|outcome=noHotfix /);
    const explain = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: sb.root })).stdout);
    assert.equal(explain.scriptsVersion, { value: NEWER, apply: true, reason: 'newer' });
    assert.match(
      explain.summary,
      `download-hotfix applies nodecustomdata.yml first: scripts_version ${NEWER} is a higher patch of ${VERSION}.`,
    );
    const status = await runAnc(['status', '-o', 'json'], { root: sb.root });
    assert.equal(JSON.parse(status.stdout).hotfix.nodeCustomData, { outcome: 'applied', scriptsVersion: NEWER, reason: 'newer', files: 4 });
  } finally {
    sb.cleanup();
  }
});

for (const [name, scriptsVersion, reason] of [
  ['equal', VERSION, 'not-newer'],
  ['absent', undefined, 'absent'],
  ['unparsable', 'dev', 'compare-failed'],
  ['another base', `${major}.${String(Number(minor) + 1).padStart(2, '0')}.9`, 'not-newer'],
] as const) {
  test(`scripts_version ${name}: nothing applied, no event, the reason logged`, async () => {
    const sb = node(scriptsVersion);
    try {
      const r = await download(sb);
      assert.is(r.exitCode, 0, r.stderr);
      assert.not.ok(existsSync(sb.path('/etc/b64.txt')));
      assert.equal(messages(sb, 'NodeCustomData'), []);
      assert.equal([logLine(sb)[0]!.outcome, logLine(sb)[0]!.reason], ['skipped', reason]);
      const explain = JSON.parse((await runAnc(['hotfix', 'explain', '-o', 'json'], { root: sb.root })).stdout);
      if (reason === 'absent') assert.is(explain.scriptsVersion, undefined);
      else assert.equal([explain.scriptsVersion.apply, explain.scriptsVersion.reason], [false, reason]);
      if (reason !== 'absent') assert.match(explain.summary, / nodecustomdata\.yml is not applied: /);
    } finally {
      sb.cleanup();
    }
  });
}

test('an apply error is fail-open: logged, an Error event, exit 0, the binary hotfix step goes on', async () => {
  const sb = node(NEWER, 'write_files:\n- path: /etc/x\n  owner: root:root\n  content: x\n');
  try {
    const r = await download(sb);
    assert.is(r.exitCode, 0, r.stderr);
    assert.equal(messages(sb, 'NodeCustomData'), [
      `Error|outcome=failed scriptsVersion=${NEWER} current=${VERSION} error=apply nodecustomdata write file /etc/x: unsupported owner "root:root"`,
    ]);
    assert.match(r.stderr, /"msg":"node custom data by scripts_version","outcome":"failed"/);
    assert.is(messages(sb, 'DownloadHotfix').length, 1);
    const status = await runAnc(['status'], { root: sb.root });
    assert.match(status.stdout, /nodecustomdata\s+failed \(scripts_version \S+\): apply nodecustomdata write file \/etc\/x/);
  } finally {
    sb.cleanup();
  }
});

const refusals: Array<[string, Uint8Array, string]> = [
  ['invalid UTF-8', Buffer.from('write_files:\n- path: /etc/a\n  content: "\xff"\n', 'latin1'), 'yaml: invalid leading UTF-8 octet'],
  ['a raw NUL', Buffer.from('write_files:\n- path: /etc/a\n  content: "x\x00"\n', 'latin1'), 'yaml: control characters are not allowed'],
  [
    'two byte order marks',
    Buffer.from('\ufeff\ufeffwrite_files:\n- path: /etc/a\n  content: x\n'),
    'yaml: line 1: a second byte order mark after the first',
  ],
];
for (const [name, bytes, problem] of refusals) {
  test(`N16: ${name} in node custom data is refused; nothing is written`, async () => {
    const sb = node(
      NEWER,
      Buffer.concat([Buffer.from('write_files:\n- path: /etc/first\n  content: f\n'), bytes.subarray(bytes.indexOf(0x0a) + 1)]),
    );
    try {
      if (name === 'two byte order marks') sb.write(CUSTOM_DATA, bytes);
      const r = await download(sb);
      assert.is(r.exitCode, 0, r.stderr);
      assert.not.ok(existsSync(sb.path('/etc/first')), 'nothing written');
      assert.not.ok(existsSync(sb.path('/etc/a')), 'nothing written');
      const [event] = messages(sb, 'NodeCustomData');
      assert.is(
        event,
        `Error|outcome=failed scriptsVersion=${NEWER} current=${VERSION} error=unmarshal nodecustomdata ${sb.path(CUSTOM_DATA)}: ${problem}`,
      );
    } finally {
      sb.cleanup();
    }
  });
}

test('N16: UTF-16 with a byte order mark is read (LE and BE)', async () => {
  const doc = 'write_files:\n- path: /etc/utf16.txt\n  content: "h\u00e9 \u{1f600}"\n';
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc, 'utf16le')]);
  const be = Buffer.from(le);
  be.swap16();
  for (const bytes of [le, Buffer.concat([Buffer.from([0xfe, 0xff]), be.subarray(2)])]) {
    const sb = node(NEWER, bytes);
    try {
      const r = await download(sb);
      assert.is(r.exitCode, 0, r.stderr);
      assert.is(sb.read('/etc/utf16.txt'), 'h\u00e9 \u{1f600}');
    } finally {
      sb.cleanup();
    }
  }
});

test.run();

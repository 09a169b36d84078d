import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatEventTime, formatLogTime } from '../../../src/platform/clock.ts';
import { AgentError, ERROR_CODES, toExitCode } from '../../../src/platform/errors.ts';
import { goJson } from '../../../src/platform/json.ts';
import { renderLogLine } from '../../../src/platform/log.ts';
import { parseOsReleaseId } from '../../../src/platform/os-release.ts';
import { NODE_PATHS, resolveNodePaths } from '../../../src/platform/paths.ts';
import { redactText, Secret } from '../../../src/platform/secret.ts';

test('os-release ID: first ID= line, quotes trimmed, lowercased; single quotes kept', () => {
  assert.is(parseOsReleaseId('NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n'), 'ubuntu');
  assert.is(parseOsReleaseId('  ID="AzureLinux"\n'), 'azurelinux');
  assert.is(parseOsReleaseId("ID='mariner'"), "'mariner'");
  assert.is(parseOsReleaseId('NAME=x\nVERSION_ID=1'), undefined);
  // Go strings.TrimSpace / strings.ToLower: U+0085 trimmed, U+FEFF kept, U+0130 lowers to a plain i.
  assert.is(parseOsReleaseId('\u0085ID=ubuntu\u00a0\n'), 'ubuntu');
  assert.is(parseOsReleaseId('\uFEFFID=ubuntu\n'), undefined);
  assert.is(parseOsReleaseId('ID=MAR\u0130NER'), 'mariner');
});

test('sandbox root prefixes every on-node path; unset gives the reference paths', () => {
  const real = resolveNodePaths(undefined);
  for (const [name, path] of Object.entries(NODE_PATHS)) assert.is(real[name as keyof typeof NODE_PATHS], path);
  const boxed = resolveNodePaths('/tmp/root/');
  assert.is(boxed.provisionJson, '/tmp/root/var/log/azure/aks/provision.json');
  assert.is(boxed.under('/etc/x'), '/tmp/root/etc/x');
  assert.is(boxed.strip(boxed.hotfixPointer), NODE_PATHS.hotfixPointer);
  assert.is(resolveNodePaths('/').logFile, NODE_PATHS.logFile);
});

test('goJson escapes like Go json.Marshal', () => {
  assert.is(goJson({ a: '<x>&\u2028' }), '{"a":"\\u003cx\\u003e\\u0026\\u2028"}');
  // A lone surrogate is invalid UTF-8 to Go: written as \ufffd; a pair stays; escaped text stays text.
  assert.is(
    goJson({ a: 'x\ud800y\udfff', b: '\u{1F600}', c: '\\ud800', d: '\\\ud800' }),
    '{"a":"x\\ufffdy\\ufffd","b":"\u{1F600}","c":"\\\\ud800","d":"\\\\\\ufffd"}',
  );
});

test('log lines: time, level, msg, then attributes; errors as messages; secrets redacted', () => {
  const line = renderLogLine(new Date(Date.UTC(2026, 5, 30, 20, 21, 58, 120)), 'WARN', 'm', {
    error: new AgentError('ANC_IO', 'boom'),
    token: new Secret('abcdef.0123456789abcdef'),
    nothing: undefined,
  });
  const parsed = JSON.parse(line);
  assert.equal(Object.keys(parsed), ['time', 'level', 'msg', 'error', 'token', 'nothing']);
  assert.is(parsed.error, 'boom');
  assert.is(parsed.token, '<redacted>');
  assert.is(parsed.nothing, null);
  assert.ok(line.endsWith('\n'));
  assert.not.ok(line.includes('0123456789abcdef'));
});

test('time formats: Go RFC 3339 (trimmed fraction) and the event layout', () => {
  const d = new Date(2026, 5, 30, 20, 21, 58, 120);
  assert.match(formatLogTime(d), /^2026-06-30T20:21:58\.12(Z|[+-]\d\d:\d\d)$/);
  assert.match(formatLogTime(new Date(2026, 5, 30, 20, 21, 58, 0)), /^2026-06-30T20:21:58(Z|[+-]\d\d:\d\d)$/);
  assert.is(formatEventTime(d), '2026-06-30 20:21:58.120');
});

test('every error code maps to an exit code and a non-empty hint', () => {
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    assert.ok(info.hint.length > 10, code);
    assert.is(toExitCode(new AgentError(code as keyof typeof ERROR_CODES, 'x')), info.exitCode);
  }
  assert.is(toExitCode(new AgentError('ANC_INTERNAL', 'x', { exitCode: 100 })), 100);
  assert.is(toExitCode(new TypeError('x')), 1);
});

test('redactText blanks escaped forms of a secret (N9): \\x00, \\u0000, and once more escaped', () => {
  const token = new Secret('abcdef.0123456789abcdef\u0000x');
  for (const quoted of [
    "Received 'abcdef.0123456789abcdef\\x00x'",
    '"abcdef.0123456789abcdef\\u0000x"',
    '"\\"abcdef.0123456789abcdef\\\\u0000x\\""',
  ]) {
    const out = redactText(quoted, [token]);
    assert.not.ok(out.includes('0123456789abcdef'), out);
    assert.ok(out.includes('<redacted>'), out);
  }
});

test('redactText removes secret values from free text', () => {
  assert.is(redactText('token abcdef.0123456789abcdef failed', [new Secret('abcdef.0123456789abcdef')]), 'token <redacted> failed');
  assert.is(`${new Secret('s3cr3t!')}`, '<redacted>');
  assert.is(JSON.stringify({ s: new Secret('s3cr3t!') }), '{"s":"<redacted>"}');
});

test.run();

// provision.json / provision.complete writing and provision-wait evaluation (spec 4.5, 5).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decodeProvisionJson,
  evaluateProvisionJson,
  goQuote,
  renderProvisionJson,
  writeCompleteFileOnError,
} from '../../../src/provision/status.ts';
import { fakeDeps } from '../../fakes/deps.ts';

test('renderProvisionJson: compact, key order, Go HTML-safe escaping', () => {
  assert.is(
    renderProvisionJson({ Output: 'a<b>&c\u2028', Error: 'e', ExitCode: '3' }),
    '{"ExitCode":"3","Error":"e","Output":"a\\u003cb\\u003e\\u0026c\\u2028"}',
  );
});

test('evaluateProvisionJson: every spec 5 branch', () => {
  assert.is(evaluateProvisionJson('{"ExitCode":"0"}'), undefined);
  assert.is(evaluateProvisionJson('{"exitcode":"-0","extra":1}'), undefined);
  assert.is(
    evaluateProvisionJson('{"ExitCode":"3","Error":"exit status 3","Output":"x\\ny\\"z"}'),
    'provision failed: exitCode=3 error=exit status 3 output="x\\ny\\"z"',
  );
  assert.is(evaluateProvisionJson('{"ExitCode":"007"}'), 'provision failed: exitCode=7 error= output=""');
  assert.is(evaluateProvisionJson('{"ExitCode":""}'), 'missing ExitCode in provision.json');
  assert.is(evaluateProvisionJson('null'), 'missing ExitCode in provision.json');
  assert.is(evaluateProvisionJson('{"ExitCode":null}'), 'missing ExitCode in provision.json');
  assert.is(evaluateProvisionJson('{"ExitCode":"1.5"}'), 'invalid ExitCode in provision.json: 1.5');
  assert.is(evaluateProvisionJson('{"ExitCode":"99999999999999999999"}'), 'invalid ExitCode in provision.json: 99999999999999999999');
  assert.is(
    evaluateProvisionJson('{"ExitCode":7}'),
    'parse provision.json: json: cannot unmarshal number into Go struct field ProvisionResult.ExitCode of type string',
  );
  assert.is(evaluateProvisionJson('[1]'), 'parse provision.json: json: cannot unmarshal array into Go value of type main.ProvisionResult');
  assert.is(evaluateProvisionJson(''), 'parse provision.json: unexpected end of JSON input');
  assert.match(evaluateProvisionJson('{bad')!, /^parse provision\.json: invalid character/);
});

test('decodeProvisionJson: case-insensitive keys, the later key wins', () => {
  assert.equal(decodeProvisionJson('{"EXITCODE":"1","exitCode":"2","error":"e"}'), { result: { ExitCode: '2', Error: 'e', Output: '' } });
});

test('goQuote matches strconv.Quote for the usual characters', () => {
  assert.is(goQuote('a\tb\n"c"\\\x00\x7f é \u00a0 \u{1F600}'), '"a\\tb\\n\\"c\\"\\\\\\x00\\x7f é \\u00a0 \u{1F600}"');
});

test('writeCompleteFileOnError: writes both (0600, dir 0755) when absent, provision.json first', () => {
  const deps = fakeDeps();
  try {
    mkdirSync(dirname(deps.paths.provisionComplete), { recursive: true });
    writeCompleteFileOnError(deps, { ExitCode: '240', Error: 'boom', Output: '' });
    assert.is(readFileSync(deps.paths.provisionJson, 'utf8'), '{"ExitCode":"240","Error":"boom","Output":""}');
    assert.is(statSync(deps.paths.provisionJson).mode & 0o777, 0o600);
    assert.is(statSync(dirname(deps.paths.provisionJson)).mode & 0o777, 0o755);
    assert.is(statSync(deps.paths.provisionComplete).mode & 0o777, 0o600);
  } finally {
    deps.cleanup();
  }
});

test("writeCompleteFileOnError: keeps the script's provision.json and an existing sentinel", () => {
  const deps = fakeDeps();
  try {
    mkdirSync(dirname(deps.paths.provisionJson), { recursive: true });
    mkdirSync(dirname(deps.paths.provisionComplete), { recursive: true });
    writeFileSync(deps.paths.provisionJson, '{"ExitCode":"5"}');
    writeFileSync(deps.paths.provisionComplete, 'keep');
    writeCompleteFileOnError(deps, { ExitCode: '5', Error: 'exit status 5', Output: '' });
    assert.is(readFileSync(deps.paths.provisionJson, 'utf8'), '{"ExitCode":"5"}');
    assert.is(readFileSync(deps.paths.provisionComplete, 'utf8'), 'keep');
  } finally {
    deps.cleanup();
  }
});

test('writeCompleteFileOnError: the sentinel parent is not created; the failure is only logged', () => {
  const deps = fakeDeps();
  try {
    writeCompleteFileOnError(deps, { ExitCode: '240', Error: 'x', Output: '' });
    assert.ok(existsSync(deps.paths.provisionJson));
    assert.not.ok(existsSync(deps.paths.provisionComplete));
    assert.ok(deps.logs.some((l) => l.level === 'ERROR' && l.msg === 'failed to create provision.complete'));
  } finally {
    deps.cleanup();
  }
});

test('provision.json: ExitCode is Go Atoi (int64 range); strings decode lone surrogates to U+FFFD', () => {
  assert.is(evaluateProvisionJson('{"ExitCode":"9223372036854775807"}'), 'provision failed: exitCode=9223372036854775807 error= output=""');
  assert.is(evaluateProvisionJson('{"ExitCode":"9223372036854775808"}'), 'invalid ExitCode in provision.json: 9223372036854775808');
  assert.is(evaluateProvisionJson('{"ExitCode":"-9223372036854775809"}'), 'invalid ExitCode in provision.json: -9223372036854775809');
  assert.is(evaluateProvisionJson('{"ExitCode":"1","Error":"bad \\udc00"}'), 'provision failed: exitCode=1 error=bad \uFFFD output=""');
  assert.equal(decodeProvisionJson('{"Output":"\\ud83d\\ude00\\ud800"}'), {
    result: { ExitCode: '', Error: '', Output: '\u{1F600}\uFFFD' },
  });
  // U+00A0 is not JSON white space: a syntax error, named by its offset, never quoted.
  assert.equal(decodeProvisionJson('\u00a0'), { error: 'invalid character in JSON: not valid JSON (syntax error at byte offset 0 of 2)' });
});

test.run();

// `config validate` and `config schema` on the compiled binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

const sandbox = makeSandbox('anc-e2e-config-');
const run = (args: string[]) => runAnc(args, { root: sandbox.root });
const SAMPLE = join(process.cwd(), 'test/fixtures/sample-config.json');

test('valid: the shared sample config -> exit 0, "valid", nothing on stderr', async () => {
  const r = await run(['config', 'validate', SAMPLE]);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(r.stdout, `${SAMPLE}: valid (0 errors, 0 warnings)\n`);
  assert.is(r.stderr, '');
  const json = await run(['config', 'validate', '-o', 'json', SAMPLE]);
  assert.is(json.exitCode, 0);
  assert.equal(JSON.parse(json.stdout), { file: SAMPLE, valid: true, strict: false, errors: [], warnings: [] });
});

test('broken: several bad fields are all reported with path, found and expected; secrets never echoed', async () => {
  const sample = JSON.parse(readFileSync(SAMPLE, 'utf8'));
  const broken = {
    ...sample,
    isVhd: 'true',
    cseTimeout: 1.5,
    clusterConfig: { ...sample.clusterConfig, vmType: true },
    kubeletConfig: { ...(sample.kubeletConfig ?? {}), kubeletFlags: { '--max-pods': 110 } },
    bootstrappingConfig: { ...sample.bootstrappingConfig, tlsBootstrappingToken: 987654321987 },
  };
  const file = sandbox.write('/tmp/broken.json', JSON.stringify(broken, null, 2));
  const r = await run(['config', 'validate', file]);
  assert.is(r.exitCode, 1);
  assert.match(r.stdout, `${file}: INVALID (5 errors, 0 warnings)`);
  for (const path of [
    '$.isVhd',
    '$.cseTimeout',
    '$.clusterConfig.vmType',
    '$.kubeletConfig.kubeletFlags["--max-pods"]',
    '$.bootstrappingConfig.tlsBootstrappingToken',
  ]) {
    assert.match(r.stdout, `error: ${path}: `);
  }
  assert.match(r.stdout, 'expected true or false');
  assert.match(r.stdout, 'found "true"');
  assert.not.match(r.stdout, '987654321987');
  const json = JSON.parse((await run(['config', 'validate', '-o', 'json', file])).stdout);
  assert.is(json.valid, false);
  assert.is(json.errors.length, 5);
  for (const e of json.errors) assert.ok(e.path && e.expected && e.found && e.message, JSON.stringify(e));
});

test('unknown fields: warnings (exit 0) unless --strict (exit 1)', async () => {
  const sample = JSON.parse(readFileSync(SAMPLE, 'utf8'));
  const file = sandbox.write(
    '/tmp/unknown.json',
    JSON.stringify({ ...sample, hotfixes: [{ version: '1' }], clusterConfig: { ...sample.clusterConfig, future_field: 1 } }),
  );
  const lax = await run(['config', 'validate', file]);
  assert.is(lax.exitCode, 0, lax.stdout);
  assert.match(lax.stdout, 'valid (0 errors, 2 warnings)');
  assert.match(lax.stdout, 'warning: $.hotfixes: unknown field');
  assert.match(lax.stdout, 'warning: $.clusterConfig.future_field: unknown field');
  const strict = await run(['config', 'validate', '--strict', file]);
  assert.is(strict.exitCode, 1);
  assert.match(strict.stdout, 'INVALID (2 errors, 0 warnings, strict)');
  assert.match(strict.stdout, 'error: $.hotfixes: unknown field');
});

test('syntax error: exit 1 with a line/column', async () => {
  const file = sandbox.write('/tmp/syntax.json', '{\n  "version": "v1",\n  "vm_size": \n}');
  const r = await run(['config', 'validate', file]);
  assert.is(r.exitCode, 1);
  assert.match(r.stdout, /error: \$: invalid JSON: .*\(line 4, column 1\)/);
  // The one problem: no "required field is missing" warnings for fields the parser never reached.
  assert.match(r.stdout, /INVALID \(1 error, 0 warnings\)/);
  assert.not.match(r.stdout, 'required field');
  // An empty file: the syntax error and a version that is missing, said as such.
  const empty = await run(['config', 'validate', sandbox.write('/tmp/empty.json', '')]);
  assert.is(empty.exitCode, 1);
  assert.match(empty.stdout, 'error: $: invalid JSON: unexpected end of input (empty document)');
  assert.match(empty.stdout, 'error: $.version: version is missing (the document did not parse): expected "v1" (or "v0")');
  assert.not.match(empty.stdout, /unsupported version: \n/);
});

test('missing file: exit 1, ANC_CONFIG_UNREADABLE naming the file on stderr', async () => {
  const file = sandbox.path('/tmp/does-not-exist.json');
  const r = await run(['config', 'validate', file]);
  assert.is(r.exitCode, 1);
  assert.is(r.stdout, '');
  assert.match(r.stderr, `cannot read configuration file ${file}`);
  // The error code is in the JSON log line, which a read-only command prints on request.
  const logged = await runAnc(['config', 'validate', file], { root: sandbox.root, env: { ANC_LOG_STDERR: '1' } });
  assert.match(logged.stderr, '"code":"ANC_CONFIG_UNREADABLE"');
});

test('config schema prints the committed JSON Schema (draft 2020-12)', async () => {
  const r = await run(['config', 'schema']);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(r.stdout, readFileSync('test/golden/config.schema.json', 'utf8'));
  const schema = JSON.parse(r.stdout);
  assert.is(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.is(Object.keys(schema.$defs).length, 33);
});

test.after(() => sandbox.cleanup());
test.run();

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configValidateCommand } from '../../../src/commands/config-validate.ts';
import { checkRules, formatReport, RULES, validateConfigurationText } from '../../../src/config/validate.ts';
import { isAgentError } from '../../../src/platform/errors.ts';
import { fakeDeps } from '../../fakes/deps.ts';

const COMPLETE = {
  version: 'v1',
  authConfig: { subscriptionId: 's' },
  apiServerConfig: { apiServerName: 'api' },
  clusterConfig: { resourceGroup: 'rg', location: 'westus', clusterNetworkConfig: { vnetName: 'vn', routeTable: 'rt' } },
};

test('required-field rules report ALL missing fields at once, as warnings', () => {
  const issues = checkRules({ version: 'v1' });
  assert.equal(
    issues.map((i) => i.path),
    [
      '$.authConfig.subscriptionId',
      '$.clusterConfig.resourceGroup',
      '$.clusterConfig.location',
      '$.clusterConfig.clusterNetworkConfig.vnetName',
      '$.clusterConfig.clusterNetworkConfig.routeTable',
      '$.apiServerConfig.apiServerName',
    ],
  );
  assert.ok(issues.every((i) => i.severity === 'warning' && i.kind === 'missing-field'));
  assert.match(issues[0]?.message ?? '', 'required field auth_config.subscription_id is missing');
  assert.equal(checkRules(COMPLETE), []);
  assert.equal(
    checkRules({ ...COMPLETE, apiServerConfig: { apiServerName: '' } }).map((i) => i.path),
    ['$.apiServerConfig.apiServerName'],
  );
  assert.is(RULES.length, 6);
});

test('validate: errors make it invalid, warnings do not; --strict promotes warnings', () => {
  const ok = validateConfigurationText(JSON.stringify({ ...COMPLETE, hotfixes: [] }));
  assert.is(ok.valid, true);
  assert.equal(
    ok.warnings.map((w) => w.path),
    ['$.hotfixes'],
  );
  const strict = validateConfigurationText(JSON.stringify({ ...COMPLETE, hotfixes: [] }), { strict: true });
  assert.is(strict.valid, false);
  assert.equal(
    strict.errors.map((e) => [e.path, e.severity]),
    [['$.hotfixes', 'error']],
  );
  const missingVersion = validateConfigurationText('{}');
  assert.is(missingVersion.valid, false);
  assert.equal(
    missingVersion.errors.map((e) => e.path),
    ['$.version'],
  );
  assert.is(missingVersion.warnings.length, 6);
});

test('human report: summary line, then one line per problem, errors first', () => {
  const report = validateConfigurationText(JSON.stringify({ ...COMPLETE, vmSize: 1, extra: true }));
  const text = formatReport('cfg.json', report);
  const lines = text.trimEnd().split('\n');
  assert.is(lines[0], 'cfg.json: INVALID (1 error, 1 warning)');
  assert.match(lines[1] ?? '', /^error: \$\.vmSize: .*expected a JSON string, found 1/);
  assert.match(lines[2] ?? '', /^warning: \$\.extra: unknown field/);
});

test('command: reads the file through deps.fs, -o json report, exit codes', async () => {
  const deps = fakeDeps();
  try {
    const good = join(deps.cwd, 'good.json');
    writeFileSync(good, JSON.stringify(COMPLETE));
    const ok = await configValidateCommand.run({ args: [good], options: {} }, deps);
    assert.is(ok.exitCode, 0);
    assert.match(ok.stdout ?? '', 'valid (0 errors, 0 warnings)');
    const bad = join(deps.cwd, 'bad.json');
    writeFileSync(bad, '{"version":"v1","isVhd":"true","cseTimeout":1.5,"clusterConfig":{"vmType":true}}');
    const r = await configValidateCommand.run({ args: [bad], options: { output: 'json' } }, deps);
    assert.is(r.exitCode, 1);
    const json = JSON.parse(r.stdout ?? '');
    assert.is(json.valid, false);
    assert.equal(
      json.errors.map((e: { path: string }) => e.path),
      ['$.isVhd', '$.cseTimeout', '$.clusterConfig.vmType'],
    );
    assert.is(json.warnings.length, 6);
  } finally {
    deps.cleanup();
  }
});

test('command: unreadable file -> ANC_CONFIG_UNREADABLE naming the file; no argument -> usage error', async () => {
  const deps = fakeDeps();
  try {
    const missing = join(deps.cwd, 'nope.json');
    const error = await configValidateCommand.run({ args: [missing], options: {} }, deps).catch((e: unknown) => e);
    assert.ok(isAgentError(error));
    assert.is(error.code, 'ANC_CONFIG_UNREADABLE');
    assert.match(error.message, missing);
    assert.is(error.exitCode, 1);
    const dir = await configValidateCommand.run({ args: [deps.cwd], options: {} }, deps).catch((e: unknown) => e);
    assert.ok(isAgentError(dir) && dir.code === 'ANC_CONFIG_UNREADABLE');
    const usage = await configValidateCommand.run({ args: [], options: {} }, deps).catch((e: unknown) => e);
    assert.ok(isAgentError(usage) && usage.code === 'ANC_USAGE');
  } finally {
    deps.cleanup();
  }
});

test.run();

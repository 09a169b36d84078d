import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configurationJsonSchema } from '../../../src/config/json-schema.ts';
import { loadConfiguration } from '../../../src/config/load.ts';
import { checkConfigurationShape } from '../../../src/config/schema.ts';
import { ENUMS, MESSAGES, walkCatalog } from '../../../src/config/types.ts';

const GOLDEN = 'test/golden/config.schema.json';

test('catalogue: 33 messages, 268 fields, 8 enums, 80 optional, 9 explicit json names', () => {
  const fields = Object.values(MESSAGES).flatMap((m) => m.fields);
  assert.is(Object.keys(MESSAGES).length, 33);
  assert.is(fields.length, 268);
  assert.is(Object.keys(ENUMS).length, 8);
  assert.is(fields.filter((f) => f.optional).length, 80);
  assert.equal(
    fields.filter((f) => f.jsonNameExplicit).map((f) => f.json),
    [
      'serverTLSBootstrap',
      'eventRecordQPS',
      'clusterDNS',
      'imageGCHighThresholdPercent',
      'imageGCLowThresholdPercent',
      'cgroupsPerQOS',
      'cpuCFSQuota',
      'cpuCFSQuotaPeriod',
      'clientCAFile',
    ],
  );
  assert.equal(
    fields
      .filter((f) => f.secret)
      .map((f) => f.proto)
      .sort(),
    ['kubelet_client_key', 'realm_password', 'service_principal_secret', 'tls_bootstrapping_token'],
  );
  const seen: string[] = [];
  walkCatalog((path) => void seen.push(path));
  assert.ok(seen.includes('$.localDnsProfile.vnetDnsOverrides.*.healthCheck'));
  assert.ok(seen.includes('$.kubeletConfig.kubeletConfigFileConfig.authentication.x509.clientCAFile'));
});

test('config schema output matches the committed snapshot (UPDATE_GOLDEN=1 rewrites it)', () => {
  const text = `${JSON.stringify(configurationJsonSchema(), null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, text);
  assert.fixture(text, readFileSync(GOLDEN, 'utf8'));
});

test('JSON Schema: draft 2020-12, every field under both spellings, enums by name or integer, strict objects', () => {
  const schema = configurationJsonSchema() as {
    $schema: string;
    $defs: Record<string, { properties: Record<string, any>; additionalProperties: boolean }>;
  };
  assert.is(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(Object.keys(schema.$defs).sort(), Object.keys(MESSAGES).sort());
  for (const [name, info] of Object.entries(MESSAGES)) {
    const def = schema.$defs[name];
    assert.ok(def, name);
    assert.is(def?.additionalProperties, false);
    for (const f of info.fields) {
      const prop = def?.properties[f.json];
      assert.ok(prop && typeof prop.description === 'string' && prop.description.length > 0, `${name}.${f.json}`);
      if (f.proto !== f.json) assert.equal(def?.properties[f.proto], { $ref: `#/$defs/${name}/properties/${f.json}` });
    }
  }
  const vmType = schema.$defs.ClusterConfig?.properties.vmType;
  assert.equal(vmType.anyOf[0], { enum: Object.keys(ENUMS.VmType) });
  assert.equal(vmType.anyOf[1], { type: 'integer', minimum: -2147483648, maximum: 2147483647 });
  assert.equal(schema.$defs.LocalDnsProfile?.properties.kubeDnsOverrides.additionalProperties, { $ref: '#/$defs/LocalDnsOverrides' });
  assert.equal(schema.$defs.KubeletConfigFileConfig?.properties.featureGates.additionalProperties, { type: 'boolean' });
});

test('valibot shape check: loader output passes, wrong shapes are reported with paths', () => {
  const loaded = loadConfiguration(readFileSync(join(process.cwd(), 'test/fixtures/sample-config.json'), 'utf8'));
  assert.equal(checkConfigurationShape(loaded.config), []);
  assert.equal(
    checkConfigurationShape({ networkConfig: { networkPlugin: 99 }, clusterConfig: { cloudProviderConfig: { backoffExponent: NaN } } }),
    [],
  );
  const problems = checkConfigurationShape({ vmSize: 3, clusterConfig: { vmType: 'X', extra: 1 }, cseTimeout: 1.5, customCaCerts: [1] });
  assert.equal(problems.map((p) => p.split(':')[0]).sort(), [
    '$.clusterConfig.extra',
    '$.clusterConfig.vmType',
    '$.cseTimeout',
    '$.customCaCerts[0]',
    '$.vmSize',
  ]);
});

test('generated types and catalogue are up to date with config-fields.json', () => {
  const r = spawnSync(process.execPath, ['scripts/gen-config.mjs', '--check'], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
});

test('every field schema carries a non-empty description (valibot tree walk)', async () => {
  const { messageSchema } = await import('../../../src/config/schema.ts');
  type Node = { type: string; entries?: Record<string, Node>; wrapped?: Node; pipe?: Array<{ type: string; description?: string }> };
  for (const name of Object.keys(MESSAGES) as Array<keyof typeof MESSAGES>) {
    const schema = messageSchema(name) as unknown as Node;
    for (const [key, entry] of Object.entries(schema.entries ?? {})) {
      const inner = entry.type === 'optional' ? entry.wrapped : entry;
      const description = inner?.pipe?.find((a) => a.type === 'description')?.description ?? '';
      assert.ok(description.length > 10, `${name}.${key}`);
    }
  }
});

test.run();

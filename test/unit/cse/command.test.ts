// The command (config-contract 4), D8 merge, D9 dry-run view and the AKS_NODE_ROOT sandbox rule.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveNodePaths } from '../../../src/platform/paths.ts';
import { isSecret, reveal } from '../../../src/platform/secret.ts';
import { buildProvisionCommand, dryRunView, mergeEnv, secretValues } from '../../../src/cse/command.ts';
import { NO_FACTS, PATHS, SPEC, cfg } from './support.ts';

const FULL = cfg({
  version: 'v1',
  customCloudConfig: { customCloudEnvName: 'akscustom' },
  bootstrappingConfig: { tlsBootstrappingToken: 'tok.abcdef0123456789' },
  authConfig: { servicePrincipalSecret: 'c3Atc2VjcmV0' },
  kubeletConfig: { kubeletClientKey: 'a2V5LWtleQ==' },
  customSearchDomainConfig: { domainName: 'd', realmUser: 'u', realmPassword: 'realm-pass' },
  customCaCerts: ['ca0'],
});

test('argv is /bin/bash -c <the spec one-liner> without a root', () => {
  const cmd = buildProvisionCommand(cfg({ version: 'v1' }), NO_FACTS, PATHS);
  assert.is(cmd.program, SPEC.command.program);
  assert.equal([cmd.program, ...cmd.args], SPEC.command.args);
});

test('sandboxed: every on-node path carries the root; stripping it gives the unsandboxed command and env', () => {
  const root = '/tmp/anc-root-x';
  const boxed = buildProvisionCommand(FULL, NO_FACTS, resolveNodePaths(root));
  const plain = buildProvisionCommand(FULL, NO_FACTS, PATHS);
  assert.is(boxed.program, '/bin/bash');
  assert.ok(boxed.args[1]!.includes(`${root}/opt/azure/containers/provision_start.sh`));
  assert.ok(boxed.args[1]!.includes(`>> ${root}/var/log/azure/cluster-provision.log`));
  assert.ok(boxed.args[1]!.includes('/usr/bin/nohup /bin/bash -c "/bin/bash /tmp'));
  const strip = (s: string) => s.split(root).join('');
  assert.equal(boxed.args.map(strip), plain.args);
  const boxedView = dryRunView(boxed, { showSecrets: true });
  const plainView = dryRunView(plain, { showSecrets: true });
  assert.equal(Object.fromEntries(Object.entries(boxedView.env).map(([k, v]) => [k, strip(v)])), plainView.env);
  const changed = Object.keys(plainView.env)
    .filter((k) => plainView.env[k] !== boxedView.env[k])
    .sort();
  assert.equal(changed, [
    'AZURE_ENVIRONMENT_FILEPATH',
    'CSE_CONFIG_FILEPATH',
    'CSE_DISTRO_HELPERS_FILEPATH',
    'CSE_DISTRO_INSTALL_FILEPATH',
    'CSE_HELPERS_FILEPATH',
    'CSE_INSTALL_FILEPATH',
    'CUSTOM_SEARCH_DOMAIN_FILEPATH',
    'DHCPV6_CONFIG_FILEPATH',
    'DHCPV6_SERVICE_FILEPATH',
    'INIT_AKS_CLOUD_FILEPATH',
    'PROVISION_OUTPUT',
  ]);
});

test('dry-run view redacts the secrets unless asked, sorts keys, keeps argv (D9)', () => {
  const cmd = buildProvisionCommand(FULL, NO_FACTS, PATHS);
  const view = dryRunView(cmd, { showSecrets: false });
  for (const key of ['TLS_BOOTSTRAP_TOKEN', 'SERVICE_PRINCIPAL_FILE_CONTENT', 'KUBELET_CLIENT_CONTENT', 'CUSTOM_SEARCH_REALM_PASSWORD']) {
    assert.is(view.env[key], '<redacted>', key);
  }
  const text = JSON.stringify(view);
  for (const canary of ['tok.abcdef0123456789', 'c3Atc2VjcmV0', 'a2V5LWtleQ==', 'realm-pass']) assert.not.ok(text.includes(canary), canary);
  assert.equal(Object.keys(view.env), [...Object.keys(view.env)].sort());
  assert.equal(view.command, ['/bin/bash', ...cmd.args]);
  const shown = dryRunView(cmd, { showSecrets: true });
  assert.is(shown.env.TLS_BOOTSTRAP_TOKEN, 'tok.abcdef0123456789');
  assert.is(shown.env.CUSTOM_CA_CERT_0, 'ca0');
  assert.equal(secretValues(cmd).sort(), ['a2V5LWtleQ==', 'c3Atc2VjcmV0', 'realm-pass', 'tok.abcdef0123456789']);
});

test('merge: process env plus CSE variables, CSE wins on a clash, secrets revealed (D8)', () => {
  const cmd = buildProvisionCommand(FULL, NO_FACTS, PATHS);
  assert.ok(isSecret(cmd.cseEnv.TLS_BOOTSTRAP_TOKEN));
  const merged = mergeEnv({ PATH: '/usr/bin', PROVISION_OUTPUT: '/zzz', CLI_TOOL: 'aaa', ENABLE_PROVISIONING_HOTFIX: 'true' }, cmd.cseEnv);
  assert.is(merged.PATH, '/usr/bin');
  assert.is(merged.ENABLE_PROVISIONING_HOTFIX, 'true');
  assert.is(merged.PROVISION_OUTPUT, '/var/log/azure/cluster-provision-cse-output.log');
  assert.is(merged.CLI_TOOL, 'ctr');
  assert.is(merged.TLS_BOOTSTRAP_TOKEN, 'tok.abcdef0123456789');
  assert.is(Object.keys(merged).length, 4 - 2 + Object.keys(cmd.cseEnv).length);
  for (const value of Object.values(merged)) assert.type(value, 'string');
  assert.is(reveal(cmd.cseEnv.CUSTOM_SEARCH_REALM_PASSWORD!), 'realm-pass');
});

test.run();

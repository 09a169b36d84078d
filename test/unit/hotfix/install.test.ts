import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  aptInstallCommand,
  aptUpdateCommand,
  chooseAptSource,
  dpkgConfigureCommand,
  installPlan,
  packageManagerFor,
  rpmInstallCommand,
  sandboxEnv,
} from '../../../src/hotfix/install.ts';
import { resolveNodePaths } from '../../../src/platform/paths.ts';

const HOST = resolveNodePaths('');
const BOXED = resolveNodePaths('/r');
import { AgentError } from '../../../src/platform/errors.ts';

function thrown(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new assert.Assertion({ message: 'expected a throw', operator: 'throws', expects: 'error', actual: 'ok' });
}

// TestDetectPackageManager (spec 12.2, HEAD subtests)
test('ubuntu returns apt', () => {
  assert.is(packageManagerFor('NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\n', false), 'apt-get');
});
test('mariner or azurelinux returns dnf or tdnf (quoted ID)', () => {
  assert.is(packageManagerFor('ID="azurelinux"\n', true), 'dnf');
  assert.is(packageManagerFor('ID=azurelinux\n', false), 'tdnf');
  assert.is(packageManagerFor('  ID="Mariner"  \n', true), 'dnf');
  assert.is(packageManagerFor('ID=mariner\n', false), 'tdnf');
});
test('unsupported OS errors', () => {
  assert.is(thrown(() => packageManagerFor('ID=debian\n', true)).message, 'unsupported OS: debian');
  assert.is(thrown(() => packageManagerFor("ID='ubuntu'\n", true)).message, "unsupported OS: 'ubuntu'");
});
test('missing ID line errors', () => {
  assert.is(thrown(() => packageManagerFor('NAME=x\nVERSION_ID=1\n', true)).message, 'ID not found in /etc/os-release');
});

// TestResolveMicrosoftProdSourceListPath
const D = '/etc/apt/sources.list.d';
test('prefers legacy .list when both exist', () => {
  assert.is(
    chooseAptSource(D, () => true),
    `${D}/microsoft-prod.list`,
  );
});
test('falls back to deb822 .sources when .list is absent', () => {
  assert.is(
    chooseAptSource(D, (p) => p.endsWith('.sources')),
    `${D}/microsoft-prod.sources`,
  );
});
test('returns error when neither file exists', () => {
  assert.is(
    thrown(() => chooseAptSource(D, () => false)).message,
    `neither ${D}/microsoft-prod.list nor ${D}/microsoft-prod.sources exists`,
  );
});
test('other stat errors are reported as checking <path>', () => {
  const err = thrown(() =>
    chooseAptSource(D, () => {
      throw new Error('EACCES: permission denied');
    }),
  );
  assert.is(err.message, `checking ${D}/microsoft-prod.list: EACCES: permission denied`);
});

// Exact reference argv (spec 6.4)
test('apt commands are exactly the reference argv', () => {
  assert.equal(dpkgConfigureCommand(), {
    program: 'env',
    args: ['DEBIAN_FRONTEND=noninteractive', 'dpkg', '--configure', '-a', '--force-confdef', '--force-confold'],
    step: 'dpkg --configure -a failed',
  });
  // Sandboxed only: dpkg's log has no environment switch, so it gets --log under the root.
  assert.equal(dpkgConfigureCommand(BOXED).args.slice(-1), ['--log=/r/var/log/dpkg.log']);
  assert.equal(aptUpdateCommand(`${D}/microsoft-prod.list`).args, [
    'DEBIAN_FRONTEND=noninteractive',
    'apt-get',
    'update',
    '-o',
    'Dpkg::Options::=--force-confold',
    '-o',
    'Dir::Etc::sourcelist=/etc/apt/sources.list.d/microsoft-prod.list',
    '-o',
    'Dir::Etc::sourceparts=-',
  ]);
  assert.equal(aptInstallCommand('202604.01.1').args, [
    'DEBIAN_FRONTEND=noninteractive',
    'apt-get',
    'install',
    '-y',
    '--allow-downgrades',
    '-o',
    'Dpkg::Options::=--force-confold',
    'aks-node-controller=202604.01.1*',
  ]);
});
test('rpm command is exactly the reference argv unless sandboxed', () => {
  assert.equal(rpmInstallCommand('dnf', '202604.01.1'), {
    program: 'dnf',
    args: ['install', '-y', '--refresh', '--allowerasing', 'aks-node-controller-202604.01.1'],
    step: '',
  });
  assert.equal(rpmInstallCommand('tdnf', '202604.01.1-1').args, [
    'install',
    '-y',
    '--refresh',
    '--allowerasing',
    'aks-node-controller-202604.01.1-1',
  ]);
  assert.equal(rpmInstallCommand('dnf', '202604.01.1', BOXED).args.slice(5), ['--installroot=/r', '--setopt=reposdir=/r/etc/yum.repos.d']);
});
test('install plans', () => {
  assert.equal(
    installPlan('apt-get', '202604.01.1', `${D}/microsoft-prod.list`, HOST).map((c) => c.args[1]),
    ['dpkg', 'apt-get', 'apt-get'],
  );
  assert.equal(installPlan('dnf', '202604.01.1', '', HOST).length, 1);
});
test('D5: no argv is built for an unsafe version', () => {
  for (const bad of ['202604.01.1 --reinstall', '$(reboot)', '202604.01.1*', '-y', '202604.01.1;rm', '']) {
    assert.is(thrown(() => aptInstallCommand(bad)).step, 'invalidVersion', bad);
    assert.is(thrown(() => rpmInstallCommand('dnf', bad)).step, 'invalidVersion', bad);
    assert.is(thrown(() => installPlan('apt-get', bad, '/x', HOST)).step, 'invalidVersion', bad);
  }
});
test('sandbox env only for sandboxed apt', () => {
  assert.equal(sandboxEnv('apt-get', HOST, undefined), {});
  assert.equal(sandboxEnv('dnf', BOXED, undefined), {});
  assert.equal(sandboxEnv('apt-get', BOXED, undefined), {
    DPKG_ROOT: '/r',
    DPKG_ADMINDIR: '/r/var/lib/dpkg',
    APT_CONFIG: '/r/etc/apt/apt.conf',
  });
  assert.is(sandboxEnv('apt-get', BOXED, '/cfg').APT_CONFIG, '/cfg');
});

test.run();

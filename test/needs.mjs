// Which end-to-end test files need tools a Mac (or a machine without the Debian set-up) does not have.
// test/run.mjs skips a file whose tools are missing from PATH, with one line saying why, so `npm test`
// runs the unit tests and every portable end-to-end test anywhere. `linux` means the file runs Linux-only
// parts (the node launcher, systemd, /proc); `root` means it must run as root (mmdebstrap --mode=root).
// ANC_HIDE_DEBIAN_TOOLS=1 hides every tool named here from PATH, which proves the portable subset on a
// Debian machine (`npm run test:portable`).

/** [path under test/e2e (prefix), tools it needs, why]. */
export const E2E_NEEDS = [
  [
    'boot/',
    ['linux', 'apt-get', 'dpkg', 'dpkg-deb', 'apt-ftparchive', 'gpg'],
    'a whole first boot: the launcher, a signed apt repository, dpkg',
  ],
  [
    'hotfix/download',
    ['linux', 'apt-get', 'dpkg', 'dpkg-deb', 'dnf', 'rpm', 'rpmbuild', 'createrepo_c', 'gpg'],
    'apt and dnf installing hotfix packages',
  ],
  [
    'hotfix/lean',
    ['linux', 'time', 'apt-get', 'dpkg', 'apt-ftparchive', 'gpg', 'gpgv', 'dnf', 'rpmkeys', 'rpmsign', 'createrepo_c', 'xdelta3'],
    'signed apt and rpm repositories with the hotfix index, peak memory by /usr/bin/time',
  ],
  [
    'hotfix/index-binding',
    [
      'linux',
      'apt-get',
      'dpkg',
      'dpkg-deb',
      'apt-ftparchive',
      'gpg',
      'gpgv',
      'dnf',
      'rpm',
      'rpmkeys',
      'rpmbuild',
      'createrepo_c',
      'zstd',
      'setsid',
    ],
    'signed apt and rpm repositories, hotfix indexes bound to their repository, stand-in decoders',
  ],
  ['hotfix/script-hardening', ['linux', 'time', 'mkfifo'], 'a FIFO as the script hotfix record, peak memory by /usr/bin/time'],
  ['vhd/hotfix-undo', ['linux'], 'the node launcher (bash on Linux) with real agents'],
  [
    'bounds/repository-attacks',
    ['linux', 'apt-ftparchive', 'dpkg-deb', 'ar', 'gpg', 'gpgv', 'createrepo_c', 'rpmkeys', 'rpmsign', 'zstd', 'xz', 'xdelta3'],
    'attacks on the repository fast path: signed loopback repositories, real gpgv, zstd and xz',
  ],
  [
    'hotfix/delta-packaging',
    ['dpkg-deb', 'rpmbuild', 'rpm', 'rpm2cpio', 'cpio', 'xdelta3', 'rpmlint'],
    'building and linting the delta packages',
  ],
  ['hotfix/packaging', ['dpkg-deb', 'rpmbuild', 'rpm', 'rpm2cpio', 'cpio', 'lintian', 'xz'], 'building and linting .deb and .rpm packages'],
  ['image/release', ['dpkg-deb', 'apt-ftparchive', 'gpg'], 'npm run release: .deb packages and a gpg-signed hotfix index'],
  ['vhd/custom-data', ['linux', 'cloud-init'], 'cloud-init applies the custom data'],
  ['vhd/image', ['linux', 'systemd-analyze'], 'the image: systemd checks the unit, the launcher runs the agent'],
  ['vhd/launcher', ['linux', 'shellcheck'], 'the node launcher (bash on Linux)'],
  [
    'vhd/operators',
    ['linux', 'systemd-analyze', 'dpkg-deb', 'rpmbuild', 'rpm', 'rpm2cpio', 'cpio', 'rpmlint', 'zsh'],
    'install.sh, the unit, the packages, completion',
  ],
  ['status/boot-status', ['linux'], 'a failed boot through the node launcher'],
  [
    'vm/',
    [
      'linux',
      'root',
      'mmdebstrap',
      'mkfs.ext4',
      'qemu-system-x86_64',
      'qemu-img',
      'cloud-localds',
      'socat',
      'cc',
      'gpg',
      'apt-ftparchive',
      'dpkg-deb',
      'xdelta3',
    ],
    'a real boot: a Debian VM image (mmdebstrap, as root) booted under qemu',
  ],
  ['check-hotfix/kubectl', ['kubectl'], 'kubectl against the apiserver stand-in'],
  ['pointer/rehearsal', ['kubectl'], 'the publish checklist with kubectl against the apiserver stand-in'],
  ['fleet/report-unit', ['linux', 'systemd-analyze'], 'systemd checks the report unit in the image'],
  ['fleet/scale.test', ['kubectl'], 'kubectl get nodes -L / -l over a paged list of 1,200 Nodes in the apiserver stand-in'],
  ['fleet/report.test', ['kubectl'], 'kubectl get nodes -L and a node label refused by NodeRestriction, against the apiserver stand-in'],
  [
    'fleet/recall-condition',
    ['kubectl'],
    'kubectl reads the recall condition and patches nodes/<name>/status against the apiserver stand-in',
  ],
  ['pointer/kubeconfig-contexts', ['kubectl'], 'kubectl config view picks the same context as the operator commands'],
  [
    'fleet/rehearsal',
    ['linux', 'kubectl', 'apt-get', 'dpkg', 'dpkg-deb', 'apt-ftparchive', 'gpg', 'xdelta3'],
    'npm run fleet: sandboxed nodes through the launcher, a signed apt repository, kubectl apply',
  ],
];

/** Every tool named above (what ANC_HIDE_DEBIAN_TOOLS hides), plus qemu for the arm64 test. */
export const DEBIAN_TOOLS = [
  ...new Set(E2E_NEEDS.flatMap(([, tools]) => tools).filter((t) => t !== 'linux' && t !== 'root')),
  'qemu-aarch64-static',
];

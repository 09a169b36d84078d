#!/usr/bin/env bash
# Idempotent set-up shared by `npm test` and `npm run demo`: the Debian tools the real-parts tests use
# (qemu-user, dpkg/apt, rpm/dnf/createrepo_c, lintian, rpmlint, shellcheck, zsh, cloud-init, kubectl, hyperfine,
# gcc, xdelta3: the delta encoder; mmdebstrap, arch-test, qemu (x86 and arm), cloud-image-utils, socat: the real-boot VM) and the npm dependencies (npm ci when node_modules is missing or older than
# package-lock.json, then the other platforms' bun runtimes, scripts/install-runtimes.mjs). Only installs what
# is missing; never touches anything else on the host. On macOS (or any machine without apt-get) it installs
# nothing with apt: the tests that need the Debian tools skip themselves (test/needs.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
if [ "$(uname -s)" != Linux ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-tools: no apt-get on $(uname -s): Debian tools not installed; tests that need them are skipped"
  skip_apt=true
else
  skip_apt=false
fi
need=()
for pair in qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support rpmbuild:rpm createrepo_c:createrepo-c \
            dnf:dnf apt-ftparchive:apt-utils dpkg-scanpackages:dpkg-dev lintian:lintian rpmlint:rpmlint shellcheck:shellcheck zsh:zsh \
            cloud-init:cloud-init hyperfine:hyperfine fakeroot:fakeroot cpio:cpio systemd-analyze:systemd \
            kubectl:kubernetes-client gpg:gnupg gpgv:gpgv xz:xz-utils zstd:zstd openssl:openssl logger:bsdutils cc:gcc xdelta3:xdelta3; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
[ -x /usr/bin/time ] || need+=(time)
# The hotfix-safety tests compile small broken agent stand-ins (test/fakes/misbehaving-agent.c).
[ -f /usr/include/stdio.h ] || need+=(libc6-dev)
# The real-boot VM tests (test/e2e/vm/, vhd/vm/): a Debian root from the archive, qemu, a NoCloud seed, and
# socat, which carries each guestfwd connection to a loopback port. Installed without recommends (no GUI).
# arm64 guests: qemu-system-arm (qemu-system-aarch64); the foreign arm64 root needs arch-test (mmdebstrap's
# check) and qemu-user-static (above), registered in binfmt_misc only inside vhd/vm/build-base.sh's namespace.
vm_need=()
for pair in mmdebstrap:mmdebstrap qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils cloud-localds:cloud-image-utils \
            socat:socat mkfs.ext4:e2fsprogs qemu-system-aarch64:qemu-system-arm arch-test:arch-test; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || vm_need+=("${pair#*:}")
done
if [ "$skip_apt" = false ]; then
# The arm64 smoke test runs the linux-arm64 binary under qemu-user with Debian's libc6:arm64 unpacked into a
# sysroot (test/support/arm64-sysroot.mjs); apt-get download needs the foreign architecture declared.
updated=false
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
  apt-get update -qq
  updated=true
fi
if [ "${#need[@]}" -gt 0 ]; then
  echo "ensure-tools: installing ${need[*]}"
  [ "$updated" = true ] || apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ "${#vm_need[@]}" -gt 0 ]; then
  echo "ensure-tools: installing ${vm_need[*]}"
  [ "$updated" = true ] || [ "${#need[@]}" -gt 0 ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${vm_need[@]}" >/dev/null
fi
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "ensure-tools: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
node scripts/install-runtimes.mjs

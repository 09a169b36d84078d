#!/usr/bin/env bash
# Idempotent set-up shared by `npm test` and `npm run demo`: the Debian tools the real-parts tests use
# (qemu-user, dpkg/apt, rpm/dnf/createrepo_c, lintian, shellcheck, cloud-init, kubectl, hyperfine, xdelta3: the delta encoder) and
# the npm dependencies (npm ci when node_modules is missing or older than package-lock.json).
# Only installs what is missing; never touches anything else on the host.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
need=()
for pair in qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support rpmbuild:rpm createrepo_c:createrepo-c \
            dnf:dnf apt-ftparchive:apt-utils dpkg-scanpackages:dpkg-dev lintian:lintian shellcheck:shellcheck \
            cloud-init:cloud-init hyperfine:hyperfine fakeroot:fakeroot cpio:cpio systemd-analyze:systemd \
            kubectl:kubernetes-client gpg:gnupg gpgv:gpgv xz:xz-utils zstd:zstd openssl:openssl logger:bsdutils xdelta3:xdelta3; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
[ -x /usr/bin/time ] || need+=(time)
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
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "ensure-tools: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

#!/bin/bash
# The expensive, rarely changing part of the VM image: a Debian root from the archive (mmdebstrap
# --variant=minbase + systemd, cloud-init, apt, the kernel), built once per machine and kept in a cache
# that any clone on this machine shares:
#   ${ANC_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aks-node-controller/vm}/<hash>/
#     root.tar.zst  root.tar.zst.sha256  recipe
# <hash> is the recipe's: the architecture, the suite, the package list, the archive, the initramfs hook
# and this script's own sha256. The cache is safe to lose: an entry is built in a temporary directory and
# renamed into place only when complete; every use checks root.tar.zst against its sha256, and a missing
# or damaged entry is rebuilt. Clear it with `rm -rf ~/.cache/aks-node-controller/vm`.
#
# arm64 on an amd64 host: mmdebstrap's second stage runs the arm64 package scripts under qemu-user. The
# binfmt_misc registration that needs lives in a private user+mount+pid namespace (Linux >= 6.7 gives each
# user namespace its own binfmt_misc), so the host's binfmt_misc, which vhd/install.sh and the other tests
# look at, is never changed.
#
# Prints one JSON line: {"arch", "hash", "tarball", "cache": "hit"|"built", "seconds"}.
# Usage: vhd/vm/build-base.sh [--arch amd64|arm64]   (Linux, as root; default: this machine's architecture)
# Environment: ANC_VM_MIRROR (default http://deb.debian.org/debian), ANC_VM_SECURITY_MIRROR
#              (default http://deb.debian.org/debian-security), ANC_VM_CACHE (the cache directory).
set -euo pipefail

case "$(uname -m)" in x86_64) HOST_ARCH=amd64 ;; aarch64) HOST_ARCH=arm64 ;; *) HOST_ARCH="$(uname -m)" ;; esac
ARCH="$HOST_ARCH"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --arch) ARCH="${2:-}"; shift 2 ;;
        -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-base.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$ARCH" in amd64|arm64) ;; *) echo "build-base.sh: --arch must be amd64 or arm64, not ${ARCH}" >&2; exit 2 ;; esac
[[ "$(id -u)" == 0 ]] || { echo "build-base.sh: needs root (mmdebstrap --mode=root, files owned by root)" >&2; exit 1; }
for tool in mmdebstrap sha256sum zstd flock; do
    command -v "$tool" >/dev/null || { echo "build-base.sh: $tool is missing (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
done

MIRROR="${ANC_VM_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${ANC_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
SUITE=bookworm
PACKAGES="systemd,systemd-sysv,udev,dbus,cloud-init,apt,ca-certificates,linux-image-${ARCH},iproute2,e2fsprogs,kmod"
# dbus: without it logind does not run, and a host-side power-off (ACPI button) is ignored.
# A small initramfs (the virtio disk and ext4 only, not every driver): the kernel and its initramfs boot
# in seconds less under TCG. Written before the kernel package is installed, so it builds this one.
INITRAMFS_HOOK='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" && echo MODULES=list >"$1/etc/initramfs-tools/conf.d/anc-vm.conf" && printf "virtio_pci\nvirtio_blk\next4\n" >"$1/usr/share/initramfs-tools/modules.d/anc-vm"'
# This script's own hash, without its comment lines: a comment does not change what it builds.
SELF_SHA="$(grep -v '^[[:space:]]*#' "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
RECIPE="arch=${ARCH} suite=${SUITE} packages=${PACKAGES} mirror=${MIRROR} security=${SECURITY} hook=${INITRAMFS_HOOK} script=${SELF_SHA}"
HASH="$(printf '%s' "$RECIPE" | sha256sum | cut -c1-16)"
CACHE="${ANC_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aks-node-controller/vm}"
ENTRY="${CACHE}/${HASH}"
mkdir -p "$CACHE"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
started="$(now)"

# A complete entry: its three files, the recipe as expected, the tarball as its sha256 says.
valid() {
    [[ -f "${ENTRY}/recipe" && -f "${ENTRY}/root.tar.zst" && -f "${ENTRY}/root.tar.zst.sha256" ]] &&
        [[ "$(cat "${ENTRY}/recipe")" == "$RECIPE" ]] &&
        (cd "$ENTRY" && sha256sum --quiet --strict -c root.tar.zst.sha256 >/dev/null 2>&1)
}

# Runs "$@" in a private user+mount+pid namespace (identity uid/gid map: files keep their real owners)
# whose own binfmt_misc runs arm64 executables with qemu-aarch64. Nothing outside the namespace changes.
in_arm64_namespace() {
    local fifo pid rc=0
    fifo="$(mktemp -u "${CACHE}/.ns-XXXXXX")"
    mkfifo "$fifo"
    unshare --user --mount --pid --fork --propagation private bash -c '
        read -r _ <"$0"; rm -f "$0"
        mount -t proc proc /proc
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
        printf "%s" ":qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:/usr/libexec/qemu-binfmt/aarch64-binfmt-P:FP" \
            >/proc/sys/fs/binfmt_misc/register
        exec "$@"' "$fifo" "$@" &
    pid=$!
    for _ in $(seq 200); do
        [[ "$(readlink "/proc/${pid}/ns/user" 2>/dev/null)" != "$(readlink /proc/self/ns/user)" ]] && break
        sleep 0.05
    done
    echo "0 0 4294967295" >"/proc/${pid}/uid_map"
    echo "0 0 4294967295" >"/proc/${pid}/gid_map"
    echo go >"$fifo"
    wait "$pid" || rc=$?
    return "$rc"
}

exec 9>"${ENTRY}.lock"
flock 9 # one build per entry at a time; a second caller waits and then finds it built
CACHE_STATE=hit
if ! valid; then
    CACHE_STATE=built
    [[ -e "$ENTRY" ]] && { echo "build-base: cache entry ${ENTRY} incomplete or damaged: rebuilding" >&2; rm -rf "$ENTRY"; }
    TMP="$(mktemp -d "${CACHE}/.tmp-${HASH}-XXXXXX")"
    trap 'rm -rf "$TMP"' EXIT
    echo "build-base: building the Debian ${ARCH} base (${SUITE}, ${MIRROR}) into ${ENTRY}; minutes (arm64 on amd64: about 20)" >&2
    MMDEBSTRAP=(mmdebstrap --quiet --mode=root --variant=minbase --architectures="$ARCH" --include="$PACKAGES"
        --essential-hook="$INITRAMFS_HOOK" "$SUITE" "${TMP}/root"
        "deb ${MIRROR} ${SUITE} main" "deb ${MIRROR} ${SUITE}-updates main" "deb ${SECURITY} ${SUITE}-security main")
    if [[ "$ARCH" == "$HOST_ARCH" ]]; then
        "${MMDEBSTRAP[@]}" >&2
    else
        [[ "$ARCH" == arm64 ]] || { echo "build-base.sh: a foreign ${ARCH} base is not supported on ${HOST_ARCH}" >&2; exit 1; }
        [[ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ]] || { echo "build-base.sh: qemu-user-static is missing (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
        command -v arch-test >/dev/null || { echo "build-base.sh: arch-test is missing (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
        in_arm64_namespace "${MMDEBSTRAP[@]}" >&2
    fi
    tar --numeric-owner --xattrs --xattrs-include='*' -C "${TMP}/root" -cf - . | zstd -q -1 -T0 -o "${TMP}/root.tar.zst"
    rm -rf "${TMP}/root"
    (cd "$TMP" && sha256sum root.tar.zst >root.tar.zst.sha256)
    printf '%s' "$RECIPE" >"${TMP}/recipe"
    chmod 0755 "$TMP"
    mv -T "$TMP" "$ENTRY"
    trap - EXIT
    # Other entries of this architecture are older recipes: dead weight (hundreds of MB each).
    for old in "$CACHE"/*/recipe; do
        [[ -f "$old" && "$old" != "${ENTRY}/recipe" ]] && grep -q "^arch=${ARCH} " "$old" && rm -rf "$(dirname "$old")" "$(dirname "$old").lock"
    done
fi
printf '{"arch":"%s","hash":"%s","tarball":"%s","cache":"%s","seconds":%s}\n' "$ARCH" "$HASH" "${ENTRY}/root.tar.zst" "$CACHE_STATE" "$(since "$started")"

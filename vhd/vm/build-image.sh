#!/bin/bash
# Builds a bootable VM image the way a VHD is built, for the real-boot tests and `npm run demo:vm`:
#   1. the base: a Debian root from the archive (vhd/vm/build-base.sh: mmdebstrap --variant=minbase +
#      systemd, cloud-init, apt, the kernel), built once per machine in the shared cache
#      ${XDG_CACHE_HOME:-$HOME/.cache}/aks-node-controller/vm/<recipe hash>/ and checked at every use;
#   2. the image, built from this clone: the base with the VM's platform settings (fstab, DHCP,
#      cloud-init's datasource), our own image build (vhd/install.sh, then `aks-node-controller image
#      manifest`) and the extra files of <overlay-dir> (the image's provisioning scripts, the package
#      repository's source and key), turned into an ext4 disk with `mkfs.ext4 -d`; kept under
#      <out>/image-<arch>-<hash>/ and reused while every input (this script, vhd/, the binary, the overlay,
#      the base) is unchanged.
# Prints one JSON line: {"arch", "image", "disk", "kernel", "initrd", "reused", "base", "baseCache": "hit"|"built",
# "baseSeconds", "imageSeconds"}.
#
# Usage: vhd/vm/build-image.sh [--out DIR] [--arch amd64|arm64] [--manifest-with AGENT] <binary> [<overlay-dir>]
#   (Linux, as root; default --out .vm, --arch this machine's). The image manifest is written by <binary>
#   when it runs here, else by AGENT (a build of the same tree for this machine), else left out.
# Environment: ANC_VM_MIRROR, ANC_VM_SECURITY_MIRROR, ANC_VM_CACHE (see vhd/vm/build-base.sh).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "${HERE}/../.." && pwd)"
OUT="${REPO}/.vm"
case "$(uname -m)" in x86_64) HOST_ARCH=amd64 ;; aarch64) HOST_ARCH=arm64 ;; *) HOST_ARCH="$(uname -m)" ;; esac
ARCH="$HOST_ARCH"
MANIFEST_WITH=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --arch) ARCH="${2:-}"; shift 2 ;;
        --manifest-with) MANIFEST_WITH="$(realpath "$2")"; shift 2 ;;
        -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "build-image.sh: unknown flag $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 [--out DIR] [--arch amd64|arm64] [--manifest-with AGENT] <binary> [<overlay-dir>]" >&2; exit 2; }
case "$ARCH" in amd64|arm64) ;; *) echo "build-image.sh: --arch must be amd64 or arm64, not ${ARCH}" >&2; exit 2 ;; esac
BINARY="$(realpath "$1")"
OVERLAY="${2:+$(realpath "$2")}"
[[ -f "$BINARY" ]] || { echo "build-image.sh: binary $1 not found" >&2; exit 1; }
[[ -z "$OVERLAY" || -d "$OVERLAY" ]] || { echo "build-image.sh: overlay $2 is not a directory" >&2; exit 1; }
[[ "$(id -u)" == 0 ]] || { echo "build-image.sh: needs root (files owned by root in the image)" >&2; exit 1; }
for tool in mkfs.ext4 sha256sum zstd tar; do
    command -v "$tool" >/dev/null || { echo "build-image.sh: $tool is missing (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT="$(realpath "$OUT")"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }

# ---- 1. the base root: the machine's cache (slow only the first time: minutes; arm64 on amd64 ~20) ----
BASE_LINE="$(bash "${HERE}/build-base.sh" --arch "$ARCH")"
BASE_TARBALL="$(field tarball "$BASE_LINE")"
BASE_HASH="$(field hash "$BASE_LINE")"
BASE_CACHE="$(field cache "$BASE_LINE")"
BASE_SECONDS="$(field seconds "$BASE_LINE")"
echo "build-image: ${ARCH} base ${BASE_HASH}: cache ${BASE_CACHE} (${BASE_SECONDS} s, ${BASE_TARBALL})" >&2
# Bases of the earlier layout (in <out>, not in the cache) are dead weight.
find "$OUT" -maxdepth 1 -type d -name 'base-*' -exec rm -rf {} +

# ---- 2. the image: keyed by every input ----
INPUT_HASH="$(
    {
        echo "$ARCH $BASE_HASH"
        sha256sum "${BASH_SOURCE[0]}" "${REPO}/vhd/install.sh" "${REPO}/vhd/aks-node-controller-launcher.sh" \
            "${REPO}/vhd/aks-node-controller.service" "${REPO}/vhd/aks-node-controller-report.service" "$BINARY" \
            ${MANIFEST_WITH:+"$MANIFEST_WITH"} | cut -d' ' -f1
        if [[ -n "$OVERLAY" ]]; then
            (cd "$OVERLAY" && find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %a %F' && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
        fi
    } | sha256sum | cut -c1-16
)"
IMAGE="${OUT}/image-${ARCH}-${INPUT_HASH}"
result() {
    printf '{"arch":"%s","image":"%s","disk":"%s","kernel":"%s","initrd":"%s","reused":%s,"base":"%s","baseCache":"%s","baseSeconds":%s,"imageSeconds":%s}\n' \
        "$ARCH" "$IMAGE" "${IMAGE}/disk.raw" "${IMAGE}/vmlinuz" "${IMAGE}/initrd.img" "$1" "$BASE_HASH" "$BASE_CACHE" "$BASE_SECONDS" "$2"
}
if [[ -f "${IMAGE}/done" ]]; then
    result true 0
    exit 0
fi
started="$(now)"
# Older images of this architecture (and of the earlier layout, image-<hash>) are replaced by this one.
find "$OUT" -maxdepth 1 \( -name "image-${ARCH}-*" -o -regex '.*/image-[0-9a-f]*\(\.partial\)?' \) -exec rm -rf {} +
STAGE="$(mktemp -d "${OUT}/staging-XXXXXX")"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$STAGE" "$SCRATCH" "${IMAGE}.partial"' EXIT
zstd -q -dc "$BASE_TARBALL" | tar --numeric-owner --xattrs --xattrs-include='*' -xpf - -C "$STAGE"

# The VM's platform, what a cloud image sets up before any product goes in.
cat >"${STAGE}/etc/fstab" <<'EOF'
/dev/vda / ext4 rw,errors=remount-ro 0 1
EOF
echo localhost >"${STAGE}/etc/hostname"
# DHCP from qemu's user network through systemd-networkd; cloud-init leaves networking alone.
mkdir -p "${STAGE}/etc/systemd/network"
cat >"${STAGE}/etc/systemd/network/80-vm.network" <<'EOF'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
EOF
mkdir -p "${STAGE}/etc/systemd/system/multi-user.target.wants"
ln -sfn /lib/systemd/system/systemd-networkd.service "${STAGE}/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
mkdir -p "${STAGE}/etc/systemd/system/network-online.target.wants" "${STAGE}/etc/systemd/system/sockets.target.wants"
ln -sfn /lib/systemd/system/systemd-networkd-wait-online.service "${STAGE}/etc/systemd/system/network-online.target.wants/systemd-networkd-wait-online.service"
ln -sfn /lib/systemd/system/systemd-networkd.socket "${STAGE}/etc/systemd/system/sockets.target.wants/systemd-networkd.socket"
# Timers that would reach for the archive, and a getty nobody logs into.
for unit in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
    ln -sfn /dev/null "${STAGE}/etc/systemd/system/${unit}"
done
# Drivers for devices this VM does not use (the i440fx board's floppy and IDE, the PC speaker, power
# management, nested KVM): each one udev loads costs seconds under TCG.
# arm64's virt board has none of the PC devices.
if [[ "$ARCH" == amd64 ]]; then
    printf 'blacklist %s\n' floppy ata_piix pata_acpi pcspkr i2c_piix4 powernow_k8 acpi_cpufreq kvm_amd kvm_intel kvm \
        joydev serio_raw evdev >"${STAGE}/etc/modprobe.d/anc-vm.conf"
else
    printf 'blacklist %s\n' joydev serio_raw evdev >"${STAGE}/etc/modprobe.d/anc-vm.conf"
fi
# The journal survives reboots (the reboot test reads the first boot's).
mkdir -p "${STAGE}/var/log/journal"
# cloud-init: NoCloud seed only; C.UTF-8 (no locale-gen); no host keys (no sshd); no network config.
cat >"${STAGE}/etc/cloud/cloud.cfg.d/90-anc-vm.cfg" <<'EOF'
datasource_list: [NoCloud, None]
locale: C.UTF-8
ssh_genkeytypes: []
network:
  config: disabled
# Only what a node's custom data uses (the boothook is part of the init stage itself; runcmd and
# scripts-user run its cloud-config part): every other module is python work on a slow TCG boot.
cloud_init_modules: [migrator, seed_random, bootcmd, write-files, set_hostname, update_hostname, update_etc_hosts, users-groups]
cloud_config_modules: [locale, runcmd]
cloud_final_modules: [scripts-vendor, scripts-per-once, scripts-per-boot, scripts-per-instance, scripts-user, final-message]
EOF
# The agent supports Ubuntu and Azure Linux images: this Debian userland (apt and dpkg as on Ubuntu)
# stands in for an AKS Ubuntu image, so it says so in os-release.
rm -f "${STAGE}/etc/os-release" "${STAGE}/usr/lib/os-release"
cat >"${STAGE}/etc/os-release" <<'EOF'
NAME="Ubuntu"
VERSION_ID="22.04"
ID=ubuntu
ID_LIKE=debian
PRETTY_NAME="Debian 12 userland standing in for an AKS Ubuntu 22.04 image (aks-node-controller VM tests)"
EOF
cp "${STAGE}/etc/os-release" "${STAGE}/usr/lib/os-release"

# Our own image build: what a VHD build runs.
# QEMU_LD_PREFIX: where binfmt's qemu-user (when this machine has it) finds the image's own C library.
QEMU_LD_PREFIX="$STAGE" bash "${REPO}/vhd/install.sh" --arch "$ARCH" "$STAGE" "$BINARY" >&2
if [[ -n "$OVERLAY" ]]; then
    cp -a "${OVERLAY}/." "${STAGE}/"
fi
# The image manifest (issue "Before a hotfix leaves"), the build's last step: by the baked agent when it
# runs here, else by the same tree's agent for this machine (--manifest-with).
MANIFESTER=""
for agent in "$BINARY" "$MANIFEST_WITH"; do
    if [[ -n "$agent" ]] && env -i PATH=/usr/bin:/bin AKS_NODE_ROOT="$SCRATCH" "$agent" image manifest --help >/dev/null 2>&1; then
        MANIFESTER="$agent"
        break
    fi
done
if [[ -n "$MANIFESTER" ]]; then
    env -i PATH=/usr/bin:/bin AKS_NODE_ROOT="$SCRATCH" "$MANIFESTER" image manifest --root "$STAGE" -o json \
        >"${STAGE}/opt/azure/containers/aks-node-controller-image-manifest.json"
    echo "build-image: image manifest written (by ${MANIFESTER})" >&2
else
    echo "build-image: no agent that runs here answers \`image manifest\`: the image has no manifest" >&2
fi

mkdir -p "${IMAGE}.partial"
KERNEL="$(ls "${STAGE}"/boot/vmlinuz-* | sort -V | tail -1)"
INITRD="$(ls "${STAGE}"/boot/initrd.img-* | sort -V | tail -1)"
cp "$KERNEL" "${IMAGE}.partial/vmlinuz"
cp "$INITRD" "${IMAGE}.partial/initrd.img"
# 3 GiB, sparse: the root is ~1 GB, the rest is room for the boots' logs and the hotfix.
mkfs.ext4 -q -F -L anc-root -d "$STAGE" "${IMAGE}.partial/disk.raw" 3G >&2
echo "$INPUT_HASH" >"${IMAGE}.partial/done"
mv -T "${IMAGE}.partial" "$IMAGE"
result false "$(since "$started")"

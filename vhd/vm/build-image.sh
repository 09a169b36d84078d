#!/bin/bash
# Builds a bootable VM image the way a VHD is built, for the real-boot tests and `npm run demo:vm`:
#   1. the base: a Debian root from the archive (mmdebstrap --variant=minbase + systemd, cloud-init, apt,
#      the kernel), cached under <out>/base-<hash>/ and rebuilt only when its recipe below changes;
#   2. the image: a copy of the base with the VM's platform settings (fstab, DHCP, cloud-init's
#      datasource), our own image build (vhd/install.sh, then `aks-node-controller image manifest` when
#      the binary answers it) and the extra files of <overlay-dir> (the image's provisioning scripts, the
#      package repository's source and key), turned into an ext4 disk with `mkfs.ext4 -d`; cached under
#      <out>/image-<hash>/ and reused while every input (this script, vhd/, the binary, the overlay) is
#      unchanged.
# Prints one JSON line: {"image": dir, "disk", "kernel", "initrd", "reused", "baseSeconds", "imageSeconds"}.
#
# Usage: vhd/vm/build-image.sh [--out DIR] <binary> [<overlay-dir>]     (Linux, as root; default --out .vm)
# Environment: ANC_VM_MIRROR (default http://deb.debian.org/debian, the archive this host's apt uses),
#              ANC_VM_SECURITY_MIRROR (default http://deb.debian.org/debian-security).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "${HERE}/../.." && pwd)"
OUT="${REPO}/.vm"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "build-image.sh: unknown flag $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 [--out DIR] <binary> [<overlay-dir>]" >&2; exit 2; }
BINARY="$(realpath "$1")"
OVERLAY="${2:+$(realpath "$2")}"
[[ -f "$BINARY" ]] || { echo "build-image.sh: binary $1 not found" >&2; exit 1; }
[[ -z "$OVERLAY" || -d "$OVERLAY" ]] || { echo "build-image.sh: overlay $2 is not a directory" >&2; exit 1; }
[[ "$(id -u)" == 0 ]] || { echo "build-image.sh: needs root (mmdebstrap --mode=root, files owned by root in the image)" >&2; exit 1; }
for tool in mmdebstrap mkfs.ext4 sha256sum; do
    command -v "$tool" >/dev/null || { echo "build-image.sh: $tool is missing (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT="$(realpath "$OUT")"

MIRROR="${ANC_VM_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${ANC_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
SUITE=bookworm
PACKAGES="systemd,systemd-sysv,udev,dbus,cloud-init,apt,ca-certificates,linux-image-amd64,iproute2,e2fsprogs,kmod"
# dbus: without it logind does not run, and a host-side power-off (ACPI button) is ignored.
# A small initramfs (the virtio disk and ext4 only, not every driver): the kernel and its initramfs boot
# in seconds less under TCG. Written before the kernel package is installed, so it builds this one.
INITRAMFS_HOOK='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" && echo MODULES=list >"$1/etc/initramfs-tools/conf.d/anc-vm.conf" && printf "virtio_pci\nvirtio_blk\next4\n" >"$1/usr/share/initramfs-tools/modules.d/anc-vm"'
BASE_RECIPE="mmdebstrap --mode=root --variant=minbase --include=${PACKAGES} ${SUITE} ${MIRROR} ${SECURITY} ${INITRAMFS_HOOK} v2"
BASE_HASH="$(printf '%s' "$BASE_RECIPE" | sha256sum | cut -c1-16)"
BASE="${OUT}/base-${BASE_HASH}"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- 1. the base root (slow: ~3 minutes, ~700 MB from the archive) ----
BASE_SECONDS=0
if [[ ! -f "${BASE}/done" ]]; then
    started="$(now)"
    rm -rf "${BASE}"
    # Older bases are dead weight (hundreds of MB each).
    find "$OUT" -maxdepth 1 -name 'base-*' -exec rm -rf {} +
    mkdir -p "$BASE"
    echo "build-image: building the Debian base (${SUITE}, ${MIRROR}); this takes a few minutes" >&2
    mmdebstrap --quiet --mode=root --variant=minbase --include="$PACKAGES" --essential-hook="$INITRAMFS_HOOK" "$SUITE" "${BASE}/root" \
        "deb ${MIRROR} ${SUITE} main" "deb ${MIRROR} ${SUITE}-updates main" "deb ${SECURITY} ${SUITE}-security main" >&2
    echo "$BASE_RECIPE" >"${BASE}/done"
    BASE_SECONDS="$(since "$started")"
fi

# ---- 2. the image: keyed by every input ----
INPUT_HASH="$(
    {
        echo "$BASE_RECIPE"
        sha256sum "${BASH_SOURCE[0]}" "${REPO}/vhd/install.sh" "${REPO}/vhd/aks-node-controller-launcher.sh" \
            "${REPO}/vhd/aks-node-controller.service" "$BINARY" | cut -d' ' -f1
        if [[ -n "$OVERLAY" ]]; then
            (cd "$OVERLAY" && find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %a %F' && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
        fi
    } | sha256sum | cut -c1-16
)"
IMAGE="${OUT}/image-${INPUT_HASH}"
if [[ -f "${IMAGE}/done" ]]; then
    printf '{"image":"%s","disk":"%s","kernel":"%s","initrd":"%s","reused":true,"baseSeconds":%s,"imageSeconds":0}\n' \
        "$IMAGE" "${IMAGE}/disk.raw" "${IMAGE}/vmlinuz" "${IMAGE}/initrd.img" "$BASE_SECONDS"
    exit 0
fi
started="$(now)"
find "$OUT" -maxdepth 1 -name 'image-*' -exec rm -rf {} +
STAGE="${OUT}/staging-$$"
trap 'rm -rf "$STAGE"' EXIT
cp -a "${BASE}/root" "$STAGE"

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
printf 'blacklist %s\n' floppy ata_piix pata_acpi pcspkr i2c_piix4 powernow_k8 acpi_cpufreq kvm_amd kvm_intel kvm \
    joydev serio_raw evdev >"${STAGE}/etc/modprobe.d/anc-vm.conf"
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
bash "${REPO}/vhd/install.sh" --arch amd64 "$STAGE" "$BINARY" >&2
if [[ -n "$OVERLAY" ]]; then
    cp -a "${OVERLAY}/." "${STAGE}/"
fi
# The image manifest (issue "Before a hotfix leaves"), the build's last step, when the binary has it.
if env -i PATH=/usr/bin:/bin AKS_NODE_ROOT="$(mktemp -d)" "$BINARY" image manifest --help >/dev/null 2>&1; then
    env -i PATH=/usr/bin:/bin "$BINARY" image manifest --root "$STAGE" -o json \
        >"${STAGE}/opt/azure/containers/aks-node-controller-image-manifest.json"
    echo "build-image: image manifest written" >&2
fi

mkdir -p "${IMAGE}.partial"
KERNEL="$(ls "${STAGE}"/boot/vmlinuz-* | sort -V | tail -1)"
INITRD="$(ls "${STAGE}"/boot/initrd.img-* | sort -V | tail -1)"
cp "$KERNEL" "${IMAGE}.partial/vmlinuz"
cp "$INITRD" "${IMAGE}.partial/initrd.img"
# 3 GiB, sparse: the root is ~1 GB, the rest is room for the boots' logs and the hotfix.
mkfs.ext4 -q -F -L anc-root -d "$STAGE" "${IMAGE}.partial/disk.raw" 3G >&2
rm -rf "$STAGE"
echo "$INPUT_HASH" >"${IMAGE}.partial/done"
mv "${IMAGE}.partial" "$IMAGE"
printf '{"image":"%s","disk":"%s","kernel":"%s","initrd":"%s","reused":false,"baseSeconds":%s,"imageSeconds":%s}\n' \
    "$IMAGE" "${IMAGE}/disk.raw" "${IMAGE}/vmlinuz" "${IMAGE}/initrd.img" "$BASE_SECONDS" "$(since "$started")"

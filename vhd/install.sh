#!/bin/bash
# Installs aks-node-controller into an image root the way an image (VHD) build does:
#   <root>/opt/azure/containers/aks-node-controller              0755  the agent
#   <root>/opt/azure/containers/aks-node-controller-launcher.sh  0755  the launcher (D15)
#   <root>/etc/systemd/system/aks-node-controller.service        0644  the unit
#   <root>/etc/systemd/system/basic.target.wants/aks-node-controller.service -> the unit (= enabled)
#
# Usage: vhd/install.sh <image-root> [<binary>]
#   <binary> defaults to dist/aks-node-controller next to this script's repository.
# Never strip the binary: a stripped bun executable silently turns back into plain bun. Running it inside
# a chroot of the image needs /proc mounted there (bun aborts without it).
set -euo pipefail

usage() {
    echo "usage: $0 <image-root> [<binary>]" >&2
    exit 2
}

[[ $# -ge 1 && $# -le 2 ]] || usage
ROOT="${1%/}"
[[ -n "$ROOT" ]] || { echo "install.sh: refusing to install into / (pass an image root)" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINARY="${2:-${HERE}/../dist/aks-node-controller}"

[[ -d "$ROOT" ]] || { echo "install.sh: image root ${ROOT} is not a directory" >&2; exit 1; }
[[ -f "$BINARY" ]] || { echo "install.sh: binary ${BINARY} not found (run node build.mjs first)" >&2; exit 1; }

CONTAINERS="${ROOT}/opt/azure/containers"
UNIT_DIR="${ROOT}/etc/systemd/system"
UNIT_NAME="aks-node-controller.service"

install -d -m 0755 "$CONTAINERS" "$UNIT_DIR" "${UNIT_DIR}/basic.target.wants"
install -m 0755 "$BINARY" "${CONTAINERS}/aks-node-controller"
install -m 0755 "${HERE}/aks-node-controller-launcher.sh" "${CONTAINERS}/aks-node-controller-launcher.sh"
install -m 0644 "${HERE}/${UNIT_NAME}" "${UNIT_DIR}/${UNIT_NAME}"
# What `systemctl enable` does for WantedBy=basic.target: an absolute link as seen from inside the image.
ln -sfn "/etc/systemd/system/${UNIT_NAME}" "${UNIT_DIR}/basic.target.wants/${UNIT_NAME}"

echo "installed aks-node-controller into ${ROOT}"

#!/bin/bash
# Installs aks-node-controller into an image root the way an image (VHD) build does:
#   <root>/opt/azure/containers/aks-node-controller              0755  the agent
#   <root>/opt/azure/containers/aks-node-controller-launcher.sh  0755  the launcher (D15)
#   <root>/etc/systemd/system/aks-node-controller.service        0644  the unit
#   <root>/etc/systemd/system/basic.target.wants/aks-node-controller.service -> the unit (= enabled)
#   <root>/etc/systemd/system/aks-node-controller-report.service 0644  the report on the Node object (+ multi-user.target.wants)
#   <root>/etc/systemd/system/aks-node-controller-report.timer   0644  the same every 15 minutes (+ timers.target.wants)
#   <root>/usr/local/bin/aks-node-controller -> /opt/azure/containers/aks-node-controller (on PATH)
#   <root>/usr/local/share/man/man8/aks-node-controller.8.gz, bash and zsh completion (from the binary)
#
# Usage: vhd/install.sh [--arch amd64|arm64] <image-root> [<binary>]   (--help for details)
#   <binary> defaults to dist/aks-node-controller next to this script's repository.
# Refuses a binary that is not a Linux executable for the image's architecture (--arch, default: this
# machine's), and one that does not answer `version` with a YYYYMM.DD.PATCH version (run when it can run
# here: same architecture, or qemu-user registered for it in binfmt_misc with an arm64 C library to load,
# on this machine or under QEMU_LD_PREFIX, e.g. the image root itself).
# The image build's LAST step, after every provisioning script is in place (docs/node.md "Image manifest"):
#   aks-node-controller image manifest --root <root> -o json > image-manifest.json   (published beside the image)
#   install -m 0644 image-manifest.json <root>/opt/azure/containers/aks-node-controller-image-manifest.json
# Hotfix builds check their script payload against it (build.mjs --image-manifest); `status` diffs against it.
# Never strip the binary: a stripped bun executable silently turns back into plain bun. Running it inside
# a chroot of the image needs /proc mounted there (bun aborts without it).
set -euo pipefail

usage() {
    echo "usage: $0 [--arch amd64|arm64] <image-root> [<binary>]" >&2
    exit 2
}

help() {
    cat <<'HELP'
install.sh: install aks-node-controller into an image root, as an image (VHD) build does.

Usage: vhd/install.sh [--arch amd64|arm64] <image-root> [<binary>]

  <image-root>  the root of the image being built (never /)
  <binary>      the agent for the image (default: dist/aks-node-controller of this checkout)
  --arch A      the image's architecture: amd64 or arm64 (default: this machine's)

Installs <root>/opt/azure/containers/aks-node-controller (0755), the launcher (0755) and the systemd unit
(0644), enabled through basic.target.wants; puts the agent on PATH as /usr/local/bin/aks-node-controller
(a link to the baked binary) with its man page and bash/zsh completion under /usr/local/share, and lists
every path it installed. Refuses a binary that is not a Linux executable for the architecture, or that
does not answer `version` (checked when it can run here; when it cannot, the man page and completion come
from this checkout's dist/aks-node-controller, else they are left out with a note).

The image build's last step, once every provisioning script is in place, records what the image holds
(docs/node.md "Image manifest"); publish it beside the image and keep a copy on it:

  aks-node-controller image manifest --root <image-root> -o json > image-manifest.json
  install -m 0644 image-manifest.json <image-root>/opt/azure/containers/aks-node-controller-image-manifest.json

Exit codes: 0 installed, 1 refused or failed, 2 usage.
HELP
    exit 0
}

ARCH=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) help ;;
        --arch) [[ $# -ge 2 ]] || usage; ARCH="$2"; shift 2 ;;
        --arch=*) ARCH="${1#--arch=}"; shift ;;
        -*) echo "install.sh: unknown flag $1" >&2; usage ;;
        *) break ;;
    esac
done
[[ $# -ge 1 && $# -le 2 ]] || usage
if [[ -z "$ARCH" ]]; then
    case "$(uname -m)" in
        x86_64|amd64) ARCH=amd64 ;;
        aarch64|arm64) ARCH=arm64 ;;
        *) echo "install.sh: cannot tell the image architecture from $(uname -m); pass --arch" >&2; exit 2 ;;
    esac
fi
case "$ARCH" in
    amd64) WANT_MACHINE="3e00" ;;   # ELF e_machine EM_X86_64, little endian
    arm64) WANT_MACHINE="b700" ;;   # EM_AARCH64
    *) echo "install.sh: --arch must be amd64 or arm64, not ${ARCH}" >&2; exit 2 ;;
esac
ROOT="${1%/}"
[[ -n "$ROOT" ]] || { echo "install.sh: refusing to install into / (pass an image root)" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINARY="${2:-${HERE}/../dist/aks-node-controller}"

[[ -d "$ROOT" ]] || { echo "install.sh: image root ${ROOT} is not a directory" >&2; exit 1; }
[[ -f "$BINARY" ]] || { echo "install.sh: binary ${BINARY} not found (run node build.mjs first)" >&2; exit 1; }

# ELF magic, 64-bit, and the machine field: a darwin (Mach-O) or wrong-architecture build is refused.
HEADER="$(od -An -tx1 -N20 "$BINARY" | tr -d ' \n')"
if [[ "${HEADER:0:8}" != "7f454c46" ]]; then
    echo "install.sh: refusing ${BINARY}: not a Linux executable (no ELF header; a darwin build?)" >&2
    exit 1
fi
if [[ "${HEADER:8:2}" != "02" || "${HEADER:36:4}" != "$WANT_MACHINE" ]]; then
    # Name what it is (e_machine, little-endian) and the flag that takes it.
    case "${HEADER:36:4}" in
        3e00) FOUND="a linux-amd64 executable (x86-64); for an amd64 image pass --arch amd64" ;;
        b700) FOUND="a linux-arm64 executable (aarch64); for an arm64 image pass --arch arm64" ;;
        *) FOUND="ELF class ${HEADER:8:2}, machine ${HEADER:36:4}" ;;
    esac
    echo "install.sh: refusing ${BINARY}: not a linux-${ARCH} executable: it is ${FOUND}" >&2
    exit 1
fi
# Does it answer `version`? Run it in a throwaway root with a clean environment (it writes nothing there)
# but QEMU_LD_PREFIX: where qemu-user finds the arm64 C library the binary is linked against.
HOST_ARCH="$(uname -m)"
CLEAN_ENV=(env -i PATH=/usr/bin:/bin ${QEMU_LD_PREFIX:+"QEMU_LD_PREFIX=${QEMU_LD_PREFIX}"})
RUNS_HERE=false
if [[ "$ARCH" == amd64 && "$HOST_ARCH" == x86_64 ]] || [[ "$ARCH" == arm64 && "$HOST_ARCH" == aarch64 ]]; then
    RUNS_HERE=true
elif [[ "$ARCH" == arm64 && "$(head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null)" == enabled ]]; then
    # qemu-user runs it only with an arm64 loader to hand it to; without one, a good binary would fail.
    if [[ -e /lib/ld-linux-aarch64.so.1 || ( -n "${QEMU_LD_PREFIX:-}" && -e "${QEMU_LD_PREFIX}/lib/ld-linux-aarch64.so.1" ) ]]; then
        RUNS_HERE=true
    else
        echo "install.sh: qemu-user runs arm64 here, but there is no arm64 C library (/lib/ld-linux-aarch64.so.1; QEMU_LD_PREFIX=<an arm64 root> names one): version check skipped"
    fi
fi
if [[ "$RUNS_HERE" == true ]]; then
    SCRATCH="$(mktemp -d)"
    VERSION_OUT="$("${CLEAN_ENV[@]}" AKS_NODE_ROOT="$SCRATCH" timeout 20 "$BINARY" version 2>&1)" || VERSION_OUT="failed: ${VERSION_OUT}"
    rm -rf "$SCRATCH"
    if [[ ! "$VERSION_OUT" =~ ^[0-9]{6}\.[0-9]{2}\.[0-9]+$ ]]; then
        echo "install.sh: refusing ${BINARY}: \`version\` did not print a YYYYMM.DD.PATCH version (got: ${VERSION_OUT:0:200})" >&2
        exit 1
    fi
    DOCS_FROM="$BINARY"
else
    [[ "$ARCH" == arm64 && -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
        echo "install.sh: cannot run a linux-${ARCH} binary on ${HOST_ARCH}: version check skipped"
    DOCS_FROM="${HERE}/../dist/aks-node-controller"
fi

CONTAINERS="${ROOT}/opt/azure/containers"
UNIT_DIR="${ROOT}/etc/systemd/system"
UNIT_NAME="aks-node-controller.service"

install -d -m 0755 "$CONTAINERS" "$UNIT_DIR" "${UNIT_DIR}/basic.target.wants"
install -m 0755 "$BINARY" "${CONTAINERS}/aks-node-controller"
install -m 0755 "${HERE}/aks-node-controller-launcher.sh" "${CONTAINERS}/aks-node-controller-launcher.sh"
install -m 0644 "${HERE}/${UNIT_NAME}" "${UNIT_DIR}/${UNIT_NAME}"
# What `systemctl enable` does for WantedBy=basic.target: an absolute link as seen from inside the image.
ln -sfn "/etc/systemd/system/${UNIT_NAME}" "${UNIT_DIR}/basic.target.wants/${UNIT_NAME}"
# The report on the Node object, after provisioning and kubelet (fleet/send.ts); enabled for multi-user.target.
REPORT_UNIT="aks-node-controller-report.service"
install -d -m 0755 "${UNIT_DIR}/multi-user.target.wants"
install -m 0644 "${HERE}/${REPORT_UNIT}" "${UNIT_DIR}/${REPORT_UNIT}"
ln -sfn "/etc/systemd/system/${REPORT_UNIT}" "${UNIT_DIR}/multi-user.target.wants/${REPORT_UNIT}"
# ... and every 15 minutes after (a recall reaches a node that already provisioned).
REPORT_TIMER="aks-node-controller-report.timer"
install -d -m 0755 "${UNIT_DIR}/timers.target.wants"
install -m 0644 "${HERE}/${REPORT_TIMER}" "${UNIT_DIR}/${REPORT_TIMER}"
ln -sfn "/etc/systemd/system/${REPORT_TIMER}" "${UNIT_DIR}/timers.target.wants/${REPORT_TIMER}"

INSTALLED=(
    "/opt/azure/containers/aks-node-controller"
    "/opt/azure/containers/aks-node-controller-launcher.sh"
    "/etc/systemd/system/${UNIT_NAME} (enabled: basic.target.wants)"
    "/etc/systemd/system/${REPORT_UNIT} (enabled: multi-user.target.wants)"
    "/etc/systemd/system/${REPORT_TIMER} (enabled: timers.target.wants, every 15 minutes)"
)

# On PATH: the runbook's `aks-node-controller status` works as written. The link points at the baked agent
# (an absolute path inside the image); the launcher, not PATH, decides when a hotfix runs.
install -d -m 0755 "${ROOT}/usr/local/bin"
ln -sfn /opt/azure/containers/aks-node-controller "${ROOT}/usr/local/bin/aks-node-controller"
INSTALLED+=("/usr/local/bin/aks-node-controller -> /opt/azure/containers/aks-node-controller")

# Man page and completion, generated by the agent from its own command table.
agent_text() {
    local scratch out
    scratch="$(mktemp -d)"
    out="$("${CLEAN_ENV[@]}" AKS_NODE_ROOT="$scratch" timeout 20 "$DOCS_FROM" "$@")" || { rm -rf "$scratch"; return 1; }
    rm -rf "$scratch"
    printf '%s\n' "$out"
}
SHARE="${ROOT}/usr/local/share"
if [[ -x "$DOCS_FROM" ]] && MAN="$(agent_text manpage)" && BASH_COMPLETION="$(agent_text completion bash)" && ZSH_COMPLETION="$(agent_text completion zsh)"; then
    install -d -m 0755 "${SHARE}/man/man8" "${SHARE}/bash-completion/completions" "${SHARE}/zsh/site-functions"
    printf '%s\n' "$MAN" | gzip -9n > "${SHARE}/man/man8/aks-node-controller.8.gz"
    printf '%s\n' "$BASH_COMPLETION" > "${SHARE}/bash-completion/completions/aks-node-controller"
    printf '%s\n' "$ZSH_COMPLETION" > "${SHARE}/zsh/site-functions/_aks-node-controller"
    chmod 0644 "${SHARE}/man/man8/aks-node-controller.8.gz" "${SHARE}/bash-completion/completions/aks-node-controller" "${SHARE}/zsh/site-functions/_aks-node-controller"
    INSTALLED+=(
        "/usr/local/share/man/man8/aks-node-controller.8.gz (man aks-node-controller)"
        "/usr/local/share/bash-completion/completions/aks-node-controller"
        "/usr/local/share/zsh/site-functions/_aks-node-controller"
    )
else
    echo "install.sh: no runnable agent to generate the man page and completion from (build this machine's with node build.mjs): left out"
fi

echo "installed aks-node-controller${VERSION_OUT:+ ${VERSION_OUT}} (linux-${ARCH}) into ${ROOT}:"
printf '  %s\n' "${INSTALLED[@]}"
echo "last step of the image build, once its scripts are in place: aks-node-controller image manifest --root ${ROOT} -o json (docs/node.md)"

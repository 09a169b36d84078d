#!/bin/bash
# aks-node-controller launcher (D15; reference-agent.md 8.3). Started by aks-node-controller.service at
# every boot (or by the boothook). Order: wait for the hostname -> nothing to do? exit 0 -> read feature
# flags (parsed, never sourced) -> check-hotfix (only when ENABLE_PROVISIONING_HOTFIX=true) ->
# download-hotfix (only when the pointer file exists) -> pick the binary (staged hotfix when executable,
# else the VHD-baked one) -> provision -> if the HOTFIX binary failed on its own before the provisioning
# scripts started (no scripts-started marker), quarantine it and run the baked binary's provision once
# (docs/hotfix.md "fallback table"). Exits with the exit code of the last provision run.
#
# The agent always runs with a clean environment (`env -i` plus an allow-list), so runtime hooks such
# as BUN_OPTIONS, BUN_BE_BUN or NODE_OPTIONS in the caller's environment never reach it.
#
# Every path can be overridden by the environment (tests, image experiments). AKS_NODE_ROOT=<dir> moves
# every default under <dir> and is handed to the agent, which then uses the same sandbox.
set -uo pipefail

NODE_ROOT="${AKS_NODE_ROOT:-}"
NODE_ROOT="${NODE_ROOT%/}"
CONTAINERS_DIR="${NODE_ROOT}/opt/azure/containers"

BIN_PATH="${BIN_PATH:-${CONTAINERS_DIR}/aks-node-controller}"
HOTFIX_BIN="${HOTFIX_BIN:-${BIN_PATH}-hotfix}"
HOTFIX_JSON="${HOTFIX_JSON:-${CONTAINERS_DIR}/aks-node-controller-hotfix.json}"
CONFIG_PATH="${CONFIG_PATH:-${CONTAINERS_DIR}/aks-node-controller-config.json}"
NBC_CMD_PATH="${NBC_CMD_PATH:-${CONTAINERS_DIR}/aks-node-controller-nbc-cmd.sh}"
FEATURES_PATH="${FEATURES_PATH:-${CONTAINERS_DIR}/enabled_features.sh}"
# Written by the agent the moment before it starts the provisioning scripts (src/provision/scripts-marker.ts).
SCRIPTS_STARTED_MARKER="${SCRIPTS_STARTED_MARKER:-${CONTAINERS_DIR}/aks-node-controller-scripts-started}"
HOSTNAME_FILE="${HOSTNAME_FILE:-${NODE_ROOT}/etc/hostname}"
# 0 = wait for the hostname forever (the reference behaviour); N = give up waiting after N seconds.
HOSTNAME_WAIT_TIMEOUT="${HOSTNAME_WAIT_TIMEOUT:-0}"
LOGGER_CMD="${LOGGER_CMD:-logger}"
LOG_TAG="aks-node-controller-launcher"
DEFAULT_PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Feature flags read from FEATURES_PATH, as KEY=VALUE words for `env`.
FEATURE_ENV=()
# ENABLE_PROVISIONING_HOTFIX may come from the environment (systemd Environment=) or the features file.
HOTFIX_FLAG="${ENABLE_PROVISIONING_HOTFIX-}"
HOTFIX_FLAG_SET="${ENABLE_PROVISIONING_HOTFIX+set}"

# Control characters (C0 including newline, DEL, UTF-8 C1) in a message become '?': a version string a
# staged binary printed must not retitle, clear or colour the console, nor forge a journal line.
log() {
    local LC_ALL=C line="$*"
    line="${line//[$'\x01'-$'\x1f'$'\x7f']/?}"
    line="${line//$'\xc2'[$'\x80'-$'\x9f']/?}"
    echo "$line"
    # logger may be missing (minimal images, test sandboxes): the message is on stdout anyway.
    "$LOGGER_CMD" -t "$LOG_TAG" -- "$line" >/dev/null 2>&1 || true
}

wait_for_hostname() {
    local waited=0 expected said=0
    while :; do
        expected=""
        # -f: a FIFO planted at the path must not block the boot.
        [[ -f "$HOSTNAME_FILE" && -r "$HOSTNAME_FILE" ]] && expected="$(head -c 256 -- "$HOSTNAME_FILE")"
        [[ -n "$expected" && "$(hostname)" == "$expected" ]] && return 0
        # Once, so a stuck boot says what it waits for (`aks-node-controller status` says it too).
        if [[ "$said" == 0 ]]; then
            said=1
            if [[ -z "$expected" ]]; then
                log "Waiting for ${HOSTNAME_FILE} (cloud-init sets the hostname); provisioning starts when the running hostname matches it"
            else
                log "Waiting for the hostname: running as '$(hostname)', ${HOSTNAME_FILE} says '${expected:0:64}'; provisioning starts when they match"
            fi
        fi
        if [[ "$HOSTNAME_WAIT_TIMEOUT" != "0" && "$waited" -ge "$HOSTNAME_WAIT_TIMEOUT" ]]; then
            log "Hostname did not match ${HOSTNAME_FILE} after ${waited}s; continuing"
            return 0
        fi
        sleep 1
        waited=$((waited + 1))
    done
}

# Names a feature flag may not set: the agent's allow-listed variables and known code-injection hooks.
reserved_name() {
    case "$1" in
        PATH | HOME | LANG | LC_* | TZ | AKS_NODE_ROOT | IFS | ENV | BASH_ENV | SHELLOPTS | BASHOPTS | PS4) return 0 ;;
        LD_* | BUN_* | NODE_* | UV_* | MALLOC_* | GLIBC_*) return 0 ;;
    esac
    package_manager_name "$1"
}

# Names that change what apt/dpkg/dnf/rpm (and the tools they start: gpgv, curl, perl, python, iconv)
# trust, load or connect to. The agent hands its environment to the package manager, so the features
# file (custom data) may not set them. Matched case-insensitively: http_proxy and HTTP_PROXY alike.
package_manager_name() {
    local upper="${1^^}"
    case "$upper" in
        APT_* | DEBIAN_* | DEBCONF_* | DPKG_* | RPM_* | DNF_* | YUM_* | TDNF_* | LIBSOLV_*) return 0 ;;
        SSL_* | OPENSSL_* | CURL_* | GNUTLS_* | NSS_* | GNUPGHOME | GPG_* | REQUESTS_CA_BUNDLE) return 0 ;;
        *_PROXY | PERL5* | PERLLIB | PERL_* | PYTHON* | RUBY* | GCONV_PATH | LOCPATH | NLSPATH) return 0 ;;
        HOSTALIASES | RES_OPTIONS | LOCALDOMAIN | TMPDIR | CDPATH | GLOBIGNORE | SYSTEMD_* | XDG_* | GIO_*) return 0 ;;
    esac
    return 1
}

# Parses FEATURES_PATH line by line (never sourced): KEY=VALUE split at the first '='; empty keys,
# '#' comments and keys that are not shell identifiers are skipped; a last line without newline counts.
read_features() {
    local line key value
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line%$'\r'}"
        [[ "$line" == *=* ]] || continue
        key="${line%%=*}"
        value="${line#*=}"
        [[ -z "$key" || "$key" == \#* ]] && continue
        [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        if reserved_name "$key"; then
            log "Ignoring reserved feature flag name ${key} (it would reach the agent's runtime or the package manager)"
            continue
        fi
        FEATURE_ENV+=("${key}=${value}")
        if [[ "$key" == "ENABLE_PROVISIONING_HOTFIX" ]]; then
            HOTFIX_FLAG="$value"
            HOTFIX_FLAG_SET="set"
        fi
    done <"$FEATURES_PATH"
}

# The agent's clean environment: PATH, HOME, LANG, AKS_NODE_ROOT, the hotfix flag and the feature
# flags. LAUNCHER_PASS_ENV="NAME ..." adds more names (never reserved hook names). Sets AGENT_ENV.
agent_env() {
    AGENT_ENV=("PATH=${PATH:-$DEFAULT_PATH}" "HOME=${HOME:-/root}")
    local name
    local -a extra=()
    read -r -a extra <<<"${LAUNCHER_PASS_ENV:-}"
    [[ -n "${LANG:-}" ]] && AGENT_ENV+=("LANG=${LANG}")
    [[ -n "$NODE_ROOT" ]] && AGENT_ENV+=("AKS_NODE_ROOT=${NODE_ROOT}")
    [[ -n "$HOTFIX_FLAG_SET" ]] && AGENT_ENV+=("ENABLE_PROVISIONING_HOTFIX=${HOTFIX_FLAG}")
    for name in "${extra[@]}"; do
        [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        reserved_name "$name" && continue
        [[ -n "${!name+set}" ]] && AGENT_ENV+=("${name}=${!name}")
    done
    return 0
}

# Runs the agent with that environment.
run_agent() {
    local -a AGENT_ENV=()
    agent_env
    env -i "${AGENT_ENV[@]}" "${FEATURE_ENV[@]}" "$@"
}

# Each agent step before provision is bounded here too (a second layer under the agent's own deadline):
# a step that overruns is killed and the boot goes on exactly as after that step's failure (fail-open).
AGENT_STEP_TIMEOUT="${AGENT_STEP_TIMEOUT:-300}"
run_agent_step() {
    run_agent timeout -k 10 "$AGENT_STEP_TIMEOUT" "$@"
    local rc=$?
    [[ "$rc" -eq 124 || "$rc" -eq 137 ]] && log "ANC ${2:-step} did not finish within ${AGENT_STEP_TIMEOUT}s; stopped (fail-open)"
    return "$rc"
}

# The floor under a staged hotfix (the full health gate is separate): it runs only when it is a
# non-empty executable of the same format as the baked binary (ELF magic, class, byte order and machine)
# and answers `version` within 10 s with exit 0 and a version. Anything else would let a broken download
# skip provisioning silently (a 0-byte file runs as an empty script and exits 0).
HOTFIX_VERSION_TIMEOUT="${HOTFIX_VERSION_TIMEOUT:-10}"

# Bytes 0-5 (magic, class, byte order) and 18-19 (e_machine) of an executable, as hex.
executable_format() {
    { od -An -tx1 -N6 -- "$1" && od -An -tx1 -j18 -N2 -- "$1"; } 2>/dev/null | tr -d ' \n'
}

# The baked binary can run at all: a non-empty executable file (something may have deleted it).
baked_binary_present() {
    [[ -f "$BIN_PATH" && -x "$BIN_PATH" && -s "$BIN_PATH" ]]
}

hotfix_binary_usable() {
    local candidate="$1" format version
    [[ -f "$candidate" && -x "$candidate" ]] || return 1
    if [[ ! -s "$candidate" ]]; then
        log "Not using hotfix binary ${candidate}: it is empty"
        return 1
    fi
    format="$(executable_format "$candidate")"
    # Without the baked binary to compare with, an ELF header and the version check below decide.
    if baked_binary_present; then
        if [[ "$format" != "$(executable_format "$BIN_PATH")" ]]; then
            log "Not using hotfix binary ${candidate}: not an executable for this machine (header ${format:-unreadable})"
            return 1
        fi
    elif [[ "$format" != 7f454c46* ]]; then
        log "Not using hotfix binary ${candidate}: not an ELF executable (header ${format:-unreadable})"
        return 1
    fi
    if ! version="$(run_agent timeout -k 1 "$HOTFIX_VERSION_TIMEOUT" "$candidate" version 2>/dev/null)" || [[ -z "$version" ]]; then
        log "Not using hotfix binary ${candidate}: its version check failed"
        return 1
    fi
    log "Hotfix binary ${candidate} reports version ${version:0:64}"
    return 0
}

wait_for_hostname

if [[ ! -f "$CONFIG_PATH" && ! -f "$NBC_CMD_PATH" ]]; then
    log "Gracefully exit aks-node-controller without provision config or nbc cmd"
    exit 0
fi

if [[ -f "$FEATURES_PATH" ]]; then
    log "Reading feature flags from ${FEATURES_PATH}"
    read_features
fi

if ! baked_binary_present; then
    log "VHD-baked binary ${BIN_PATH} is missing or not executable; skipping the hotfix refresh, a staged hotfix may still provision"
elif [[ "$HOTFIX_FLAG" == "true" ]]; then
    log "ENABLE_PROVISIONING_HOTFIX=true; running check-hotfix to refresh hotfix pointer"
    # Always the VHD binary: a staged hotfix must not decide about its own replacement.
    if run_agent_step "$BIN_PATH" check-hotfix; then
        log "ANC check-hotfix completed; hotfix pointer refresh attempted"
    else
        log "ANC check-hotfix failed; continuing (fail-open)"
    fi
fi

if [[ -f "$HOTFIX_JSON" ]] && baked_binary_present; then
    log "Found ANC hotfix config at ${HOTFIX_JSON}; running download-hotfix"
    if run_agent_step "$BIN_PATH" download-hotfix; then
        log "ANC download-hotfix completed; binary selection follows"
    else
        log "ANC download-hotfix failed; binary selection follows"
    fi
fi

# A hotfix binary staged by an earlier boot counts too, as long as it passes the floor check.
# While any runnable agent exists, provisioning is attempted (and so a status file written).
if hotfix_binary_usable "$HOTFIX_BIN"; then
    SELECTED_BIN="$HOTFIX_BIN"
    log "Using hotfix binary: ${SELECTED_BIN}"
elif baked_binary_present; then
    SELECTED_BIN="$BIN_PATH"
    log "Using VHD-baked binary: ${SELECTED_BIN}"
else
    log "No runnable aks-node-controller: the VHD-baked binary ${BIN_PATH} is missing or not executable and no usable hotfix binary is staged; reimage the node"
    exit 127
fi

PROVISION_ARGS=(provision)
if [[ -f "$CONFIG_PATH" ]]; then
    PROVISION_ARGS+=("--provision-config=${CONFIG_PATH}")
    log "Launching aks-node-controller with config ${CONFIG_PATH}"
fi
if [[ -f "$NBC_CMD_PATH" ]]; then
    PROVISION_ARGS+=("--nbc-cmd=${NBC_CMD_PATH}")
    log "Launching aks-node-controller with nbc cmd ${NBC_CMD_PATH}"
fi

# Runs provision with the given binary (optionally preceded by NAME=VALUE words); sets EXIT_CODE. The
# background job execs env, which execs the agent: the pid logged and waited for is the agent's own, so
# killing it ends the agent (never an orphaned agent beside a second provisioner).
run_provision() {
    rm -f "$SCRIPTS_STARTED_MARKER"
    (
        agent_env
        exec env -i "${AGENT_ENV[@]}" "${FEATURE_ENV[@]}" "$@" "${PROVISION_ARGS[@]}"
    ) &
    AGENT_PID=$!
    log "Spawned aks-node-controller (pid ${AGENT_PID})"
    wait "$AGENT_PID"
    EXIT_CODE=$?
}

if [[ "$SELECTED_BIN" == "$HOTFIX_BIN" ]] && baked_binary_present; then
    # Tells the hotfix to leave the status files to the baked fallback when it fails before the scripts.
    run_provision ANC_LAUNCHER_FALLBACK=baked "$SELECTED_BIN"
else
    run_provision "$SELECTED_BIN"
fi

# Fallback table: only a hotfix binary, only a failure, only without the scripts-started marker.
if [[ "$EXIT_CODE" -ne 0 && "$SELECTED_BIN" == "$HOTFIX_BIN" ]]; then
    if [[ -e "$SCRIPTS_STARTED_MARKER" ]]; then
        log "Hotfix binary failed after the provisioning scripts started (exit ${EXIT_CODE}); not retrying in this boot"
        if baked_binary_present; then
            # Quarantined on this node: the next boot restores the image's scripts and runs the baked agent.
            run_agent_step "$BIN_PATH" hotfix fallback --after-scripts "$EXIT_CODE" \
                --reason "failed provisioning with exit code ${EXIT_CODE} after the provisioning scripts started" ||
                log "ANC hotfix fallback record failed; continuing"
        fi
    elif ! baked_binary_present; then
        log "Hotfix binary failed (exit ${EXIT_CODE}); no VHD-baked binary to fall back to, the hotfix's own status stands"
    else
        if [[ "$EXIT_CODE" -gt 128 && "$EXIT_CODE" -le 192 ]]; then
            REASON="was killed by signal $((EXIT_CODE - 128)) before the provisioning scripts started"
        else
            REASON="exited with status ${EXIT_CODE} before the provisioning scripts started"
        fi
        log "Hotfix binary ${REASON}; falling back to the VHD-baked binary: ${BIN_PATH}"
        # The baked binary records the quarantine, removes the staged hotfix and emits the event.
        run_agent_step "$BIN_PATH" hotfix fallback --reason "$REASON" || log "ANC hotfix fallback record failed; continuing"
        SELECTED_BIN="$BIN_PATH"
        run_provision "$BIN_PATH"
    fi
fi
if [[ "$EXIT_CODE" -eq 0 ]]; then
    log "aks-node-controller completed successfully"
else
    log "aks-node-controller exited with code ${EXIT_CODE}"
    # The verdict with the exit code's name, the failing step and the timeline, for the journal and the
    # serial console (boot diagnostics) without SSH. Read-only; its own failure changes nothing.
    run_agent "$SELECTED_BIN" status || true
fi
exit "$EXIT_CODE"

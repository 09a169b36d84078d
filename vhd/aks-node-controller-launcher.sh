#!/bin/bash
# aks-node-controller launcher (D15; reference-agent.md 8.3). Started by aks-node-controller.service at
# every boot (or by the boothook). Order: wait for the hostname -> nothing to do? exit 0 -> read feature
# flags (parsed, never sourced) -> check-hotfix (only when ENABLE_PROVISIONING_HOTFIX=true) ->
# download-hotfix (only when the pointer file exists) -> pick the binary (staged hotfix when executable,
# else the VHD-baked one) -> provision. Exits with provision's exit code.
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

log() {
    echo "$*"
    # logger may be missing (minimal images, test sandboxes): the message is on stdout anyway.
    "$LOGGER_CMD" -t "$LOG_TAG" -- "$*" >/dev/null 2>&1 || true
}

wait_for_hostname() {
    local waited=0 expected
    while :; do
        expected=""
        [[ -r "$HOSTNAME_FILE" ]] && expected="$(<"$HOSTNAME_FILE")"
        [[ -n "$expected" && "$(hostname)" == "$expected" ]] && return 0
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
            log "Ignoring reserved feature flag name ${key}"
            continue
        fi
        FEATURE_ENV+=("${key}=${value}")
        if [[ "$key" == "ENABLE_PROVISIONING_HOTFIX" ]]; then
            HOTFIX_FLAG="$value"
            HOTFIX_FLAG_SET="set"
        fi
    done <"$FEATURES_PATH"
}

# Runs the agent with a clean environment: PATH, HOME, LANG, AKS_NODE_ROOT, the hotfix flag and the
# feature flags. LAUNCHER_PASS_ENV="NAME ..." adds more names (never reserved hook names).
run_agent() {
    local -a env_args=("PATH=${PATH:-$DEFAULT_PATH}" "HOME=${HOME:-/root}")
    local name
    local -a extra=()
    read -r -a extra <<<"${LAUNCHER_PASS_ENV:-}"
    [[ -n "${LANG:-}" ]] && env_args+=("LANG=${LANG}")
    [[ -n "$NODE_ROOT" ]] && env_args+=("AKS_NODE_ROOT=${NODE_ROOT}")
    [[ -n "$HOTFIX_FLAG_SET" ]] && env_args+=("ENABLE_PROVISIONING_HOTFIX=${HOTFIX_FLAG}")
    for name in "${extra[@]}"; do
        [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        reserved_name "$name" && continue
        [[ -n "${!name+set}" ]] && env_args+=("${name}=${!name}")
    done
    env -i "${env_args[@]}" "${FEATURE_ENV[@]}" "$@"
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

if [[ "$HOTFIX_FLAG" == "true" ]]; then
    log "ENABLE_PROVISIONING_HOTFIX=true; running check-hotfix to refresh hotfix pointer"
    # Always the VHD binary: a staged hotfix must not decide about its own replacement.
    if run_agent "$BIN_PATH" check-hotfix; then
        log "ANC check-hotfix completed; hotfix pointer refresh attempted"
    else
        log "ANC check-hotfix failed; continuing (fail-open)"
    fi
fi

if [[ -f "$HOTFIX_JSON" ]]; then
    log "Found ANC hotfix config at ${HOTFIX_JSON}; running download-hotfix"
    if run_agent "$BIN_PATH" download-hotfix; then
        log "ANC download-hotfix completed; binary selection follows"
    else
        log "ANC download-hotfix failed; binary selection follows"
    fi
fi

# A hotfix binary staged by an earlier boot counts too, as long as it is executable.
if [[ -x "$HOTFIX_BIN" && -f "$HOTFIX_BIN" ]]; then
    SELECTED_BIN="$HOTFIX_BIN"
    log "Using hotfix binary: ${SELECTED_BIN}"
else
    SELECTED_BIN="$BIN_PATH"
    log "Using VHD-baked binary: ${SELECTED_BIN}"
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

run_agent "$SELECTED_BIN" "${PROVISION_ARGS[@]}" &
AGENT_PID=$!
log "Spawned aks-node-controller (pid ${AGENT_PID})"
wait "$AGENT_PID"
EXIT_CODE=$?
if [[ "$EXIT_CODE" -eq 0 ]]; then
    log "aks-node-controller completed successfully"
else
    log "aks-node-controller exited with code ${EXIT_CODE}"
    # The verdict with the exit code's name, the failing step and the timeline, for the journal and the
    # serial console (boot diagnostics) without SSH. Read-only; its own failure changes nothing.
    run_agent "$SELECTED_BIN" status || true
fi
exit "$EXIT_CODE"

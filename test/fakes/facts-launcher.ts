// A launcher built ONLY from the facts of the reference's public pull request text (issue 32, §3), never
// from its script: it lets the end-to-end tests boot a sandboxed node the way the reference's new seam does.
//   - the launcher sources a helper script when there is one; the helper being absent never stops it;
//   - the helper runs `check-hotfix` when ENABLE_PROVISIONING_HOTFIX is the literal `true` and
//     `download-hotfix` when the pointer file exists, each fail-open;
//   - it selects the binary, exported as ANC_HOTFIX_SELECTED_BIN: the hotfix binary when it is executable,
//     else the baked one, and logs `Using hotfix binary: <path>` or `Using VHD-baked binary: <path>`;
//   - with a hotfix selected it runs `<hotfix> apply-embedded-hotfix`, logs a failure and continues;
//   - then it provisions with the selected binary.
// ENABLE_PROVISIONING_HOTFIX comes from the environment, else from the boothook's features file (read as
// KEY=VALUE, never sourced).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FACTS_HELPER_NAME = 'aks-node-controller-hotfix-helper.sh';

export const FACTS_LAUNCHER = `#!/bin/bash
set -u
C="\${AKS_NODE_ROOT:-}/opt/azure/containers"
BAKED_BIN="\${C}/aks-node-controller"
HOTFIX_BIN="\${C}/aks-node-controller-hotfix"
POINTER="\${C}/aks-node-controller-hotfix.json"
CONFIG="\${C}/aks-node-controller-config.json"
FEATURES="\${C}/enabled_features.sh"
HELPER="\${C}/${FACTS_HELPER_NAME}"
log() { echo "facts-launcher: $*"; }

export ANC_HOTFIX_SELECTED_BIN="$BAKED_BIN"
if [[ -f "$HELPER" ]]; then
    # shellcheck source=/dev/null
    . "$HELPER" || log "hotfix helper failed (exit $?); continuing with $ANC_HOTFIX_SELECTED_BIN"
else
    log "hotfix helper $HELPER is absent; Using VHD-baked binary: $BAKED_BIN"
fi
log "provisioning with $ANC_HOTFIX_SELECTED_BIN"
"$ANC_HOTFIX_SELECTED_BIN" provision --provision-config="$CONFIG"
`;

export const FACTS_HELPER = `# Sourced by the facts launcher: refresh, select, apply. Never exits the launcher.
hotfix_flag="\${ENABLE_PROVISIONING_HOTFIX-}"
if [[ -z "\${ENABLE_PROVISIONING_HOTFIX+set}" && -f "$FEATURES" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do
        [[ "$line" == ENABLE_PROVISIONING_HOTFIX=* ]] && hotfix_flag="\${line#*=}"
    done <"$FEATURES"
fi
if [[ "$hotfix_flag" == "true" ]]; then
    "$BAKED_BIN" check-hotfix || log "check-hotfix failed (exit $?); continuing"
fi
if [[ -f "$POINTER" ]]; then
    "$BAKED_BIN" download-hotfix || log "download-hotfix failed (exit $?); continuing"
fi
if [[ -x "$HOTFIX_BIN" ]]; then
    ANC_HOTFIX_SELECTED_BIN="$HOTFIX_BIN"
    log "Using hotfix binary: $HOTFIX_BIN"
else
    ANC_HOTFIX_SELECTED_BIN="$BAKED_BIN"
    log "Using VHD-baked binary: $BAKED_BIN"
fi
export ANC_HOTFIX_SELECTED_BIN
if [[ "$ANC_HOTFIX_SELECTED_BIN" == "$HOTFIX_BIN" ]]; then
    "$HOTFIX_BIN" apply-embedded-hotfix || log "apply-embedded-hotfix failed (exit $?); continuing"
fi
true
`;

/** Replaces the image's launcher (at `launcherPath`) with the facts launcher, and adds the helper beside it. */
export function installFactsLauncher(launcherPath: string, options: { helper?: boolean } = {}): void {
  writeFileSync(launcherPath, FACTS_LAUNCHER);
  chmodSync(launcherPath, 0o755);
  if (options.helper !== false) writeFileSync(join(launcherPath, '..', FACTS_HELPER_NAME), FACTS_HELPER, { mode: 0o644 });
}

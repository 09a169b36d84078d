// Custom Linux OS config: swap, transparent huge pages, containerd ulimits, sysctl (config-contract
// 3.2.10, 3.3.3, 3.3.4).
import type { Configuration, UlimitConfig } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { renderSysctl } from '../templates/sysctl.ts';
import { base64, bool, int, type EnvPart } from './format.ts';

/** `[Service] ` then `LimitMEMLOCK=<v> ` / `LimitNOFILE=<v> ` for present fields; '' when absent. */
export function containerdUlimits(ulimits: UlimitConfig | undefined): string {
  if (ulimits === undefined) return '';
  let text = '[Service] ';
  if (ulimits.maxLockedMemory !== undefined) text += `LimitMEMLOCK=${ulimits.maxLockedMemory} `;
  if (ulimits.noFile !== undefined) text += `LimitNOFILE=${ulimits.noFile} `;
  return text;
}

export function osConfigEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const os = config.customLinuxOsConfig ?? {};
  const thp = os.transparentHugepageSupport ?? '';
  const defrag = os.transparentDefrag ?? '';
  return {
    SHOULD_CONFIG_SWAP_FILE: bool(os.enableSwapConfig === true && (os.swapFileSize ?? 0) > 0),
    SWAP_FILE_SIZE_MB: int(os.swapFileSize),
    SHOULD_CONFIG_TRANSPARENT_HUGE_PAGE: bool(thp !== '' || defrag !== ''),
    THP_ENABLED: thp,
    THP_DEFRAG: defrag,
    SHOULD_CONFIG_CONTAINERD_ULIMITS: bool(os.ulimitConfig !== undefined),
    CONTAINERD_ULIMITS: containerdUlimits(os.ulimitConfig),
    SYSCTL_CONTENT: base64(renderSysctl(os.sysctlConfig)),
  };
}

// The provisioning script (upstream parser/templates/cse_cmd.sh.gtpl, config-contract 4.1): static text,
// newlines collapsed to single spaces. The on-node paths come from the path table so a sandbox root
// (AKS_NODE_ROOT) prefixes them; system programs (/bin/bash, /usr/bin/nohup) are never prefixed.
// The root is inserted verbatim, so it must not contain shell-special characters.
import type { NodePaths } from '../../platform/paths.ts';

export const BASH = '/bin/bash';
const NOHUP = '/usr/bin/nohup';

export function cseScriptLines(paths: NodePaths): string[] {
  return [
    'echo $(date),$(hostname) > ${PROVISION_OUTPUT};',
    'if [ -f "${INIT_AKS_CLOUD_FILEPATH}" ]; then',
    `\t"\${INIT_AKS_CLOUD_FILEPATH}" >> ${paths.clusterProvisionLog} 2>&1 || exit $?;`,
    'fi;',
    `${NOHUP} ${BASH} -c "${BASH} ${paths.provisionStart}"`,
  ];
}

/** The one-liner run by `/bin/bash -c` (every `\n` of the template, including the last, becomes a space). */
export function cseOneLiner(paths: NodePaths): string {
  return cseScriptLines(paths)
    .map((line) => `${line} `)
    .join('');
}

// Constants and on-node file paths (config-contract 3.2.1). Every path comes from the node path table, so
// under AKS_NODE_ROOT it carries the sandbox prefix; unsandboxed it is exactly the reference value.
import type { Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { KUBENET_CNI_TEMPLATE } from '../templates/kubenet.ts';
import { base64, type EnvPart } from './format.ts';

export function filesEnv(_config: Configuration, _facts: MachineFacts, paths: NodePaths): EnvPart {
  return {
    // Configuration.provision_output is ignored on purpose: the reference uses the constant.
    PROVISION_OUTPUT: paths.provisionOutput,
    MOBY_VERSION: '',
    CLI_TOOL: 'ctr',
    NETWORK_MODE: '',
    CSE_HELPERS_FILEPATH: paths.cseHelpers,
    CSE_DISTRO_HELPERS_FILEPATH: paths.cseDistroHelpers,
    CSE_INSTALL_FILEPATH: paths.cseInstall,
    CSE_DISTRO_INSTALL_FILEPATH: paths.cseDistroInstall,
    CSE_CONFIG_FILEPATH: paths.cseConfig,
    CUSTOM_SEARCH_DOMAIN_FILEPATH: paths.customSearchDomainScript,
    DHCPV6_SERVICE_FILEPATH: paths.dhcpv6Service,
    DHCPV6_CONFIG_FILEPATH: paths.dhcpv6Config,
    INIT_AKS_CLOUD_FILEPATH: paths.initAksCloud,
    KUBENET_TEMPLATE: base64(KUBENET_CNI_TEMPLATE),
    SKIP_WAAGENT_HOLD: 'true',
    NETWORK_ISOLATED_CLUSTER_TEST_MODE: 'false',
  };
}

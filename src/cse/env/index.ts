// The CSE environment (config-contract 3): the union of small area builders, composed in a fixed order.
// Each builder is (config, facts, paths) -> partial env; a key produced twice is a programming error and
// is rejected. Pure: machine facts come in as input, nothing is read or written here.
import type { Configuration } from '../../config/types.ts';
import { AgentError } from '../../platform/errors.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { Secret } from '../../platform/secret.ts';
import type { MachineFacts } from '../facts.ts';
import { authEnv, bootstrapEnv, imagePullEnv, searchDomainEnv } from './auth.ts';
import { binariesEnv, clusterEnv } from './cluster.ts';
import { cloudEnv } from './cloud.ts';
import { cloudProviderEnv, loadBalancerEnv } from './cloud-provider.ts';
import { containerdEnv } from './containerd.ts';
import { filesEnv } from './files.ts';
import type { EnvPart } from './format.ts';
import { gpuEnv } from './gpu.ts';
import { kubeletEnv } from './kubelet.ts';
import { localDnsEnv } from './localdns.ts';
import { imdsEnv, networkEnv } from './network.ts';
import { nodeEnv } from './node.ts';
import { osConfigEnv } from './os-config.ts';
import { customCaEnv, proxyEnv } from './proxy.ts';

export type AreaBuilder = (config: Configuration, facts: MachineFacts, paths: NodePaths) => EnvPart;

/** The areas in composition order (the order also used by docs/provisioning-env.md). */
export const ENV_AREAS: ReadonlyArray<readonly [string, AreaBuilder]> = [
  ['files', filesEnv],
  ['cluster', clusterEnv],
  ['auth', authEnv],
  ['binaries', binariesEnv],
  ['load-balancer', loadBalancerEnv],
  ['cloud-provider', cloudProviderEnv],
  ['network', networkEnv],
  ['containerd', containerdEnv],
  ['node', nodeEnv],
  ['os-config', osConfigEnv],
  ['proxy', proxyEnv],
  ['custom-ca', customCaEnv],
  ['cloud', cloudEnv],
  ['search-domain', searchDomainEnv],
  ['bootstrap', bootstrapEnv],
  ['kubelet', kubeletEnv],
  ['gpu', gpuEnv],
  ['imds', imdsEnv],
  ['localdns', localDnsEnv],
  ['image-pull', imagePullEnv],
];

/** Merges area outputs in order; throws ANC_INTERNAL when two areas produce the same key. */
export function composeEnv(parts: ReadonlyArray<readonly [string, EnvPart]>): Record<string, string | Secret> {
  const env: Record<string, string | Secret> = {};
  const owner = new Map<string, string>();
  for (const [area, part] of parts) {
    for (const [key, value] of Object.entries(part)) {
      const first = owner.get(key);
      if (first !== undefined) {
        throw new AgentError('ANC_INTERNAL', `env variable ${key} is produced by both ${first} and ${area}`);
      }
      owner.set(key, area);
      env[key] = value;
    }
  }
  return env;
}

/** The 164 fixed CSE variables plus one CUSTOM_CA_CERT_<i> per custom CA (secrets as Secret values). */
export function buildCseEnv(config: Configuration, facts: MachineFacts, paths: NodePaths): Record<string, string | Secret> {
  return composeEnv(ENV_AREAS.map(([area, build]) => [area, build(config, facts, paths)] as const));
}

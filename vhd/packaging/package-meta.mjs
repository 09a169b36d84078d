// What both package builders share: the architectures, the maintainer and homepage fields, and how a
// packaging tool runs. Its own module so build-packages.mjs and build-delta-packages.mjs do not import
// each other.
import { execFileSync } from 'node:child_process';

export const ARCHES = {
  amd64: { deb: 'amd64', rpm: 'x86_64' },
  arm64: { deb: 'arm64', rpm: 'aarch64' },
};
export const MAINTAINER = process.env.PACKAGE_MAINTAINER ?? 'AKS node controller maintainers <aks-node-controller@example.invalid>';
export const HOMEPAGE = 'https://github.com/Azure/AgentBaker';
export const run = (program, args, options = {}) => execFileSync(program, args, { maxBuffer: 512 * 1024 * 1024, ...options });

// What both package builders share: the architectures, the maintainer and homepage fields, and how a
// packaging tool runs. Its own module so build-packages.mjs and build-delta-packages.mjs do not import
// each other.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const ARCHES = {
  amd64: { deb: 'amd64', rpm: 'x86_64' },
  arm64: { deb: 'arm64', rpm: 'aarch64' },
};
export const MAINTAINER = process.env.PACKAGE_MAINTAINER ?? 'AKS node controller maintainers <aks-node-controller@example.invalid>';
export const HOMEPAGE = 'https://github.com/Azure/AgentBaker';
export const run = (program, args, options = {}) => execFileSync(program, args, { maxBuffer: 512 * 1024 * 1024, ...options });

/** `Wed Apr 01 2026`, the day of SOURCE_DATE_EPOCH, for an rpm %changelog entry. */
export function rpmChangelogDate(epoch) {
  const day = new Date(Number(epoch) * 1000).toUTCString().split(' ');
  return `${day[0].replace(',', '')} ${day[2]} ${day[1]} ${day[3]}`;
}

/** The copyright file with the homepage filled in (the full and the delta packages ship it). */
export const copyrightText = () => readFileSync(join(here, 'copyright'), 'utf8').replaceAll('@HOMEPAGE@', HOMEPAGE);

// RPM repository metadata (pure): repomd.xml's primary entry and the primary index's entry for our
// package (createrepo_c's XML, read with targeted patterns: only what the fast path needs).
import { PACKAGE_NAME } from './packages-index.ts';

export interface RepoFile {
  href: string;
  sha256: string;
  size?: number;
}

export interface Repomd {
  revision?: number;
  primary: RepoFile;
  /** The hotfix index's binding: `<tags><repo>aks-node-controller-repository:PATH</repo></tags>`. */
  boundRepository?: string;
}

export const BINDING_TAG = 'aks-node-controller-repository:';
const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

const tag = (xml: string, name: string) => new RegExp(`<${name}\\b[^>]*>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
const attr = (xml: string, element: string, name: string) => new RegExp(`<${element}\\b[^>]*\\b${name}="([^"]*)"`).exec(xml)?.[1];

export function parseRepomd(xml: string): Repomd | string {
  const primary = /<data\s+type="primary"\s*>([\s\S]*?)<\/data>/.exec(xml)?.[1];
  if (!primary) return 'repomd.xml has no primary data';
  const type = attr(primary, 'checksum', 'type');
  const sha256 = tag(primary, 'checksum')?.toLowerCase();
  const href = attr(primary, 'location', 'href');
  if (type !== 'sha256' || !sha256 || !/^[0-9a-f]{64}$/.test(sha256) || !href)
    return 'repomd.xml primary entry lacks a sha256 checksum or location';
  const size = Number(tag(primary, 'size'));
  const revision = Number(tag(xml, 'revision'));
  const bound = [...xml.matchAll(/<repo>([^<]*)<\/repo>/g)].map((m) => unescapeXml(m[1]!.trim())).find((t) => t.startsWith(BINDING_TAG));
  return {
    ...(bound === undefined ? {} : { boundRepository: bound.slice(BINDING_TAG.length) }),
    revision: Number.isSafeInteger(revision) ? revision : undefined,
    primary: { href, sha256, size: Number.isSafeInteger(size) && size > 0 ? size : undefined },
  };
}

export interface RpmEntry extends RepoFile {
  version: string;
  release: string;
  arch: string;
  size: number;
}

const numericRelease = (a: string, b: string) => (Number(a) || 0) - (Number(b) || 0) || a.localeCompare(b);

/**
 * Our package at exactly `version` (`YYYYMM.DD.PATCH[-REL]`: the revision, when given, is the release)
 * for `arch`; without a revision the highest release of that version.
 */
export function findRpmEntry(primary: string, version: string, arch: string, name = PACKAGE_NAME): RpmEntry | string {
  const [ver, rel] = version.split('-') as [string, string | undefined];
  const marker = `<name>${name}</name>`;
  const found: RpmEntry[] = [];
  for (let at = primary.indexOf(marker); at >= 0; at = primary.indexOf(marker, at + 1)) {
    const start = primary.lastIndexOf('<package', at);
    const end = primary.indexOf('</package>', at);
    if (start < 0 || end < 0) break;
    const block = primary.slice(start, end);
    const entry = {
      version: attr(block, 'version', 'ver') ?? '',
      release: attr(block, 'version', 'rel') ?? '',
      arch: tag(block, 'arch') ?? '',
      href: attr(block, 'location', 'href') ?? '',
      sha256: (tag(block, 'checksum') ?? '').toLowerCase(),
      size: Number(attr(block, 'size', 'package')),
      checksumType: attr(block, 'checksum', 'type'),
    };
    if (entry.version !== ver || (rel !== undefined && entry.release !== rel) || entry.arch !== arch) continue;
    if (entry.checksumType !== 'sha256' || !/^[0-9a-f]{64}$/.test(entry.sha256) || !entry.href || !(entry.size > 0)) {
      return `${name} ${version}: primary entry lacks a sha256 checksum, size or location`;
    }
    found.push(entry);
  }
  found.sort((a, b) => numericRelease(b.release, a.release));
  return found[0] ?? `${name} ${version} for ${arch} is not in the primary index`;
}

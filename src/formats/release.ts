// The verified text of a Debian Release file (pure): dates and the SHA256 table of the indices, per the
// Debian repository format (wiki.debian.org/DebianRepository/Format).

export interface ReleaseFile {
  date?: Date;
  validUntil?: Date;
  /** Index path relative to the Release directory -> size and SHA-256. */
  sha256: Map<string, { size: number; sha256: string }>;
  suite?: string;
  /** The hotfix index's binding (publish-hotfix-index.sh): the repository path it was published for. */
  boundRepository?: string;
}

/** The Release field that binds a hotfix index to its repository (docs/hotfix.md "The hotfix index"). */
export const BINDING_FIELD = 'Aks-Node-Controller-Repository';

export type Compression = 'zst' | 'gz' | 'xz' | 'none';

export function parseRelease(text: string): ReleaseFile | string {
  const fields = new Map<string, string>();
  let last = '';
  for (const line of text.split('\n')) {
    if (/^[ \t]/.test(line) && last) {
      fields.set(last, `${fields.get(last)}\n${line.trim()}`);
    } else if (line.includes(':')) {
      last = line.slice(0, line.indexOf(':')).trim().toLowerCase();
      fields.set(last, line.slice(line.indexOf(':') + 1).trim());
    }
  }
  const sha256 = new Map<string, { size: number; sha256: string }>();
  for (const row of (fields.get('sha256') ?? '').split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+(\d+)\s+(\S+)$/.exec(row.trim());
    if (m) sha256.set(m[3]!, { size: Number(m[2]), sha256: m[1]!.toLowerCase() });
  }
  const release: ReleaseFile = { sha256 };
  const suite = fields.get('suite');
  if (suite !== undefined) release.suite = suite;
  const bound = fields.get(BINDING_FIELD.toLowerCase());
  if (bound !== undefined) release.boundRepository = bound;
  for (const [key, field] of [
    ['date', 'date'],
    ['validUntil', 'valid-until'],
  ] as const) {
    const value = fields.get(field);
    if (value === undefined) continue;
    const parsed = new Date(value.replace(/\bUTC$/, 'GMT'));
    if (Number.isNaN(parsed.getTime())) return `unreadable ${field === 'date' ? 'Date' : 'Valid-Until'} ${JSON.stringify(value)}`;
    release[key] = parsed;
  }
  return release;
}

/**
 * The Packages index to fetch, preferring what is cheapest to fetch and unpack here: zstd when the node can
 * read it (the tool, or the runtime's decoder), then gzip, plain, xz. Undefined when the Release lists none of them.
 */
export function choosePackagesIndex(
  release: ReleaseFile,
  stem: string,
  canReadZstd: boolean,
): { path: string; compression: Compression } | undefined {
  const order: Compression[] = canReadZstd ? ['zst', 'gz', 'none', 'xz'] : ['gz', 'none', 'zst', 'xz'];
  for (const compression of order) {
    const path = compression === 'none' ? stem : `${stem}.${compression}`;
    if (release.sha256.has(path)) return { path, compression };
  }
  return undefined;
}

// The Debian Packages index (pure): find the one stanza of `aks-node-controller` with exactly the
// requested Version and the node's Architecture. Only stanzas of that package are parsed, so an index of
// thousands of entries costs one scan.

export interface DebEntry {
  version: string;
  architecture: string;
  filename: string;
  size: number;
  sha256: string;
}

export const PACKAGE_NAME = 'aks-node-controller';

function stanzaFields(stanza: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of stanza.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !/^[ \t]/.test(line)) fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}

/** Every stanza of our package (or of `name`), in index order. */
export function packageStanzas(index: string, name = PACKAGE_NAME): Array<Map<string, string>> {
  const out: Array<Map<string, string>> = [];
  const marker = `Package: ${name}\n`;
  for (let at = index.indexOf(marker); at >= 0; at = index.indexOf(marker, at + marker.length)) {
    if (at > 0 && index[at - 1] !== '\n') continue;
    const end = index.indexOf('\n\n', at);
    out.push(stanzaFields(index.slice(at, end < 0 ? undefined : end)));
  }
  return out;
}

/** The entry for exactly `version` on `arch` (or `all`), or a reason why there is none. */
export function findDebEntry(index: string, version: string, arch: string, name = PACKAGE_NAME): DebEntry | string {
  const stanzas = packageStanzas(index, name);
  const match = stanzas.find((f) => f.get('version') === version && (f.get('architecture') === arch || f.get('architecture') === 'all'));
  if (!match) {
    const seen = stanzas
      .map((f) => `${f.get('version')}/${f.get('architecture')}`)
      .slice(-5)
      .join(', ');
    return `${name} ${version} for ${arch} is not in the index${seen ? ` (has ${seen})` : ''}`;
  }
  const size = Number(match.get('size'));
  const sha256 = match.get('sha256')?.toLowerCase() ?? '';
  const filename = match.get('filename') ?? '';
  if (!filename || !Number.isSafeInteger(size) || size <= 0 || !/^[0-9a-f]{64}$/.test(sha256)) {
    return `${name} ${version}: index entry lacks Filename, Size or SHA256`;
  }
  return { version, architecture: match.get('architecture')!, filename, size, sha256 };
}

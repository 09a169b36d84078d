// The node's Microsoft apt source (pure): the one-line `.list` form or the deb822 `.sources` form, as
// apt's sources.list(5) defines them. Only `deb` entries count. `signed-by` paths are kept exactly as
// written (apt reads them that way, inside a sandbox too); a deb822 Signed-By may embed the key itself.

export interface AptSource {
  uri: string;
  suite: string;
  /** Empty for a flat repository (suite ends in `/`). */
  components: string[];
  /** Architecture filter (`arch=` / `Architectures:`), undefined when absent. */
  architectures?: string[];
  /** Keyring files as written, or an armored key embedded in a deb822 stanza. */
  signedBy: { files: string[]; embedded?: string } | undefined;
  /** `trusted=yes`: apt skips verification; the fast path cannot prove anything and steps aside. */
  trusted: boolean;
}

export type AptSourceResult = { ok: true; entries: AptSource[] } | { ok: false; problem: string };

const list = (value: string | undefined) => (value ? value.split(/[\s,]+/).filter(Boolean) : undefined);

function signedBy(value: string | undefined): AptSource['signedBy'] {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) return { files: [], embedded: value };
  return { files: list(value)! };
}

/** One-line format: `deb [opt=value ...] uri suite [component ...]`. */
export function parseOneLineSources(text: string): AptSourceResult {
  const entries: AptSource[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    const m = /^(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)((?:\s+\S+)*)$/.exec(line);
    if (!m) return { ok: false, problem: `unreadable source line ${JSON.stringify(line)}` };
    if (m[1] !== 'deb') continue;
    const options = new Map<string, string>();
    for (const option of (m[2] ?? '').trim().split(/\s+/).filter(Boolean)) {
      const eq = option.indexOf('=');
      if (eq > 0) options.set(option.slice(0, eq).toLowerCase(), option.slice(eq + 1));
    }
    entries.push({
      uri: m[3]!,
      suite: m[4]!,
      components: list(m[5]) ?? [],
      architectures: list(options.get('arch')),
      signedBy: signedBy(options.get('signed-by')),
      trusted: options.get('trusted') === 'yes',
    });
  }
  return { ok: true, entries };
}

/** deb822 stanzas: field names case-insensitive, continuation lines start with a space (` .` = empty). */
export function parseDeb822Sources(text: string): AptSourceResult {
  const entries: AptSource[] = [];
  for (const stanza of text.split(/\n[ \t]*\n/)) {
    const fields = new Map<string, string>();
    let last = '';
    for (const raw of stanza.split('\n')) {
      if (/^\s*#/.test(raw) || raw.trim() === '') continue;
      if (/^[ \t]/.test(raw) && last) {
        const more = raw.trim() === '.' ? '' : raw.trim();
        fields.set(last, `${fields.get(last)}\n${more}`);
        continue;
      }
      const colon = raw.indexOf(':');
      if (colon <= 0) return { ok: false, problem: `unreadable deb822 line ${JSON.stringify(raw)}` };
      last = raw.slice(0, colon).trim().toLowerCase();
      fields.set(last, raw.slice(colon + 1).trim());
    }
    if (fields.size === 0) continue;
    if (!(list(fields.get('types')) ?? []).includes('deb') || fields.get('enabled')?.toLowerCase() === 'no') continue;
    const uris = list(fields.get('uris')) ?? [];
    const suites = list(fields.get('suites')) ?? [];
    if (uris.length === 0 || suites.length === 0) return { ok: false, problem: 'deb822 stanza without URIs or Suites' };
    for (const uri of uris) {
      for (const suite of suites) {
        entries.push({
          uri,
          suite,
          components: list(fields.get('components')) ?? [],
          architectures: list(fields.get('architectures')),
          signedBy: signedBy(fields.get('signed-by')),
          trusted: fields.get('trusted')?.toLowerCase() === 'yes',
        });
      }
    }
  }
  return { ok: true, entries };
}

/** Where InRelease and the indices live: `<uri>/dists/<suite>/` or, flat, `<uri>/<suite>`. */
export function releaseDirectory(source: AptSource): string {
  const uri = source.uri.endsWith('/') ? source.uri : `${source.uri}/`;
  if (source.suite.endsWith('/')) return source.suite === './' ? uri : `${uri}${source.suite}`;
  return `${uri}dists/${source.suite}/`;
}

// /etc/os-release: the `ID=` rule of spec 6.4 (first line starting with ID=, `"` trimmed, lowercased).

export function parseOsReleaseId(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('ID=')) return line.slice(3).replace(/^"+|"+$/g, '').toLowerCase();
  }
  return undefined;
}

/** Any `KEY=value` field (quotes trimmed), e.g. VERSION_ID for dnf's $releasever. */
export function parseOsReleaseField(text: string, key: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith(`${key}=`)) return line.slice(key.length + 1).replace(/^["']+|["']+$/g, '');
  }
  return undefined;
}

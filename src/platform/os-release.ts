// /etc/os-release: the `ID=` rule of spec 6.4 (first line starting with ID=, `"` trimmed, lowercased).

export function parseOsReleaseId(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('ID=')) return line.slice(3).replace(/^"+|"+$/g, '').toLowerCase();
  }
  return undefined;
}

// /etc/os-release: the `ID=` rule of spec 6.4 (first line starting with ID=, `"` trimmed, lowercased).
import { goToLower, goTrimSpace } from './go/strings.ts';

export function parseOsReleaseId(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = goTrimSpace(raw);
    if (line.startsWith('ID=')) return goToLower(line.slice(3).replace(/^"+|"+$/g, ''));
  }
  return undefined;
}

// OpenPGP ASCII armor (RFC 4880 section 6), pure: apt accepts armored `.asc` keyrings and deb822 sources
// may embed one, while gpgv wants binary keyrings. Concatenated blocks become one binary keyring.

const BEGIN = /-----BEGIN PGP PUBLIC KEY BLOCK-----/g;

export function isArmored(data: Uint8Array): boolean {
  return Buffer.from(data.subarray(0, 4096)).toString('latin1').includes('-----BEGIN PGP PUBLIC KEY BLOCK-----');
}

/** The binary packets of every armored public-key block in `text`, or undefined when none is readable. */
export function dearmorPublicKeys(text: string): Buffer | undefined {
  const blocks: Buffer[] = [];
  for (const start of text.matchAll(BEGIN)) {
    const rest = text.slice(start.index! + start[0].length);
    const end = rest.indexOf('-----END PGP PUBLIC KEY BLOCK-----');
    if (end < 0) return undefined;
    // Armor headers end at the first empty line; the body ends before the `=XXXX` CRC-24 line.
    const lines = rest
      .slice(0, end)
      .split('\n')
      .map((l) => l.trim());
    const blank = lines.findIndex((l, i) => i > 0 && l === '');
    const body = lines.slice(blank < 0 ? 0 : blank + 1).filter((l) => l && !l.startsWith('='));
    blocks.push(Buffer.from(body.join(''), 'base64'));
  }
  return blocks.length ? Buffer.concat(blocks) : undefined;
}

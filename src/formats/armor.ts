// OpenPGP ASCII armor (RFC 4880 section 6), pure: apt accepts armored `.asc` keyrings and deb822 sources
// may embed one, while gpgv wants binary keyrings. Concatenated blocks become one binary keyring.

import { dearmorBlocks } from './openpgp-shape.ts';

export function isArmored(data: Uint8Array): boolean {
  return Buffer.from(data.subarray(0, 4096)).toString('latin1').includes('-----BEGIN PGP PUBLIC KEY BLOCK-----');
}

/** The binary packets of every armored public-key block in `text`, or undefined when none is readable. */
export function dearmorPublicKeys(text: string): Buffer | undefined {
  const blocks = dearmorBlocks(text, 'PUBLIC KEY BLOCK');
  return blocks ? Buffer.concat(blocks) : undefined;
}

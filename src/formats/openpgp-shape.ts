// What a signature must look like before gpgv may read it (RFC 4880 sections 4.2, 6.2, 7), pure. gpgv
// processes whatever OpenPGP message it is handed, before any key is involved: an unsigned message holding a
// compressed packet makes it inflate gigabytes (`--output`) or burn CPU until its own timeout. So an
// InRelease must be a clearsigned document and every signature (its armored block, repomd.xml.asc) must
// be nothing but Signature packets of a plausible size. Anything else is refused here, unsigned as it is.

const MAX_SIGNATURE_BYTES = 64 * 1024;
const MAX_PACKETS = 16;
const SIGNATURE_TAG = 2;

/** The binary body of every `-----BEGIN PGP <label>-----` block in `text` (armor headers and CRC dropped). */
export function dearmorBlocks(text: string, label: string): Buffer[] | undefined {
  const begin = `-----BEGIN PGP ${label}-----`;
  const blocks: Buffer[] = [];
  for (let at = text.indexOf(begin); at >= 0; at = text.indexOf(begin, at + begin.length)) {
    const rest = text.slice(at + begin.length);
    const end = rest.indexOf(`-----END PGP ${label}-----`);
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
  return blocks.length ? blocks : undefined;
}

/** Why `packets` is not a plain sequence of Signature packets, or undefined when it is. */
export function signaturePacketsProblem(packets: Uint8Array): string | undefined {
  if (packets.length === 0) return 'no signature packet';
  if (packets.length > MAX_SIGNATURE_BYTES) return `signature of ${packets.length} bytes (at most ${MAX_SIGNATURE_BYTES})`;
  let count = 0;
  for (let at = 0; at < packets.length; count++) {
    if (count >= MAX_PACKETS) return `more than ${MAX_PACKETS} packets`;
    const first = packets[at]!;
    if (!(first & 0x80)) return `not an OpenPGP packet at byte ${at}`;
    let tag: number;
    let length: number;
    let header: number;
    if (first & 0x40) {
      tag = first & 0x3f;
      const o = packets[at + 1] ?? 0;
      if (o < 192) [length, header] = [o, 2];
      else if (o < 224) [length, header] = [((o - 192) << 8) + (packets[at + 2] ?? 0) + 192, 3];
      else if (o === 255) [length, header] = [Buffer.from(packets.subarray(at + 2, at + 6)).readUInt32BE(0), 6];
      else return 'partial-length packet (never a signature)';
    } else {
      tag = (first >> 2) & 0x0f;
      const type = first & 3;
      if (type === 3) return 'indeterminate-length packet (never a signature)';
      header = 1 + [1, 2, 4][type]!;
      length = 0;
      for (let i = 1; i < header; i++) length = length * 256 + (packets[at + i] ?? 0);
    }
    if (tag !== SIGNATURE_TAG) return `packet of type ${tag} where only signatures (type 2) belong`;
    if (at + header + length > packets.length) return 'truncated signature packet';
    at += header + length;
  }
  return undefined;
}

/** Why a clearsigned document (InRelease) may not go to gpgv, or undefined. */
export function clearsignedProblem(text: string): string | undefined {
  if (!/^\s*-----BEGIN PGP SIGNED MESSAGE-----\r?\n/.test(text)) return 'not a clearsigned document (no BEGIN PGP SIGNED MESSAGE line)';
  // Only a line that starts with the marker begins the signature (the signed text dash-escapes its own).
  const marker = '\n-----BEGIN PGP SIGNATURE-----';
  const at = text.indexOf(marker);
  if (at < 0 || text.indexOf(marker, at + 1) >= 0) return 'not exactly one signature block';
  const blocks = dearmorBlocks(text.slice(at), 'SIGNATURE');
  if (blocks?.length !== 1) return 'unreadable signature block';
  return signaturePacketsProblem(blocks[0]!);
}

/** Why a detached signature (armored or binary) may not go to gpgv, or undefined. */
export function detachedProblem(signature: Uint8Array): string | undefined {
  const head = Buffer.from(signature.subarray(0, 64)).toString('latin1');
  if (!head.includes('-----BEGIN PGP')) return signaturePacketsProblem(signature);
  const blocks = dearmorBlocks(Buffer.from(signature).toString('latin1'), 'SIGNATURE');
  if (blocks?.length !== 1) return 'not exactly one armored signature block';
  return signaturePacketsProblem(blocks[0]!);
}

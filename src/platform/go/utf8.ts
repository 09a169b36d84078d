// Go's reading of bytes as text where the reference decodes a file with encoding/json (issue 32, N7): every
// byte that does not start a valid UTF-8 sequence becomes ONE U+FFFD (utf8.DecodeRune returns RuneError,
// size 1), so a cut 3-byte sequence `E2 82` is two U+FFFD. A WHATWG decoder (Buffer.toString, TextDecoder)
// replaces the maximal invalid subpart with one, so it differs wherever a sequence is cut short. Pure.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** The length of the valid UTF-8 sequence at `i` (Go's acceptance ranges), or 0 when the byte starts none. */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const [lo, hi] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const [lo, hi] = c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * Marks an invalid byte for Go's json.Marshal (N13): a lone surrogate, which goJson writes as the escape
 * `\ufffd`, one per byte, where Go writes it for invalid UTF-8 (a valid U+FFFD stays the character).
 */
export const MARSHAL_INVALID_BYTE = '\udcfd';

/** The text Go's encoding/json sees in `bytes`: valid UTF-8 as is, one `replacement` (U+FFFD) per invalid byte. */
export function goText(bytes: Uint8Array, replacement = '\ufffd'): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Some byte is invalid: walk it (rare; the valid runs are decoded in one piece each).
  }
  let out = '';
  let from = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += `${lenient.decode(bytes.subarray(from, i))}${replacement}`;
    from = i += 1;
  }
  return out + lenient.decode(bytes.subarray(from));
}

// Go strconv integer parsing (the reference agent is Go): an optional sign (signed only), digits of the
// base, nothing else, and a range error beyond the bit size, where JavaScript's Number() would quietly
// round a 20-digit value and accept it. Results are bigint so that every int64 / uint64 value is exact.
// Used for: provision.json ExitCode (Atoi, spec 5), the sysctl port range (Atoi, config-contract
// 3.3.3), write_files permissions (ParseUint base 8, 32 bits, reference-agent 9). Pure.

const DIGITS: Record<number, RegExp> = { 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };

function digits(text: string, base: 8 | 10 | 16): bigint | undefined {
  if (!DIGITS[base]!.test(text)) return undefined;
  const prefix = base === 8 ? '0o' : base === 16 ? '0x' : '';
  return BigInt(prefix + text);
}

/** Go strconv.ParseInt(text, base, bits): undefined where Go returns an error (syntax or range). */
export function goParseInt(text: string, base: 8 | 10 | 16 = 10, bits = 64): bigint | undefined {
  const negative = text.startsWith('-');
  const magnitude = digits(text.startsWith('+') || negative ? text.slice(1) : text, base);
  if (magnitude === undefined) return undefined;
  const value = negative ? -magnitude : magnitude;
  const limit = 1n << BigInt(bits - 1);
  return value >= -limit && value < limit ? value : undefined;
}

/** Go strconv.ParseUint(text, base, bits): no sign allowed. */
export function goParseUint(text: string, base: 8 | 10 | 16 = 10, bits = 64): bigint | undefined {
  const value = digits(text, base);
  return value !== undefined && value < 1n << BigInt(bits) ? value : undefined;
}

/** Go strconv.Atoi: ParseInt(text, 10, 0) with Go's 64-bit int. */
export const goAtoi = (text: string): bigint | undefined => goParseInt(text, 10, 64);

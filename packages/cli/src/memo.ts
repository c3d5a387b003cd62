/**
 * Checks a payment memo the way the server encodes it into the TIP-20 `bytes32`: `0x` + an even number (2…64) of
 * hex digits is raw bytes; any other text is UTF-8 and must fit in 32 bytes. Returns an error message or null.
 */
export function memoProblem(memo: string): string | null {
  if (/^0x[0-9a-fA-F]*$/.test(memo)) {
    const digits = memo.length - 2;
    if (digits === 0) return "a hex memo needs at least one byte after 0x";
    if (digits % 2 !== 0) return `hex memo ${memo} has an odd number of digits`;
    if (digits > 64) return `hex memo is ${digits / 2} bytes; at most 32 fit`;
    return null;
  }
  const bytes = new TextEncoder().encode(memo).length;
  if (bytes > 32) return `memo is ${bytes} bytes of UTF-8; at most 32 fit (the memo is a bytes32)`;
  return null;
}

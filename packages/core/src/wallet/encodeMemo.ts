import { MEMO_BYTES } from "./constants.ts";

export type EncodedMemo = { ok: true; bytes32: `0x${string}`; memo: string | null } | { ok: false; reason: string };

const ZERO = `0x${"0".repeat(64)}` as const;

/**
 * A payment memo → the TIP-20 `bytes32`:
 * - absent, null or "" → 32 zero bytes (`memo: null`);
 * - `0x` + 1…64 hex digits (even count) → those bytes, left-aligned, right-padded with zeros;
 * - any other string → its UTF-8 bytes (at most 32), right-padded with zeros.
 */
export function encodeMemo(input: unknown): EncodedMemo {
  if (input === undefined || input === null || input === "") return { ok: true, bytes32: ZERO, memo: null };
  if (typeof input !== "string") return { ok: false, reason: "memo must be a string" };
  if (/^0x/i.test(input)) {
    const hex = input.slice(2);
    if (!/^[0-9a-fA-F]*$/.test(hex)) return { ok: false, reason: "a memo starting with 0x must be hex" };
    if (hex.length === 0 || hex.length > MEMO_BYTES * 2) return { ok: false, reason: "a hex memo has 1 to 32 bytes" };
    if (hex.length % 2 !== 0) return { ok: false, reason: "a hex memo needs an even number of digits" };
    return { ok: true, bytes32: `0x${hex.toLowerCase().padEnd(64, "0")}`, memo: input };
  }
  const bytes = Buffer.from(input, "utf8");
  if (bytes.length > MEMO_BYTES) return { ok: false, reason: `a text memo is at most ${MEMO_BYTES} bytes of UTF-8 (got ${bytes.length})` };
  if (input.includes("\u0000")) return { ok: false, reason: "a text memo cannot contain NUL characters" };
  return { ok: true, bytes32: `0x${bytes.toString("hex").padEnd(64, "0")}`, memo: input };
}

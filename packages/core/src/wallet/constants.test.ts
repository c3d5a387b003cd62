import { Addresses } from "viem/tempo";
import { describe, expect, it } from "vitest";
import {
  ACCOUNT_KEYCHAIN_ADDRESS,
  DEVICE_CODE_ALPHABET,
  DEVICE_CODE_LENGTH,
  MAX_SESSION_TTL_SECONDS,
  MEMO_BYTES,
  MIN_SESSION_TTL_SECONDS,
  PAIRING_TTL_MS,
  POLL_INTERVAL_SECONDS,
} from "./constants.ts";

// The literal values the spec and the chain define, not the constants compared with themselves.
describe("wallet constants", () => {
  it("the AccountKeychain precompile is at 0xaaaaaaaa00…00 (the chain's address, as viem/tempo has it)", () => {
    expect(ACCOUNT_KEYCHAIN_ADDRESS).toBe("0xaaaaaaaa00000000000000000000000000000000");
    expect(ACCOUNT_KEYCHAIN_ADDRESS).toBe(Addresses.accountKeychain.toLowerCase());
  });
  it("a pairing lives 5 minutes (spec §8)", () => expect(PAIRING_TTL_MS).toBe(300_000));
  it("devices poll every 5 s; sessions last 1 minute to 30 days", () => {
    expect(POLL_INTERVAL_SECONDS).toBe(5);
    expect(MIN_SESSION_TTL_SECONDS).toBe(60);
    expect(MAX_SESSION_TTL_SECONDS).toBe(2_592_000);
  });
  it("device codes are 8 characters from the 20 RFC 8628 consonants; a memo is a bytes32", () => {
    expect(DEVICE_CODE_ALPHABET).toBe("BCDFGHJKLMNPQRSTVWXZ");
    expect(DEVICE_CODE_LENGTH).toBe(8);
    expect(MEMO_BYTES).toBe(32);
  });
});

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateToken, hashToken, openSecret, parseMasterKey, sealSecret } from "./secretBox.ts";

const key = randomBytes(32);

describe("secretBox", () => {
  it("round-trips and never contains the plaintext", () => {
    const sealed = sealSecret("whsec_abc", key, "whs_1");
    expect(sealed).not.toContain("whsec_abc");
    expect(openSecret(sealed, key, "whs_1")).toBe("whsec_abc");
    expect(sealSecret("same", key)).not.toBe(sealSecret("same", key)); // fresh IV each time
  });
  it("refuses another key, another context, or a tampered ciphertext", () => {
    const sealed = sealSecret("secret", key, "row-1");
    expect(() => openSecret(sealed, randomBytes(32), "row-1")).toThrow(/does not open/);
    expect(() => openSecret(sealed, key, "row-2")).toThrow(/does not open/);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
    expect(() => openSecret(tampered, key, "row-1")).toThrow(/does not open/);
    expect(() => openSecret("v0.xx", key)).toThrow(/format/);
  });
  it("parses base64 and hex master keys of exactly 32 bytes", () => {
    expect(parseMasterKey(key.toString("base64"))).toEqual(key);
    expect(parseMasterKey(key.toString("hex"))).toEqual(key);
    expect(() => parseMasterKey("c2hvcnQ=")).toThrow(/32 bytes/);
  });
  it("hashes tokens with SHA-256 and generates prefixed high-entropy tokens", () => {
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const t = generateToken("whsec_");
    expect(t).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateToken("x")).not.toBe(generateToken("x"));
  });
});

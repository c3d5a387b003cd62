import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBoxError, generateToken, hashToken, openSecret, parseMasterKey, sealSecret } from "./secretBox.ts";

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
  it("seals and opens the empty string (a payload of exactly IV ‖ tag, 28 bytes)", () => {
    const sealed = sealSecret("", key, "row-1");
    expect(Buffer.from(sealed.slice(3), "base64url")).toHaveLength(28);
    expect(openSecret(sealed, key, "row-1")).toBe("");
  });
  it("writes the format `v1.<base64url(iv ‖ tag ‖ ciphertext)>`, decryptable with AES-256-GCM by hand", () => {
    const sealed = sealSecret("héllo", key, "ctx");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    const raw = Buffer.from(sealed.slice(3), "base64url");
    expect(raw).toHaveLength(12 + 16 + Buffer.byteLength("héllo"));
    const d = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    d.setAAD(Buffer.from("ctx"));
    d.setAuthTag(raw.subarray(12, 28));
    expect(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8")).toBe("héllo");
    // the context defaults to the empty string on both sides
    expect(openSecret(sealSecret("x", key), key)).toBe("x");
    expect(openSecret(sealSecret("x", key), key, "")).toBe("x");
  });
  it("opens a value sealed by hand in the documented format (known answer)", () => {
    const iv = Buffer.alloc(12, 7);
    const c = createCipheriv("aes-256-gcm", key, iv);
    c.setAAD(Buffer.from("row-9"));
    const ct = Buffer.concat([c.update("whsec_known", "utf8"), c.final()]);
    const sealed = `v1.${Buffer.concat([iv, c.getAuthTag(), ct]).toString("base64url")}`;
    expect(openSecret(sealed, key, "row-9")).toBe("whsec_known");
  });
  it("refuses other format tags, a missing payload and a payload shorter than IV ‖ tag", () => {
    const payload = sealSecret("abc", key).slice(3);
    for (const bad of [`v2.${payload}`, `V1.${payload}`, `1.${payload}`, payload, "v1.", "v1"]) {
      expect(() => openSecret(bad, key), bad).toThrow(/unknown sealed secret format/);
    }
    const short = `v1.${Buffer.alloc(27).toString("base64url")}`;
    expect(() => openSecret(short, key)).toThrow(/truncated/);
    expect(() => openSecret(short, key)).toThrow(SecretBoxError);
  });
  it("rejects master keys of other lengths, hex or base64", () => {
    expect(() => parseMasterKey(randomBytes(31).toString("hex"))).toThrow(/32 bytes/);
    expect(() => parseMasterKey(randomBytes(33).toString("base64"))).toThrow(/32 bytes/);
    expect(() => parseMasterKey(`${key.toString("hex")}0`)).toThrow(/32 bytes/); // 65 hex characters are not hex, nor 32 bytes of base64
    expect(parseMasterKey(key.toString("hex").toUpperCase())).toEqual(key);
    expect(() => parseMasterKey(`x${key.toString("hex").slice(1)}`)).toThrow(/32 bytes/);
  });
  it("generates 32 random bytes by default, or as many as asked", () => {
    expect(Buffer.from(generateToken("").slice(0), "base64url")).toHaveLength(32);
    expect(Buffer.from(generateToken("p_", 16).slice(2), "base64url")).toHaveLength(16);
  });
});

describe("SecretBoxError", () => {
  it("carries the code callers branch on (secret_box), its own name, and the decryption failure as its cause", () => {
    const sealed = sealSecret("whsec_abc", key, "whs_1");
    const error = (() => {
      try {
        openSecret(sealed, randomBytes(32), "whs_1");
      } catch (e) {
        return e as SecretBoxError;
      }
      throw new Error("opened with another key");
    })();
    expect(error).toBeInstanceOf(SecretBoxError);
    expect(error).toMatchObject({ code: "secret_box", name: "SecretBoxError", message: "sealed secret does not open with this key and context" });
    expect(error.cause).toBeInstanceOf(Error);
    expect(() => parseMasterKey("short")).toThrow(expect.objectContaining({ code: "secret_box", name: "SecretBoxError" }));
  });
});

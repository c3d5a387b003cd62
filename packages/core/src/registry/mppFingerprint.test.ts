import { describe, expect, it } from "vitest";
import { mppFingerprint } from "./mppFingerprint.ts";

describe("mppFingerprint", () => {
  it("is keccak256(text)[0..9]: the fingerprints the public reference checked on mainnet", () => {
    expect(mppFingerprint("fal.mpp.tempo.xyz")).toBe("0x8bdbf8cc304c4816750e");
    expect(mppFingerprint("mpp.tempo.xyz")).toBe("0xae1006bb7b1c8ade1d26");
    // the MPP memo tag is the first 4 bytes of keccak256("mpp")
    expect(mppFingerprint("mpp").slice(0, 10)).toBe("0xef1ed712");
  });
  it("hashes the text as given: case and surrounding characters change it", () => {
    expect(mppFingerprint("FAL.mpp.tempo.xyz")).not.toBe(mppFingerprint("fal.mpp.tempo.xyz"));
    expect(mppFingerprint("fal.mpp.tempo.xyz/")).not.toBe(mppFingerprint("fal.mpp.tempo.xyz"));
    expect(mppFingerprint("")).toMatch(/^0x[0-9a-f]{20}$/);
  });
});

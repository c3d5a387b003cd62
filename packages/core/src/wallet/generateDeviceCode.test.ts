import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEVICE_CODE_ALPHABET } from "./constants.ts";
import { generateDeviceCode } from "./generateDeviceCode.ts";

describe("generateDeviceCode", () => {
  it("makes 8 characters of the consonant alphabet", () => {
    for (let i = 0; i < 200; i++) expect(generateDeviceCode(randomBytes)).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
  });
  it("skips biased bytes (≥ 240) and maps the rest uniformly", () => {
    const bytes = [255, 250, 240, 0, 19, 20, 239, 1, 2, 3, 4, 5];
    let i = 0;
    const code = generateDeviceCode((n) => Uint8Array.from({ length: n }, () => bytes[i++ % bytes.length]!));
    expect(code).toBe([0, 19, 0, 19, 1, 2, 3, 4].map((k) => DEVICE_CODE_ALPHABET[k]).join(""));
  });
  it("keeps asking for bytes when a whole batch is rejected", () => {
    let calls = 0;
    const code = generateDeviceCode((n) => (calls++ === 0 ? new Uint8Array(n).fill(255) : new Uint8Array(n).fill(21)));
    expect(code).toBe("CCCCCCCC");
    expect(calls).toBe(2);
  });
  it("is spread over the alphabet", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) for (const ch of generateDeviceCode(randomBytes)) seen.add(ch);
    expect(seen.size).toBe(20);
  });
});

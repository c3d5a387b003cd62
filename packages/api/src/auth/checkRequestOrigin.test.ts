import { describe, expect, it } from "vitest";
import { checkRequestOrigin, ownOrigins } from "./checkRequestOrigin.ts";

// The rule without HTTP (the forged requests against the real server are in test/csrf.test.ts).
const origins = ownOrigins("https://ledger.example/base/", ["https://passkeys.example", "android:apk-key-hash:abc", "not a url"]);
const cookie = "theme=dark; al_session=tok";

describe("ownOrigins", () => {
  it("is PUBLIC_BASE_URL's origin plus the WebAuthn origins that are web origins", () => {
    expect([...origins]).toEqual(["https://ledger.example", "https://passkeys.example"]);
  });
});

describe("checkRequestOrigin", () => {
  it.each(["POST", "post", "PUT", "PATCH", "DELETE", "PROPFIND"])("checks %s with the session cookie", (method) => {
    expect(checkRequestOrigin(method, { cookie, origin: "https://evil.example" }, origins)).toMatch(/another origin/);
    expect(checkRequestOrigin(method, { cookie }, origins)).toMatch(/no origin/);
    expect(checkRequestOrigin(method, { cookie, origin: "https://ledger.example" }, origins)).toBeNull();
    expect(checkRequestOrigin(method, { cookie, origin: "https://passkeys.example" }, origins)).toBeNull();
    expect(checkRequestOrigin(method, { cookie, "sec-fetch-site": "same-origin" }, origins)).toBeNull();
  });

  it.each(["GET", "HEAD", "OPTIONS", undefined])("never checks %s", (method) => {
    expect(checkRequestOrigin(method, { cookie, origin: "https://evil.example" }, origins)).toBeNull();
  });

  it("concerns only requests carrying al_session (even empty), not other cookies or bearer-only requests", () => {
    expect(checkRequestOrigin("POST", { cookie: "theme=dark; al_webauthn=x", origin: "https://evil.example" }, origins)).toBeNull();
    expect(checkRequestOrigin("POST", { authorization: "Bearer abcdefghijklmnop", origin: "https://evil.example" }, origins)).toBeNull();
    expect(checkRequestOrigin("POST", { cookie: "al_session=", origin: "https://evil.example" }, origins)).not.toBeNull();
    expect(checkRequestOrigin("POST", { cookie: "al_session=%%%", origin: "https://evil.example" }, origins)).not.toBeNull();
  });

  it("an Origin that is present decides alone: opaque, malformed, another port/scheme/path-bearing value are refused", () => {
    for (const origin of [
      "null",
      "",
      "ledger.example",
      "https://ledger.example:444",
      "http://ledger.example",
      "https://ledger.example, https://evil.example",
      "https://evil.example/https://ledger.example",
    ]) {
      expect([origin, checkRequestOrigin("POST", { cookie, origin, "sec-fetch-site": "same-origin" }, origins)]).toEqual([origin, expect.any(String)]);
    }
    // the same origin written with a default port or upper case is the same origin
    expect(checkRequestOrigin("POST", { cookie, origin: "https://LEDGER.example:443" }, origins)).toBeNull();
  });

  it("without Origin, only Sec-Fetch-Site: same-origin passes", () => {
    for (const site of ["same-site", "cross-site", "none", "SAME-ORIGIN"])
      expect(checkRequestOrigin("POST", { cookie, "sec-fetch-site": site }, origins)).not.toBeNull();
  });
});

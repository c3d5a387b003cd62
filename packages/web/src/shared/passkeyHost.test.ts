import { describe, expect, it } from "vitest";
import { checkPasskeyHost, PasskeyHostError, rpIdOf } from "./passkeyHost.ts";

describe("checkPasskeyHost", () => {
  it("accepts the RP ID's own host and hosts below it, in any case", () => {
    expect(() => checkPasskeyHost("localhost", "http://localhost:3000/wallet")).not.toThrow();
    expect(() => checkPasskeyHost("ledger.example", "https://app.Ledger.example/wallet")).not.toThrow();
    expect(() => checkPasskeyHost(undefined, "http://127.0.0.1:3000/wallet")).not.toThrow();
  });

  it("refuses another host (an IP address, a look-alike suffix) and names the same page at the RP ID", () => {
    const at = (rpId: string, href: string) => {
      try {
        checkPasskeyHost(rpId, href);
      } catch (e) {
        return e;
      }
      return null;
    };
    const e = at("localhost", "http://127.0.0.1:3000/wallet/sessions/abc?x=1#top") as PasskeyHostError;
    expect(e).toBeInstanceOf(PasskeyHostError);
    expect(e.url).toBe("http://localhost:3000/wallet/sessions/abc?x=1#top");
    expect(e.message).toContain("Open http://localhost:3000/wallet/sessions/abc?x=1#top");
    expect((at("ledger.example", "https://evilledger.example/wallet") as PasskeyHostError).url).toBe("https://ledger.example/wallet");
    expect((at("localhost", "http://[::1]:3000/webhooks") as PasskeyHostError).url).toBe("http://localhost:3000/webhooks");
  });
});

describe("rpIdOf", () => {
  it("reads rpId (sign-in) or rp.id (registration), wrapped or bare", () => {
    expect(rpIdOf({ options: { rpId: "localhost", challenge: "x" } })).toBe("localhost");
    expect(rpIdOf({ publicKey: { rp: { id: "ledger.example", name: "L" } } })).toBe("ledger.example");
    expect(rpIdOf({ rpId: "a.example" })).toBe("a.example");
    expect(rpIdOf({ challenge: "x" })).toBeUndefined();
    expect(rpIdOf(null)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { createGuardedLookup } from "./createGuardedLookup.ts";
import type { ResolveHost } from "./resolveHost.ts";

// A fake DNS: the names the tests use.
function fakeDns(): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const table: Record<string, string[]> = {
    "public.example": ["93.184.216.34"],
    "internal.example": ["10.0.0.5"],
    "translated.example": ["::ffff:0:7f00:1"], // IPv4-translated loopback (RFC 6145)
    "teredo.example": ["2606:4700:4700::1111", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  };
  const resolve = (async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address }));
  }) as ResolveHost & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

describe("SSRF policy: createGuardedLookup (connect time)", () => {
  const lookup = fakeDns();
  it("the guarded socket lookup refuses forbidden answers in production and passes them through otherwise", async () => {
    const run = (production: boolean, host: string) =>
      new Promise<unknown>((resolve) => {
        createGuardedLookup({ production, resolve: lookup })(host, { all: true }, (err, addresses) => resolve(err ?? addresses));
      });
    expect(await run(true, "internal.example")).toMatchObject({ code: "callback_url_forbidden" });
    expect(await run(true, "translated.example")).toMatchObject({ code: "callback_url_forbidden" });
    expect(await run(true, "teredo.example")).toMatchObject({ code: "callback_url_forbidden" }); // one bad answer of two
    expect(await run(true, "nowhere.example")).toMatchObject({ code: "ENOTFOUND" });
    expect(await run(true, "public.example")).toEqual([{ address: "93.184.216.34", family: 4 }]);
    expect(await run(false, "internal.example")).toEqual([{ address: "10.0.0.5", family: 4 }]);
  });
});

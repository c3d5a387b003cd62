import { describe, expect, it } from "vitest";
import { assertCallbackAllowed } from "./assertCallbackAllowed.ts";
import type { ResolveHost } from "./resolveHost.ts";

// A fake DNS: the names the tests use.
function fakeDns(): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const table: Record<string, string[]> = {
    "public.example": ["93.184.216.34"],
    "public6.example": ["2606:4700:4700::1111"],
    "internal.example": ["10.0.0.5"],
    "loopback.example": ["127.0.0.1"],
    "metadata.example": ["169.254.169.254"],
    "mixed.example": ["93.184.216.34", "192.168.0.10"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "translated.example": ["::ffff:0:7f00:1"], // IPv4-translated loopback (RFC 6145)
    "nat64.example": ["64:ff9b::808:808", "64:ff9b::a9fe:a9fe"], // DNS64: a public and the metadata address
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

describe("SSRF policy: assertCallbackAllowed (create time)", () => {
  const lookup = fakeDns();
  it.each([
    ["https://127.0.0.1/hook", "callback_url_forbidden"],
    ["https://127.1.2.3:8443/hook", "callback_url_forbidden"],
    ["https://[::1]/hook", "callback_url_forbidden"],
    ["https://10.1.2.3/hook", "callback_url_forbidden"],
    ["https://172.16.0.1/hook", "callback_url_forbidden"],
    ["https://172.31.255.254/hook", "callback_url_forbidden"],
    ["https://192.168.1.1/hook", "callback_url_forbidden"],
    ["https://169.254.169.254/latest/meta-data/", "callback_url_forbidden"],
    ["https://[::ffff:127.0.0.1]/hook", "callback_url_forbidden"],
    ["https://[::ffff:a9fe:a9fe]/hook", "callback_url_forbidden"], // ::ffff:169.254.169.254
    ["https://100.64.0.1/hook", "callback_url_forbidden"], // CGNAT
    ["https://224.0.0.1/hook", "callback_url_forbidden"], // multicast
    ["https://0.0.0.0/hook", "callback_url_forbidden"],
    ["https://[fe80::1]/hook", "callback_url_forbidden"],
    ["https://[fd00:ec2::254]/hook", "callback_url_forbidden"],
    ["https://internal.example/hook", "callback_url_forbidden"], // a name resolving to a private address
    ["https://loopback.example/hook", "callback_url_forbidden"],
    ["https://metadata.example/hook", "callback_url_forbidden"],
    ["https://mixed.example/hook", "callback_url_forbidden"], // one bad answer is enough
    ["https://mapped.example/hook", "callback_url_forbidden"],
    ["https://translated.example/hook", "callback_url_forbidden"],
    ["https://nat64.example/hook", "callback_url_forbidden"],
    ["https://teredo.example/hook", "callback_url_forbidden"],
    ["https://[::ffff:0:a9fe:a9fe]/hook", "callback_url_forbidden"], // IPv4-translated metadata
    ["https://[2001::1]/hook", "callback_url_forbidden"], // Teredo
    ["https://[100::1]/hook", "callback_url_forbidden"], // discard-only
    ["https://[2001:10::1]/hook", "callback_url_forbidden"], // ORCHID (deprecated)
    ["https://192.88.99.1/hook", "callback_url_forbidden"], // 6to4 relay anycast
    ["https://[64:ff9b::7f00:1]/hook", "callback_url_forbidden"], // NAT64 of loopback
    ["https://nowhere.example/hook", "callback_url_unresolvable"],
    ["http://public.example/hook", "callback_url_not_https"],
    ["ftp://public.example/hook", "invalid_callback_url"],
    ["not a url", "invalid_callback_url"],
  ])("production refuses %s (%s)", async (url, code) => {
    await expect(assertCallbackAllowed(url, { production: true, lookup })).rejects.toMatchObject({ name: "CallbackNotAllowedError", code });
  });

  it.each([
    "https://public.example/hook",
    "https://public6.example/hook",
    "https://93.184.216.34/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://[64:ff9b::808:808]/hook",
    "https://[::ffff:8.8.8.8]/hook",
  ])("production allows %s", async (url) => {
    await expect(assertCallbackAllowed(url, { production: true, lookup })).resolves.toMatchObject({ addresses: expect.any(Array) });
  });

  it("outside production, loopback http receivers are allowed (no DNS lookup at all)", async () => {
    const calls = lookup.calls.length;
    await expect(assertCallbackAllowed("http://127.0.0.1:3000/hook", { production: false, lookup })).resolves.toBeTruthy();
    await expect(assertCallbackAllowed("http://localhost:3000/hook", { production: false, lookup })).resolves.toBeTruthy();
    expect(lookup.calls.length).toBe(calls);
  });
});

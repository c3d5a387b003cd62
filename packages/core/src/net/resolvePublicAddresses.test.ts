import { describe, expect, it } from "vitest";
import { HostNotPublicError, resolvePublicAddresses, type HostLookup } from "./resolvePublicAddresses.ts";

// A table DNS: names resolving to one or several addresses; unknown names fail like getaddrinfo does.
function tableLookup(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup: HostLookup = async (hostname) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address }));
  };
  return Object.assign(lookup, { calls });
}

const dns = tableLookup({
  "public.example": ["93.184.216.34"],
  "dual.example": ["93.184.216.34", "2606:4700:4700::1111"],
  "many.example": ["93.184.216.34", "1.1.1.1", "8.8.8.8"],
  "mixed-last.example": ["93.184.216.34", "1.1.1.1", "10.0.0.7"],
  "mixed-v6.example": ["2606:4700:4700::1111", "fd00::1"],
  "mixed-mapped.example": ["93.184.216.34", "::ffff:127.0.0.1"],
  "mixed-nat64.example": ["64:ff9b::808:808", "64:ff9b::a9fe:a9fe"],
  "teredo.example": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  "empty.example": [],
});

describe("resolvePublicAddresses", () => {
  it.each([
    ["public.example", [{ address: "93.184.216.34", family: 4 }]],
    [
      "dual.example",
      [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700:4700::1111", family: 6 },
      ],
    ],
    [
      "many.example",
      [
        { address: "93.184.216.34", family: 4 },
        { address: "1.1.1.1", family: 4 },
        { address: "8.8.8.8", family: 4 },
      ],
    ],
  ])("returns every address of %s when all are public", async (host, expected) => {
    await expect(resolvePublicAddresses(host, dns)).resolves.toEqual(expected);
  });

  it.each([
    ["mixed-last.example", "10.0.0.7"],
    ["mixed-v6.example", "fd00::1"],
    ["mixed-mapped.example", "::ffff:127.0.0.1"],
    ["mixed-nat64.example", "64:ff9b::a9fe:a9fe"],
    ["teredo.example", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  ])("refuses %s: one non-public answer among several is enough", async (host, bad) => {
    const error = await resolvePublicAddresses(host, dns).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostNotPublicError);
    expect(error).toMatchObject({ code: "host_forbidden", address: bad });
    expect((error as Error).message).toContain(bad);
  });

  it("judges IP literals without a lookup, with or without URL brackets", async () => {
    const before = dns.calls.length;
    await expect(resolvePublicAddresses("[2606:4700:4700::1111]", dns)).resolves.toEqual([{ address: "2606:4700:4700::1111", family: 6 }]);
    await expect(resolvePublicAddresses("8.8.8.8", dns)).resolves.toEqual([{ address: "8.8.8.8", family: 4 }]);
    await expect(resolvePublicAddresses("[::1]", dns)).rejects.toMatchObject({ code: "host_forbidden", address: "::1" });
    await expect(resolvePublicAddresses("[::ffff:0:a9fe:a9fe]", dns)).rejects.toMatchObject({ code: "host_forbidden" });
    await expect(resolvePublicAddresses("169.254.169.254", dns)).rejects.toMatchObject({ code: "host_forbidden" });
    expect(dns.calls.length).toBe(before);
  });

  it("a name that does not resolve, or resolves to nothing, is unresolvable (the lookup's error is the cause)", async () => {
    const error = await resolvePublicAddresses("nowhere.example", dns).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "HostNotPublicError", code: "host_unresolvable", address: null });
    expect(((error as Error).cause as { code: string }).code).toBe("ENOTFOUND");
    await expect(resolvePublicAddresses("empty.example", dns)).rejects.toMatchObject({ code: "host_unresolvable" });
  });
});

describe("resolvePublicAddresses: brackets and messages", () => {
  it("strips brackets only when the host has both; a half-bracketed name goes to the lookup as written", async () => {
    const lookup = tableLookup({});
    for (const host of ["[public.example", "public.example]"]) {
      await expect(resolvePublicAddresses(host, lookup)).rejects.toMatchObject({ code: "host_unresolvable", message: `${host} does not resolve` });
    }
    expect(lookup.calls).toEqual(["[public.example", "public.example]"]);
  });
  it("says which host does not resolve, whether the lookup failed or answered nothing", async () => {
    await expect(resolvePublicAddresses("nowhere.example", dns)).rejects.toThrow(/^nowhere\.example does not resolve$/);
    await expect(resolvePublicAddresses("empty.example", dns)).rejects.toThrow(/^empty\.example does not resolve$/);
  });
});

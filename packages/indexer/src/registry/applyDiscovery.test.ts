import { mppFingerprint, parseRegistry } from "@agent-ledger/core";
import { describe, expect, it } from "vitest";
import { applyDiscovery, DiscoveryError, type Discovery } from "./applyDiscovery.ts";

const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const USDC = "0x20c000000000000000000000b9537d11c60e8b50";
const AT = "2026-11-27T12:00:00.000Z";
const registry = () => ({
  registry_version: 3,
  network: "tempo-mainnet",
  chain_id: 4217,
  tokens: [{ address: USDC, symbol: "USDC.e", decimals: 6, currency: "USD" }],
  entities: [
    { id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [GATEWAY], service_url: "https://mpp.tempo.xyz" },
    {
      id: "fal-mpp",
      label: "fal.ai",
      category: "service",
      wallets: [],
      server_ids: [{ fingerprint: mppFingerprint("fal.mpp.tempo.xyz"), from: "host", value: "fal.mpp.tempo.xyz" }],
      service_url: "https://fal.mpp.tempo.xyz",
    },
    { id: "orth-tavily-mpp", label: "Tavily", category: "service", wallets: [], server_ids: [], service_url: "https://mpp.orthogonal.com/tavily" },
    {
      id: "orth-tavily-extract-mpp",
      label: "Tavily extract",
      category: "service",
      wallets: [],
      server_ids: [],
      service_url: "https://mpp.orthogonal.com/tavily/extract",
    },
  ],
  escrows: [{ id: "mpp-session-escrow", address: "0x33b901018174ddabe4841042ab76ba85d4e24f25", abi: "legacy", label: "Escrow" }],
  fingerprint_labels: [{ fingerprint: mppFingerprint("mpp.tempo.xyz"), label: "Tempo MPP gateway (mpp.tempo.xyz)", category: "gateway" }],
});
const discovery = (over: Partial<Discovery> = {}): Discovery => {
  const realm = over.realm ?? "fal.mpp.tempo.xyz";
  return {
    url: "https://fal.mpp.tempo.xyz/fal-ai/flux/dev",
    at: AT,
    method: "tempo",
    intent: "charge",
    realm,
    server_id: mppFingerprint(realm),
    recipient: "0x00000000000000000000000000000000000000a1",
    currency: USDC,
    chain_id: 4217,
    escrow_contract: null,
    ...over,
  };
};
const entity = (doc: Record<string, unknown>, id: string) => (doc.entities as Record<string, unknown>[]).find((e) => e.id === id)!;

describe("applyDiscovery", () => {
  it("adds the recipient as a wallet and confirms the server id of the entity whose service_url prefixes the URL, with the discovery as source", () => {
    const input = registry();
    const before = structuredClone(input);
    const { document, notes } = applyDiscovery(input, discovery());
    const source = `discovered https://fal.mpp.tempo.xyz/fal-ai/flux/dev ${AT}`;
    expect(entity(document, "fal-mpp")).toMatchObject({
      wallets: [{ address: "0x00000000000000000000000000000000000000a1", source }],
      server_ids: [{ fingerprint: mppFingerprint("fal.mpp.tempo.xyz"), from: "host", value: "fal.mpp.tempo.xyz", source }],
    });
    expect(notes).toEqual([]);
    expect(input).toEqual(before); // a new document: the input is untouched
    expect(parseRegistry(document).entities[1]!.walletSources).toEqual({ "0x00000000000000000000000000000000000000a1": source });
    // discovering again updates the sources, never duplicates
    const again = applyDiscovery(document, discovery({ at: "2026-11-28T00:00:00.000Z" })).document;
    expect(entity(again, "fal-mpp")).toMatchObject({
      wallets: [{ source: expect.stringContaining("2026-11-28") }],
      server_ids: [{ source: expect.stringContaining("2026-11-28") }],
    });
  });

  it("picks the longest service_url prefix, on path boundaries, or the entity named", () => {
    const realm = "mpp.orthogonal.com";
    const extract = applyDiscovery(registry(), discovery({ url: "https://mpp.orthogonal.com/tavily/extract?q=1", realm, recipient: null })).document;
    expect(entity(extract, "orth-tavily-extract-mpp").server_ids).toEqual([
      { fingerprint: mppFingerprint(realm), from: "host", value: realm, source: `discovered https://mpp.orthogonal.com/tavily/extract?q=1 ${AT}` },
    ]);
    expect(() => applyDiscovery(registry(), discovery({ url: "https://mpp.orthogonal.com/tavilyx", realm }))).toThrow(
      new DiscoveryError("no entity's service_url is a prefix of https://mpp.orthogonal.com/tavilyx: name one with --entity <id>"),
    );
    const named = applyDiscovery(registry(), discovery({ url: "https://elsewhere.example/", realm: "elsewhere.example", entity: "orth-tavily-mpp" })).document;
    expect(entity(named, "orth-tavily-mpp").server_ids).toEqual([expect.objectContaining({ value: "elsewhere.example", from: "host" })]);
    expect(() => applyDiscovery(registry(), discovery({ entity: "nobody-mpp" }))).toThrow(/no entity "nobody-mpp"/);
  });

  it("leaves out, with a note, a recipient that is another entity's wallet or an escrow, and a realm that is a shared group", () => {
    const { document, notes } = applyDiscovery(registry(), discovery({ realm: "mpp.tempo.xyz", recipient: GATEWAY }));
    expect(entity(document, "fal-mpp")).toMatchObject({ wallets: [], server_ids: [{ value: "fal.mpp.tempo.xyz" }] });
    expect(notes).toEqual([
      `realm mpp.tempo.xyz (${mppFingerprint("mpp.tempo.xyz")}) is the shared group "Tempo MPP gateway (mpp.tempo.xyz)": not a server id of fal-mpp`,
      `recipient ${GATEWAY} is a wallet of "tempo-gateway-mpp" (gateway): not added to fal-mpp`,
    ]);
    expect(applyDiscovery(registry(), discovery({ recipient: "0x33b901018174ddabe4841042ab76ba85d4e24f25" })).notes).toEqual([
      'recipient 0x33b901018174ddabe4841042ab76ba85d4e24f25 is the escrow "mpp-session-escrow": not added to fal-mpp',
    ]);
  });

  it("notes a currency or escrow the registry lacks, and raises an older file to registry_version 3", () => {
    const v2 = { ...registry(), registry_version: 2, chain_id: undefined, escrows: undefined };
    const { document, notes } = applyDiscovery(
      v2,
      discovery({ currency: "0x20c0000000000000000000000000000000000009", escrow_contract: "0x00000000000000000000000000000000000000e5", intent: "session" }),
    );
    expect(document.registry_version).toBe(3);
    expect(notes).toEqual([
      "currency 0x20c0000000000000000000000000000000000009 is not in this registry's tokens: payments in it are not counted",
      "escrow 0x00000000000000000000000000000000000000e5 is not in this registry's escrows: its sessions are not read",
      "registry_version 2 raised to 3 (discovered wallets and server ids are registry v3 fields)",
    ]);
  });

  it("refuses another chain's challenge, a server id that names another entity, and a server_id that is not the realm's", () => {
    expect(() => applyDiscovery(registry(), discovery({ chain_id: 42431 }))).toThrow(
      new DiscoveryError("https://fal.mpp.tempo.xyz/fal-ai/flux/dev asks for payment on chain 42431; this registry is for chain 4217"),
    );
    expect(() => applyDiscovery(registry(), discovery({ url: "https://mpp.orthogonal.com/tavily", realm: "fal.mpp.tempo.xyz" }))).toThrow(
      `server id ${mppFingerprint("fal.mpp.tempo.xyz")} (realm fal.mpp.tempo.xyz) already names "fal-mpp", not "orth-tavily-mpp"`,
    );
    expect(() => applyDiscovery(registry(), { ...discovery(), server_id: "0x" + "0".repeat(20) })).toThrow(/is not keccak256\("fal.mpp.tempo.xyz"\)/);
  });
});

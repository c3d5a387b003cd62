import fs from "node:fs/promises";
import path from "node:path";
import { parseRegistry } from "@agent-ledger/core";
import { keccak256, stringToHex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { buildRegistries, RegistrySourceError, type RegistrySources } from "./buildRegistries.ts";
import { readRegistrySources } from "./readRegistrySources.ts";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const serialize = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;
/** Recomputed here with viem directly, independently of the generator's and core's helper. */
const fp = (text: string) => keccak256(stringToHex(text)).slice(0, 22);
type Json = Record<string, any>;

describe("the generated registries (registry/mainnet.json, registry/testnet.json)", () => {
  let sources: RegistrySources;
  let mainnet: Json, testnet: Json;
  beforeAll(async () => {
    sources = await readRegistrySources(path.join(ROOT, "registry", "sources"));
    ({ mainnet, testnet } = buildRegistries(sources));
  });

  it("are committed exactly as the generator writes them from registry/sources/", async () => {
    expect(await fs.readFile(path.join(ROOT, "registry", "mainnet.json"), "utf8")).toBe(serialize(mainnet));
    expect(await fs.readFile(path.join(ROOT, "registry", "testnet.json"), "utf8")).toBe(serialize(testnet));
  });

  it("mainnet: registry v3 for chain 4217 with all 25 listed tokens, all 141 directory services, the gateway and both escrows", () => {
    expect(mainnet).toMatchObject({
      registry_version: 3,
      network: "tempo-mainnet",
      chain_id: 4217,
      explorer_base_url: "https://explore.tempo.xyz",
      client_labels: [],
      settlement_contracts: [],
    });
    expect(mainnet.tokens).toHaveLength(25);
    expect(mainnet.tokens.map((t: Json) => t.address)).toEqual(sources.tokenList.tokens.map((t) => t.address.toLowerCase()));
    expect(mainnet.tokens.find((t: Json) => t.symbol === "USDC.e")).toMatchObject({
      address: "0x20c000000000000000000000b9537d11c60e8b50",
      decimals: 6,
      currency: "USD",
    });
    const services = mainnet.entities.filter((e: Json) => e.category === "service");
    expect(services).toHaveLength(141);
    expect(services.map((e: Json) => e.id).sort()).toEqual(sources.services.services.map((s) => `${s.id}-mpp`).sort());
    expect(mainnet.escrows.map((x: Json) => [x.id, x.address, x.abi])).toEqual([
      ["mpp-session-escrow", "0x33b901018174ddabe4841042ab76ba85d4e24f25", "legacy"],
      ["mpp-channel-reserve", "0x4d50500000000000000000000000000000000000", "precompile"],
    ]);
    const gateway = mainnet.entities.find((e: Json) => e.id === "tempo-gateway-mpp");
    expect(gateway).toMatchObject({
      category: "gateway",
      wallets: [{ address: "0xca4e835f803cb0b7c428222b3a3b98518d4779fe" }],
      service_url: "https://mpp.tempo.xyz",
    });
    expect(mainnet.address_labels.map((l: Json) => l.address)).toEqual([
      "0xfeec000000000000000000000000000000000000",
      "0x403c000000000000000000000000000000000000",
      "0x20fc000000000000000000000000000000000000",
      "0xdec0000000000000000000000000000000000000",
    ]);
    const parsed = parseRegistry(mainnet);
    expect(parsed.entities.filter((e) => e.kind === "escrow").map((e) => [e.id, e.wallets])).toEqual([
      ["mpp-session-escrow", ["0x33b901018174ddabe4841042ab76ba85d4e24f25"]],
      ["mpp-channel-reserve", ["0x4d50500000000000000000000000000000000000"]],
    ]);
  });

  it("fal.ai is named by its service host's fingerprint 0x8bdbf8cc304c4816750e; the realm mpp.tempo.xyz that 19 services share is a group label", () => {
    const fal = mainnet.entities.find((e: Json) => e.id === "fal-mpp");
    expect(fal).toMatchObject({
      label: "fal.ai",
      categories: ["ai", "media"],
      service_url: "https://fal.mpp.tempo.xyz",
      wallets: [],
      source: "tempoxyz/mpp schemas/services.ts@2f8740e5",
    });
    expect(fal.server_ids).toEqual([{ fingerprint: "0x8bdbf8cc304c4816750e", from: "host", value: "fal.mpp.tempo.xyz" }]);
    expect(fp("mpp.tempo.xyz")).toBe("0xae1006bb7b1c8ade1d26");
    expect(mainnet.fingerprint_labels).toContainEqual({
      fingerprint: "0xae1006bb7b1c8ade1d26",
      label: "Tempo MPP gateway (mpp.tempo.xyz)",
      category: "gateway",
    });
    expect(sources.services.services.filter((s) => s.realm === "mpp.tempo.xyz")).toHaveLength(19);
    // Orthogonal's 42 services share one host and realm: no server id names any one of them
    const orth = mainnet.entities.filter((e: Json) => e.id.startsWith("orth-"));
    expect(orth).toHaveLength(42);
    expect(orth.every((e: Json) => e.server_ids.length === 0)).toBe(true);
    expect(mainnet.fingerprint_labels).toContainEqual({
      fingerprint: fp("mpp.orthogonal.com"),
      label: "Orthogonal MPP gateway (mpp.orthogonal.com)",
      category: "gateway",
    });
    // a realm that only one service has (alchemy.com) is a server id besides its host's
    expect(mainnet.entities.find((e: Json) => e.id === "alchemy-mpp").server_ids).toEqual([
      { fingerprint: fp("mpp.alchemy.com"), from: "host", value: "mpp.alchemy.com" },
      { fingerprint: fp("alchemy.com"), from: "realm", value: "alchemy.com" },
    ]);
  });

  it("every server id is keccak256(value)[0..9], names one entity, and no group fingerprint is also a server id", () => {
    const all = mainnet.entities.flatMap((e: Json) => (e.server_ids ?? []).map((s: Json) => ({ ...s, entity: e.id })));
    expect(all.length).toBeGreaterThan(99);
    for (const s of all) expect(s.fingerprint, s.entity).toBe(fp(s.value));
    expect(new Set(all.map((s: Json) => s.fingerprint)).size).toBe(all.length);
    const groups = new Set(mainnet.fingerprint_labels.map((l: Json) => l.fingerprint));
    expect(all.filter((s: Json) => groups.has(s.fingerprint))).toEqual([]);
  });

  it("says where each fact comes from; a fact from a single source says it is unverified", () => {
    const gateway = mainnet.entities.find((e: Json) => e.id === "tempo-gateway-mpp");
    expect(gateway.wallets[0].source).toMatch(/^pelletfi\/pellet .*; an independent public Tempo census/);
    for (const x of mainnet.escrows) expect(x.source, x.id).not.toMatch(/unverified/);
    const usdc = mainnet.tokens.find((t: Json) => t.symbol === "USDC.e");
    expect(usdc.source).toMatch(/tokenlist\.json@b744eaf3.*currency: unverified \(single source\): wevm\/viem src\/tokens\/definitions\/usdce\.ts/);
    const chf = mainnet.tokens.find((t: Json) => t.symbol === "CHFAU");
    expect(chf).toMatchObject({ currency: "CHF" });
    expect(chf.source).not.toMatch(/unverified/); // the token list states CHF too
  });

  it("testnet: chain 42431, pathUSD, the testnet escrow, the same services and groups, no gateway wallet", () => {
    expect(testnet).toMatchObject({ registry_version: 3, network: "tempo-testnet", chain_id: 42431, explorer_base_url: "https://explore.testnet.tempo.xyz" });
    expect(testnet.tokens).toMatchObject([{ address: "0x20c0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" }]);
    expect(testnet.escrows.map((x: Json) => [x.address, x.abi])).toEqual([["0xe1c4d3dce17bc111181ddf716f75bae49e61a336", "legacy"]]);
    expect(testnet.entities).toEqual(mainnet.entities.filter((e: Json) => e.category === "service"));
    expect(testnet.fingerprint_labels).toEqual(mainnet.fingerprint_labels);
    expect(parseRegistry(testnet).chainId).toBe(42431);
  });
});

describe("buildRegistries refuses source data that does not check out", () => {
  let sources: RegistrySources;
  beforeAll(async () => {
    sources = await readRegistrySources(path.join(ROOT, "registry", "sources"));
  });
  const tampered = (edit: (s: RegistrySources) => void) => {
    const copy = structuredClone(sources);
    edit(copy);
    return () => buildRegistries(copy);
  };

  it("a directory fingerprint that is not keccak256 of its host or realm", () => {
    expect(tampered((s) => (s.services.services.find((x) => x.id === "fal")!.serverIdOfServiceHost.serverId = "0x8bdbf8cc304c4816750f"))).toThrow(
      new RegistrySourceError(
        'mpp-services.json: fal: serverIdOfServiceHost.serverId 0x8bdbf8cc304c4816750f is not keccak256("fal.mpp.tempo.xyz")[0..9] = 0x8bdbf8cc304c4816750e',
      ),
    );
    expect(tampered((s) => (s.services.services.find((x) => x.id === "fal")!.realm = "fal.run"))).toThrow(
      /fal: serverId 0xae1006bb7b1c8ade1d26 is not keccak256\("fal.run"\)/,
    );
    expect(tampered((s) => (s.services.services.find((x) => x.id === "fal")!.serverIdOfServiceHost.host = "fal.run"))).toThrow(
      /is not the host of https:\/\/fal.mpp.tempo.xyz/,
    );
  });

  it("a shared fingerprint without a group label, and a group label nobody shares", () => {
    expect(tampered((s) => s.mainnetFacts.fingerprint_groups.pop())).toThrow(/mpp.orthogonal.com \(0x[0-9a-f]{20}\) is shared by 42 services/);
    expect(tampered((s) => s.mainnetFacts.fingerprint_groups.push({ value: "fal.mpp.tempo.xyz", label: "x", category: "gateway" }))).toThrow(
      /fingerprint group fal.mpp.tempo.xyz is shared by no two/,
    );
  });

  it("a token currency, symbol or system address that viem's definitions contradict", () => {
    expect(tampered((s) => (s.mainnetFacts.token_currencies.find((c) => c.symbol === "EURC.e")!.currency = "USD"))).toThrow(
      /EURC.e .*currency USD in mainnet-facts.json, EUR in viem\/tokens/,
    );
    expect(tampered((s) => (s.tokenList.tokens.find((t) => t.symbol === "USDT0")!.decimals = 18))).toThrow(
      /USDT0 .*viem\/tokens says USDT0 with 6 decimals, the list USDT0 with 18/,
    );
    expect(tampered((s) => s.mainnetFacts.token_currencies.shift())).toThrow(/pathUSD .* has no currency in mainnet-facts.json/);
    expect(tampered((s) => (s.mainnetFacts.system_addresses[0]!.address = "0xfeec000000000000000000000000000000000001"))).toThrow(
      /is not viem\/tempo Addresses.feeManager/,
    );
    expect(tampered((s) => (s.mainnetFacts.escrows[1]!.address = "0x4d50500000000000000000000000000000000001"))).toThrow(
      /is not viem\/tempo Addresses.tip20ChannelReserve/,
    );
  });

  it("a wallet with one source ships marked unverified; a fact without a source does not ship", () => {
    const { mainnet } = tampered((s) => (s.mainnetFacts.gateway.sources = ["one blog post"]))() as { mainnet: Json };
    expect(mainnet.entities[0].wallets).toEqual([
      { address: "0xca4e835f803cb0b7c428222b3a3b98518d4779fe", source: "unverified (single source): one blog post" },
    ]);
    expect(tampered((s) => (s.mainnetFacts.escrows[0]!.sources = []))).toThrow(/a fact without any source/);
  });

  it("applies the facts' discovered records as `discover --write` does", () => {
    const at = "2026-11-27T12:00:00.000Z";
    const { mainnet } = tampered((s) => {
      s.mainnetFacts.discovered = [
        {
          url: "https://alphavantage.mpp.paywithlocus.com/query",
          at,
          method: "tempo",
          intent: "charge",
          realm: "alphavantage.mpp.paywithlocus.com",
          server_id: fp("alphavantage.mpp.paywithlocus.com"),
          recipient: "0x00000000000000000000000000000000000000a1",
          currency: "0x20c000000000000000000000b9537d11c60e8b50",
          chain_id: 4217,
          escrow_contract: null,
        },
      ];
    })() as { mainnet: Json };
    const source = `discovered https://alphavantage.mpp.paywithlocus.com/query ${at}`;
    expect(mainnet.entities.find((e: Json) => e.id === "alphavantage-mpp")).toMatchObject({
      wallets: [{ address: "0x00000000000000000000000000000000000000a1", source }],
      server_ids: [{ fingerprint: fp("alphavantage.mpp.paywithlocus.com"), from: "host", value: "alphavantage.mpp.paywithlocus.com", source }],
    });
  });
});

import { describe, expect, it } from "vitest";
import { InvalidRegistryError } from "../errors.ts";
import { parseRegistry } from "./parseRegistry.ts";

// Registry file schema version 3 (docs/registry.md): chain id, server ids, service metadata, escrows, client labels.
const USDC = "0x20c000000000000000000000b9537d11c60e8b50";
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const LEGACY = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PRECOMPILE = "0x4d50500000000000000000000000000000000000";
const FAL = "0x8bdbf8cc304c4816750e"; // keccak256("fal.mpp.tempo.xyz")[0..9]
const CLIENT = "0x" + "c1".repeat(10);

const v3 = (over: Record<string, unknown> = {}) => ({
  registry_version: 3,
  network: "tempo-mainnet",
  chain_id: 4217,
  explorer_base_url: "https://explore.tempo.xyz",
  tokens: [
    { address: USDC.toUpperCase().replace("0X", "0x"), symbol: "USDC.e", decimals: 6, currency: "USD", name: "Bridged USDC (Stargate)", source: "token list" },
  ],
  entities: [
    { id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [{ address: GATEWAY, source: "two sources" }] },
    {
      id: "fal-mpp",
      label: "fal.ai",
      category: "service",
      active: true,
      track_fees: false,
      wallets: [],
      server_ids: [{ fingerprint: FAL.toUpperCase().replace("0X", "0x"), from: "host", value: "fal.mpp.tempo.xyz" }],
      categories: ["ai", "media"],
      service_url: "https://fal.mpp.tempo.xyz",
      source: "tempoxyz/mpp schemas/services.ts@2f8740e5",
    },
  ],
  escrows: [
    { id: "mpp-session-escrow", address: LEGACY, abi: "legacy", label: "MPP session escrow (TempoStreamChannel)", source: "mppx defaults.ts" },
    { id: "mpp-channel-reserve", address: PRECOMPILE, abi: "precompile", label: "TIP-1034 channel reserve", token: USDC },
  ],
  client_labels: [{ fingerprint: CLIENT, label: "Demo agent Alpha" }],
  address_labels: [],
  fingerprint_labels: [{ fingerprint: "0xae1006bb7b1c8ade1d26", label: "Tempo MPP gateway (mpp.tempo.xyz)", category: "gateway" }],
  settlement_contracts: [],
  ...over,
});

function problemsOf(input: unknown): readonly string[] {
  try {
    parseRegistry(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRegistryError);
    return (error as InvalidRegistryError).problems;
  }
  return [];
}

describe("parseRegistry, registry_version 3", () => {
  it("reads the chain id, server ids, service metadata, wallet sources, token names, escrows and client labels", () => {
    const r = parseRegistry(v3());
    expect(r.chainId).toBe(4217);
    expect(r.tokens).toEqual([{ address: USDC, symbol: "USDC.e", decimals: 6, currency: "USD", name: "Bridged USDC (Stargate)", source: "token list" }]);
    const [gateway, fal] = r.entities;
    expect(gateway).toMatchObject({
      kind: "service",
      wallets: [GATEWAY],
      walletSources: { [GATEWAY]: "two sources" },
      serverIds: [],
      categories: [],
      serviceUrl: null,
      source: null,
    });
    expect(fal).toEqual({
      id: "fal-mpp",
      label: "fal.ai",
      category: "service",
      kind: "service",
      active: true,
      trackFees: false,
      wallets: [],
      walletSources: {},
      serverIds: [{ fingerprint: FAL, from: "host", value: "fal.mpp.tempo.xyz", source: null }],
      categories: ["ai", "media"],
      serviceUrl: "https://fal.mpp.tempo.xyz",
      source: "tempoxyz/mpp schemas/services.ts@2f8740e5",
    });
    expect(r.escrows).toEqual([
      { id: "mpp-session-escrow", address: LEGACY, abi: "legacy", label: "MPP session escrow (TempoStreamChannel)", token: null, source: "mppx defaults.ts" },
      { id: "mpp-channel-reserve", address: PRECOMPILE, abi: "precompile", label: "TIP-1034 channel reserve", token: USDC, source: null },
    ]);
    expect(r.clientLabels).toEqual([{ fingerprint: CLIENT, label: "Demo agent Alpha", source: null }]);
  });

  it("makes every escrow an entity of kind and category escrow whose one wallet is the escrow's address, after the file's entities", () => {
    const r = parseRegistry(v3());
    expect(r.entities.map((e) => [e.id, e.kind, e.category])).toEqual([
      ["tempo-gateway-mpp", "service", "gateway"],
      ["fal-mpp", "service", "service"],
      ["mpp-session-escrow", "escrow", "escrow"],
      ["mpp-channel-reserve", "escrow", "escrow"],
    ]);
    expect(r.entities[2]).toEqual({
      id: "mpp-session-escrow",
      label: "MPP session escrow (TempoStreamChannel)",
      category: "escrow",
      kind: "escrow",
      active: true,
      trackFees: false,
      wallets: [LEGACY],
      walletSources: { [LEGACY]: "mppx defaults.ts" },
      serverIds: [],
      categories: [],
      serviceUrl: null,
      source: "mppx defaults.ts",
    });
    expect(r.entities[3]!.walletSources).toEqual({});
  });

  it("a service known only by its server ids needs no wallet; everything v3 may be left out", () => {
    const r = parseRegistry({ registry_version: 3, network: "tempo-mainnet", entities: [{ id: "x-mpp", label: "X", category: "service" }] });
    expect(r.entities[0]).toMatchObject({ wallets: [], serverIds: [] });
    expect([r.chainId, r.escrows, r.clientLabels]).toEqual([null, [], []]);
  });

  it("refuses a server id whose fingerprint is not keccak256(value)[0..9], or that names two entities", () => {
    expect(
      problemsOf(
        v3({
          entities: [{ id: "fal-mpp", label: "fal.ai", category: "service", server_ids: [{ fingerprint: FAL, from: "realm", value: "mpp.tempo.xyz" }] }],
        }),
      ),
    ).toEqual([`entities[0].server_ids[0].fingerprint ${FAL} is not keccak256("mpp.tempo.xyz")[0..9] = 0xae1006bb7b1c8ade1d26`]);
    const twice = { fingerprint: FAL, from: "host", value: "fal.mpp.tempo.xyz" };
    expect(
      problemsOf(
        v3({
          entities: [
            { id: "a-mpp", label: "A", category: "service", server_ids: [twice] },
            { id: "b-mpp", label: "B", category: "service", server_ids: [twice] },
          ],
        }),
      ),
    ).toEqual([`server id ${FAL} belongs to both "a-mpp" and "b-mpp"`]);
  });

  it("lists every problem of bad v3 fields", () => {
    expect(
      problemsOf(
        v3({
          chain_id: "4217",
          entities: [
            {
              id: "x-mpp",
              label: "X",
              category: "service",
              wallets: [{ address: "0x1", source: "" }],
              server_ids: [{ fingerprint: "0x12", from: "dns", value: "" }, "x"],
              categories: ["ai", ""],
              service_url: "ftp://x",
              source: 7,
            },
          ],
          escrows: [
            { id: "Escrow", address: "0x2", abi: "v1", label: "", token: "0x9" },
            { id: "x-mpp", address: GATEWAY, abi: "legacy", label: "Dup" },
          ],
          client_labels: [
            { fingerprint: CLIENT, label: "" },
            { fingerprint: CLIENT.toUpperCase().replace("0X", "0x"), label: "B" },
            { fingerprint: "c1", label: "C" },
          ],
        }),
      ),
    ).toEqual([
      "entities[0].wallets[0].address must be an address (0x + 40 hex)",
      "entities[0].wallets[0].source must be a non-empty string",
      "entities[0].server_ids[0].fingerprint must be 0x + 20 hex characters",
      'entities[0].server_ids[0].from must be "host" or "realm"',
      "entities[0].server_ids[0].value must be a non-empty string",
      "entities[0].server_ids[1] must be an object",
      "entities[0].server_ids[1].fingerprint must be 0x + 20 hex characters",
      'entities[0].server_ids[1].from must be "host" or "realm"',
      "entities[0].server_ids[1].value must be a non-empty string",
      "entities[0].categories[1] must be a non-empty string",
      "entities[0].service_url must be an http(s) URL",
      "entities[0].source must be a non-empty string",
      "chain_id must be a positive integer",
      'escrows[0].id "Escrow" must be lowercase letters, digits and dashes',
      "escrows[0].address must be an address (0x + 40 hex)",
      'escrows[0].abi must be "legacy" or "precompile"',
      "escrows[0].token must be an address (0x + 40 hex)",
      "escrows[0].label must be a non-empty string",
      'escrows[1].id "x-mpp" is duplicated',
      "client_labels[0].label must be a non-empty string",
      `client_labels[1].fingerprint ${CLIENT} is duplicated`,
      "client_labels[2].fingerprint must be 0x + 20 hex characters",
    ]);
  });

  it("an escrow's default token must be in the allowlist, and its address is nobody's wallet", () => {
    expect(
      problemsOf(
        v3({
          escrows: [{ id: "e", address: GATEWAY, abi: "legacy", label: "E", token: "0x" + "9".repeat(40) }],
        }),
      ),
    ).toEqual([`escrows[0].token 0x${"9".repeat(40)} is not in tokens`, `wallet ${GATEWAY} belongs to both "tempo-gateway-mpp" and "e"`]);
  });

  it("a version 1 or 2 file that uses a v3 field is refused, field by field (as v2 refuses its own in a v1 file)", () => {
    const file = v3();
    for (const registry_version of [1, 2]) {
      expect(problemsOf({ ...file, registry_version })).toEqual([
        "entities[0].wallets[0] ({ address, source }) needs registry_version 3 or later",
        "entities[1].server_ids needs registry_version 3 or later",
        "entities[1].categories needs registry_version 3 or later",
        "entities[1].service_url needs registry_version 3 or later",
        "entities[1].source needs registry_version 3 or later",
        ...(registry_version === 1 ? ["tokens needs registry_version 2 or later"] : []),
        "tokens[0].name needs registry_version 3 or later",
        "tokens[0].source needs registry_version 3 or later",
        ...(registry_version === 1 ? ["explorer_base_url needs registry_version 2 or later"] : []),
        "chain_id needs registry_version 3 or later",
        "escrows needs registry_version 3 or later",
        "client_labels needs registry_version 3 or later",
      ]);
    }
    // the same file without the v3 fields is a valid v2 file
    const v2 = parseRegistry({
      registry_version: 2,
      network: "tempo-mainnet",
      tokens: [{ address: USDC, symbol: "USDC.e", decimals: 6, currency: "USD" }],
      entities: [{ id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [GATEWAY] }],
    });
    expect([v2.chainId, v2.escrows, v2.clientLabels, v2.entities[0]!.walletSources]).toEqual([null, [], [], {}]);
  });
});

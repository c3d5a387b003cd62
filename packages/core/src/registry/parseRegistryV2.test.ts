import { describe, expect, it } from "vitest";
import type { InvalidRegistryError } from "../errors.ts";
import { SETTLEMENT_TOPIC_MAINNET } from "../matcher/constants.ts";
import { parseRegistry } from "./parseRegistry.ts";

// Registry file schema version 2 (docs/methodology.md, "Registry additions"): tokens, settlement events, explorer base.
const v2 = {
  registry_version: 2,
  network: "tempo-mainnet",
  explorer_base_url: "https://explore.tempo.xyz/",
  tokens: [{ address: "0x20C0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" }],
  entities: [],
  address_labels: [{ address: "0x00000000000000000000000000000000000000AA", label: "Exchange", category: "exchange" }],
  fingerprint_labels: [{ fingerprint: "0x0102030405060708090A", label: "FP", provider_address: "0x00000000000000000000000000000000000000BB" }],
  settlement_contracts: [
    {
      address: "0x33B901018174DDABE4841042AB76BA85D4E24F25",
      label: "Escrow",
      event: { topic0: SETTLEMENT_TOPIC_MAINNET.toUpperCase().replace("0X", "0x"), provider_topic: 3 },
    },
    { address: "0x068a9ee82e1f6319d68ada94145c2d3fdea7a868", label: "Devnet escrow" },
  ],
};

function problemsOf(input: unknown): readonly string[] {
  try {
    parseRegistry(input);
  } catch (error) {
    return (error as InvalidRegistryError).problems;
  }
  return [];
}

describe("parseRegistry, registry_version 2", () => {
  it("reads tokens, settlement events (unverified unless said), the provider link and the explorer base", () => {
    const r = parseRegistry(v2);
    expect(r.tokens).toEqual([{ address: "0x20c0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" }]);
    expect(r.settlementContracts.map((c) => c.event)).toEqual([{ topic0: SETTLEMENT_TOPIC_MAINNET, providerTopic: 3, verified: false }, null]);
    expect(r.fingerprintLabels[0]!.providerAddress).toBe("0x00000000000000000000000000000000000000bb");
    expect(r.explorerBaseUrl).toBe("https://explore.tempo.xyz");
  });

  it("a version 1 file without the new fields has none; one that uses them is rejected", () => {
    const { tokens: _t, explorer_base_url: _e, settlement_contracts: _s, ...rest } = v2;
    const r = parseRegistry({ ...rest, registry_version: 1 });
    expect([r.tokens, r.explorerBaseUrl]).toEqual([[], null]);
    expect(problemsOf({ ...v2, registry_version: 1 })).toEqual([
      "settlement_contracts[0].event needs registry_version 2 or later",
      "tokens needs registry_version 2 or later",
      "explorer_base_url needs registry_version 2 or later",
    ]);
  });

  it("lists every problem of bad tokens, events and explorer base", () => {
    expect(
      problemsOf({
        ...v2,
        explorer_base_url: "ftp://x",
        tokens: [
          { address: "0x20c0000000000000000000000000000000000000", symbol: "", decimals: 37, currency: "USD" },
          { address: "0x20C0000000000000000000000000000000000000", symbol: "dup", decimals: 1.5, currency: "" },
        ],
        settlement_contracts: [
          { address: "0x33b901018174ddabe4841042ab76ba85d4e24f25", label: "E", event: { topic0: "0x12", provider_topic: 1, verified: "yes" } },
        ],
      }),
    ).toEqual([
      "settlement_contracts[0].event.topic0 must be 0x + 64 hex characters",
      "settlement_contracts[0].event.provider_topic must be 2 or 3",
      "settlement_contracts[0].event.verified must be true or false",
      "tokens[0].decimals must be an integer from 0 to 36",
      "tokens[0].symbol must be a non-empty string",
      "tokens[1].address 0x20c0000000000000000000000000000000000000 is duplicated",
      "tokens[1].decimals must be an integer from 0 to 36",
      "tokens[1].currency must be a non-empty string",
      "explorer_base_url must be an http(s) URL",
    ]);
  });
});

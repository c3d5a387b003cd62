import { describe, expect, it } from "vitest";
import type { InvalidRegistryError } from "../errors.ts";
import { parseRegistry } from "./parseRegistry.ts";

const valid = {
  registry_version: 2,
  network: "devnet",
  entities: [
    { id: "weather-api-mpp", label: "Weather", category: "data", wallets: ["0xABCDEF0000000000000000000000000000000001"] },
    { id: "demo-agent", label: "Agent", category: "agent", active: false, track_fees: true, wallets: [] },
  ],
  address_labels: [{ address: "0x00000000000000000000000000000000000000AA", label: "Provider", category: "provider" }],
  fingerprint_labels: [{ fingerprint: "0x0102030405060708090A", label: "FP" }],
  settlement_contracts: [{ address: "0x33B901018174DDABE4841042AB76BA85D4E24F25", label: "Escrow" }],
};

describe("parseRegistry", () => {
  it("normalizes addresses and derives kinds from ids", () => {
    const r = parseRegistry(valid);
    expect(r.entities.map((e) => [e.id, e.kind, e.active, e.trackFees])).toEqual([
      ["weather-api-mpp", "service", true, false],
      ["demo-agent", "agent", false, true],
    ]);
    expect(r.entities[0]!.wallets).toEqual(["0xabcdef0000000000000000000000000000000001"]);
    expect(r.addressLabels[0]!.address).toBe("0x00000000000000000000000000000000000000aa");
    expect(r.fingerprintLabels[0]).toEqual({ fingerprint: "0x0102030405060708090a", label: "FP", category: null, providerAddress: null });
    expect(r.settlementContracts[0]!.address).toBe("0x33b901018174ddabe4841042ab76ba85d4e24f25");
  });

  it("lists every problem in one error", () => {
    const bad = {
      registry_version: 0,
      network: "",
      entities: [
        { id: "Bad Id", label: "", category: "x", wallets: ["0x12"] },
        { id: "a", label: "A", category: "x", wallets: ["0x0000000000000000000000000000000000000001"] },
        { id: "b", label: "B", category: "x", wallets: ["0x0000000000000000000000000000000000000001"] },
      ],
    };
    let problems: readonly string[] = [];
    try {
      parseRegistry(bad);
    } catch (error) {
      problems = (error as InvalidRegistryError).problems;
    }
    expect(problems).toEqual([
      "registry_version must be a positive integer",
      "network must be a non-empty string",
      'entities[0].id "Bad Id" must be lowercase letters, digits and dashes',
      "entities[0].wallets[0] must be an address (0x + 40 hex)",
      "entities[0].label must be a non-empty string",
      'wallet 0x0000000000000000000000000000000000000001 belongs to both "a" and "b"',
    ]);
    expect(() => parseRegistry({ ...valid, entities: [valid.entities[0], valid.entities[0]] })).toThrow(/duplicated/);
  });
});

import { describe, expect, it } from "vitest";
import { InvalidRegistryError } from "../errors.ts";
import { ENTITY_ID, entityKind, parseRegistry } from "./parseRegistry.ts";

// Registry rules that the shipped files (registry/*.json, registry_version 1) rely on.
const wallet = "0x00000000000000000000000000000000000000a1";
const v1 = (extra: Record<string, unknown> = {}) => ({
  registry_version: 1,
  network: "devnet",
  entities: [{ id: "demo-agent", label: "Agent", category: "agent", wallets: [wallet] }],
  ...extra,
});
const problemsOf = (input: unknown): readonly string[] => {
  try {
    parseRegistry(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRegistryError);
    return (error as InvalidRegistryError).problems;
  }
  return [];
};

describe("parseRegistry: registry_version 1 files", () => {
  it("accepts version 1 (what we ship) and refuses 0, negative, fractional and non-numeric versions", () => {
    expect(parseRegistry(v1()).registryVersion).toBe(1);
    expect(parseRegistry(v1({ registry_version: 7 })).registryVersion).toBe(7);
    for (const registry_version of [0, -1, 1.5, "1", null, undefined]) {
      expect(problemsOf(v1({ registry_version })), String(registry_version)).toEqual(["registry_version must be a positive integer"]);
    }
  });
  it("refuses a file that is not an object, and lists that as the problem", () => {
    for (const input of [null, [], "registry", 1]) expect(problemsOf(input)[0]).toBe("registry must be an object");
  });
  it("keeps the network and the entities in file order, with defaults for active and track_fees", () => {
    const r = parseRegistry(v1({ network: "tempo-mainnet" }));
    expect(r.network).toBe("tempo-mainnet");
    expect(r.entities).toEqual([
      {
        id: "demo-agent",
        label: "Agent",
        category: "agent",
        kind: "agent",
        active: true,
        trackFees: false,
        wallets: [wallet],
        // registry v3 fields, empty before v3
        walletSources: {},
        serverIds: [],
        categories: [],
        serviceUrl: null,
        source: null,
      },
    ]);
    expect(r).toMatchObject({ addressLabels: [], fingerprintLabels: [], settlementContracts: [], chainId: null, escrows: [], clientLabels: [] });
    expect(problemsOf(v1({ entities: [{ id: "a", label: "A", category: "x", active: "yes", track_fees: 1 }] }))).toEqual([
      "entities[0].active must be true or false",
      "entities[0].track_fees must be true or false",
    ]);
    expect(problemsOf(v1({ entities: {} }))).toEqual(["entities must be an array"]);
    expect(problemsOf(v1({ entities: [{ id: "a", label: " ", category: "", wallets: "0x" }] }))).toEqual([
      "entities[0].wallets must be an array",
      "entities[0].label must be a non-empty string",
      "entities[0].category must be a non-empty string",
    ]);
  });
  it("keeps label categories, or null when absent", () => {
    const r = parseRegistry(
      v1({
        address_labels: [
          { address: "0x00000000000000000000000000000000000000BB", label: "Provider", category: "provider" },
          { address: "0x00000000000000000000000000000000000000cc", label: "Other", category: null },
          { address: "0x00000000000000000000000000000000000000dd", label: "Plain" },
        ],
        fingerprint_labels: [{ fingerprint: "0xAABBCCDDEEFF00112233", label: "Weather", category: "data" }],
      }),
    );
    expect(r.addressLabels).toEqual([
      { address: "0x00000000000000000000000000000000000000bb", label: "Provider", category: "provider" },
      { address: "0x00000000000000000000000000000000000000cc", label: "Other", category: null },
      { address: "0x00000000000000000000000000000000000000dd", label: "Plain", category: null },
    ]);
    expect(r.fingerprintLabels).toEqual([{ fingerprint: "0xaabbccddeeff00112233", label: "Weather", category: "data", providerAddress: null }]);
    expect(problemsOf(v1({ address_labels: [{ address: wallet, label: "L", category: "" }] }))).toEqual([
      "address_labels[0].category must be a non-empty string",
    ]);
    expect(problemsOf(v1({ address_labels: [{ address: "0x1", label: "" }] }))).toEqual([
      "address_labels[0].address must be an address (0x + 40 hex)",
      "address_labels[0].label must be a non-empty string",
    ]);
  });
  it("reads a fingerprint label's provider_address, lowercased, and refuses a bad one", () => {
    const r = parseRegistry(
      v1({ fingerprint_labels: [{ fingerprint: "0x0102030405060708090a", label: "FP", provider_address: "0x00000000000000000000000000000000000000EE" }] }),
    );
    expect(r.fingerprintLabels[0]!.providerAddress).toBe("0x00000000000000000000000000000000000000ee");
    expect(
      parseRegistry(v1({ fingerprint_labels: [{ fingerprint: "0x0102030405060708090a", label: "FP", provider_address: null }] })).fingerprintLabels[0]!
        .providerAddress,
    ).toBeNull();
    expect(problemsOf(v1({ fingerprint_labels: [{ fingerprint: "0x0102030405060708090a", label: "FP", provider_address: "0x12" }] }))).toEqual([
      "fingerprint_labels[0].provider_address must be an address (0x + 40 hex)",
    ]);
  });
  it("refuses fingerprints that are not 0x + exactly 20 hex characters", () => {
    for (const fingerprint of [
      "0x0102030405060708090",
      "0x0102030405060708090a0",
      "0102030405060708090a00",
      "0x0102030405060708090g",
      " 0x0102030405060708090a",
      "0x0102030405060708090a ",
      42,
      undefined,
    ]) {
      expect(problemsOf(v1({ fingerprint_labels: [{ fingerprint, label: "FP" }] })), String(fingerprint)).toEqual([
        "fingerprint_labels[0].fingerprint must be 0x + 20 hex characters",
      ]);
    }
  });
  it("reads settlement contracts of a version 1 file without an event", () => {
    const r = parseRegistry(v1({ settlement_contracts: [{ address: "0x33B901018174DDABE4841042AB76BA85D4E24F25", label: "Escrow" }] }));
    expect(r.settlementContracts).toEqual([{ address: "0x33b901018174ddabe4841042ab76ba85d4e24f25", label: "Escrow", event: null }]);
  });
});

describe("entity ids", () => {
  it("are 1–64 lowercase letters, digits and inner dashes, anchored at both ends", () => {
    for (const id of ["a", "7", "demo-agent", "weather-api-mpp", "a".repeat(64), `a${"-".repeat(62)}b`]) expect(ENTITY_ID.test(id), id).toBe(true);
    for (const id of ["", "-a", "a-", "A", "demo_agent", "demo agent", "demo-agent!", "!demo-agent", "demo-agent\n", "a".repeat(65), "démo"]) {
      expect(ENTITY_ID.test(id), id).toBe(false);
    }
    expect(problemsOf(v1({ entities: [{ id: "demo-agent-", label: "A", category: "x" }] }))).toEqual([
      'entities[0].id "demo-agent-" must be lowercase letters, digits and dashes',
    ]);
  });
  it("ending in -mpp are services, all others agents", () => {
    expect(entityKind("weather-api-mpp")).toBe("service");
    expect(entityKind("mpp-agent")).toBe("agent");
    expect(entityKind("weather-mppx")).toBe("agent");
  });
});

describe("parseRegistry: rules the other tests leave open", () => {
  const v2 = (extra: Record<string, unknown> = {}) => ({ ...v1(), registry_version: 2, ...extra });
  const token = (over: Record<string, unknown> = {}) => ({
    address: "0x20c0000000000000000000000000000000000000",
    symbol: "pathUSD",
    decimals: 6,
    currency: "USD",
    ...over,
  });

  it("an entity that is not an object is one problem plus its missing fields; an empty id is only 'non-empty'", () => {
    expect(problemsOf(v1({ entities: [null] }))).toEqual([
      "entities[0] must be an object",
      "entities[0].id must be a non-empty string",
      "entities[0].label must be a non-empty string",
      "entities[0].category must be a non-empty string",
    ]);
    expect(problemsOf(v1({ entities: [{ id: "", label: "A", category: "x" }] }))).toEqual(["entities[0].id must be a non-empty string"]);
    expect(problemsOf(v1({ address_labels: ["x"] }))[0]).toBe("address_labels[0] must be an object");
    expect(problemsOf(v1({ address_labels: {} }))).toEqual(["address_labels must be an array"]);
  });

  it("two invalid wallets are not reported as one wallet owned twice; a valid one is", () => {
    expect(
      problemsOf(
        v1({
          entities: [
            { id: "a", label: "A", category: "x", wallets: ["0x1"] },
            { id: "b", label: "B", category: "x", wallets: ["0x2"] },
          ],
        }),
      ),
    ).toEqual(["entities[0].wallets[0] must be an address (0x + 40 hex)", "entities[1].wallets[0] must be an address (0x + 40 hex)"]);
    expect(problemsOf(v1({ entities: [{ id: "a", label: "A", category: "x", wallets: [wallet, wallet.toUpperCase().replace("0X", "0x")] }] }))).toEqual([
      `wallet ${wallet} belongs to both "a" and "a"`,
    ]);
  });

  it("a version that is not a number gives no v2 rights: only the version problem and the v2 fields refused", () => {
    expect(problemsOf(v2({ registry_version: "2", tokens: [token()], explorer_base_url: "https://x" }))).toEqual([
      "registry_version must be a positive integer",
      "tokens needs registry_version 2 or later",
      "explorer_base_url needs registry_version 2 or later",
    ]);
  });

  it("token decimals are integers from 0 to 36 inclusive; two invalid token addresses are not duplicates", () => {
    expect(parseRegistry(v2({ tokens: [token({ decimals: 0 })] })).tokens[0]!.decimals).toBe(0);
    expect(parseRegistry(v2({ tokens: [token({ decimals: 36 })] })).tokens[0]!.decimals).toBe(36);
    for (const decimals of [-1, 37, 6.5, "6", null]) {
      expect(problemsOf(v2({ tokens: [token({ decimals })] })), String(decimals)).toEqual(["tokens[0].decimals must be an integer from 0 to 36"]);
    }
    expect(problemsOf(v2({ tokens: [token({ address: "0x1" }), token({ address: "0x2" })] }))).toEqual([
      "tokens[0].address must be an address (0x + 40 hex)",
      "tokens[1].address must be an address (0x + 40 hex)",
    ]);
    expect(parseRegistry(v2({ tokens: [] })).tokens).toEqual([]);
  });

  it("a settlement event with provider topic 2 and verified true; a null or non-object event is refused", () => {
    const topic0 = "0x" + "ab".repeat(32);
    const r = parseRegistry(v2({ settlement_contracts: [{ address: wallet, label: "E", event: { topic0, provider_topic: 2, verified: true } }] }));
    expect(r.settlementContracts[0]!.event).toEqual({ topic0, providerTopic: 2, verified: true });
    expect(problemsOf(v2({ settlement_contracts: [{ address: wallet, label: "E", event: null }] }))).toEqual([
      "settlement_contracts[0].event must be an object",
      "settlement_contracts[0].event.topic0 must be 0x + 64 hex characters",
      "settlement_contracts[0].event.provider_topic must be 2 or 3",
    ]);
    for (const bad of [topic0 + "a", topic0.slice(0, 65), "x" + topic0, topic0.slice(0, 65) + "g", 12]) {
      expect(problemsOf(v2({ settlement_contracts: [{ address: wallet, label: "E", event: { topic0: bad, provider_topic: 3 } }] })), String(bad)).toEqual([
        "settlement_contracts[0].event.topic0 must be 0x + 64 hex characters",
      ]);
    }
    expect(problemsOf(v2({ settlement_contracts: [{ address: "0x1", label: "" }] }))).toEqual([
      "settlement_contracts[0].address must be an address (0x + 40 hex)",
      "settlement_contracts[0].label must be a non-empty string",
    ]);
  });

  it("the explorer base is a whole http or https URL without spaces; trailing slashes are dropped", () => {
    expect(parseRegistry(v2({ explorer_base_url: "http://127.0.0.1:4000/explorer//" })).explorerBaseUrl).toBe("http://127.0.0.1:4000/explorer");
    expect(parseRegistry(v2({ explorer_base_url: "https://explore.tempo.xyz" })).explorerBaseUrl).toBe("https://explore.tempo.xyz");
    expect(parseRegistry(v2()).explorerBaseUrl).toBeNull();
    for (const url of ["https://", "https://a b", " https://a", "https://a\n", "https://a x", "xhttps://a", "httpss://a", 42, null]) {
      expect(problemsOf(v2({ explorer_base_url: url })), String(url)).toEqual(["explorer_base_url must be an http(s) URL"]);
    }
  });

  it("every problem is thrown in one InvalidRegistryError with a message naming each problem", () => {
    try {
      parseRegistry(v1({ network: "", registry_version: 0 }));
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidRegistryError).message).toBe(
        "registry file is invalid: registry_version must be a positive integer; network must be a non-empty string",
      );
    }
  });
});

describe("parseRegistry: values that only look right as text, and where each problem is", () => {
  const FP = "0x0102030405060708090a";
  const TOPIC0 = "0x" + "ab".repeat(32);
  const v2 = (extra: Record<string, unknown>) => v1({ registry_version: 2, ...extra });
  it("refuses a fingerprint, a topic0 or an explorer URL given as a one-element array (whose text would pass)", () => {
    expect(problemsOf(v1({ fingerprint_labels: [{ fingerprint: [FP], label: "Gateway" }] }))).toEqual([
      "fingerprint_labels[0].fingerprint must be 0x + 20 hex characters",
    ]);
    expect(problemsOf(v2({ settlement_contracts: [{ address: wallet, label: "Escrow", event: { topic0: [TOPIC0], provider_topic: 2 } }] }))).toEqual([
      "settlement_contracts[0].event.topic0 must be 0x + 64 hex characters",
    ]);
    expect(problemsOf(v2({ explorer_base_url: ["https://explore.example"] }))).toEqual(["explorer_base_url must be an http(s) URL"]);
  });
  it("names the list and the element of every problem in fingerprint_labels, settlement_contracts and tokens", () => {
    expect(problemsOf(v2({ fingerprint_labels: "x", settlement_contracts: "x", tokens: "x" }))).toEqual([
      "fingerprint_labels must be an array",
      "settlement_contracts must be an array",
      "tokens must be an array",
    ]);
    expect(problemsOf(v2({ fingerprint_labels: [1], settlement_contracts: [1], tokens: [1] }))).toEqual([
      "fingerprint_labels[0] must be an object",
      "fingerprint_labels[0].fingerprint must be 0x + 20 hex characters",
      "fingerprint_labels[0].label must be a non-empty string",
      "settlement_contracts[0] must be an object",
      "settlement_contracts[0].address must be an address (0x + 40 hex)",
      "settlement_contracts[0].label must be a non-empty string",
      "tokens[0] must be an object",
      "tokens[0].address must be an address (0x + 40 hex)",
      "tokens[0].decimals must be an integer from 0 to 36",
      "tokens[0].symbol must be a non-empty string",
      "tokens[0].currency must be a non-empty string",
    ]);
    expect(problemsOf(v1({ fingerprint_labels: [{ fingerprint: FP, label: "G", category: "" }] }))).toEqual([
      "fingerprint_labels[0].category must be a non-empty string",
    ]);
  });
});

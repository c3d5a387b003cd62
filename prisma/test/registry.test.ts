import type { Registry } from "@agent-ledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countTokens, createPgPool, loadMatchContext, loadRegistryIntoDb } from "../src/index.ts";
import { createTestDatabase } from "../src/testing.ts";

const A = "0x" + "a".repeat(40), B = "0x" + "b".repeat(40), C = "0x" + "c".repeat(40), ESCROW = "0x" + "e".repeat(40), USDC = "0x" + "1".repeat(40);
const TOPIC = "0x" + "f".repeat(64);

function registry(overrides: Partial<Registry> = {}): Registry {
  return {
    registryVersion: 2, network: "devnet", explorerBaseUrl: "https://explore.one",
    entities: [
      { id: "alice", label: "Alice", category: "agent", kind: "agent", active: true, trackFees: true, wallets: [A] },
      { id: "shop-mpp", label: "Shop", category: "commerce", kind: "service", active: true, trackFees: false, wallets: [B] },
    ],
    addressLabels: [{ address: C, label: "Counterparty", category: null }],
    fingerprintLabels: [{ fingerprint: "0x" + "12".repeat(10), label: "Gateway provider", category: "ai", providerAddress: B }],
    settlementContracts: [{ address: ESCROW, label: "Escrow", event: { topic0: TOPIC, providerTopic: 3, verified: true } }],
    tokens: [{ address: USDC, symbol: "USDC", decimals: 6, currency: "USD" }],
    ...overrides,
  };
}

describe("loadRegistryIntoDb and loadMatchContext (pg)", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: ReturnType<typeof createPgPool>;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPgPool(db.url, { max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });
  const rows = async (sql: string) => (await pool.query(sql)).rows;

  it("loads every part, and loading the same file again changes nothing", async () => {
    const result = await loadRegistryIntoDb(pool, registry(), "registry:a.json");
    expect(result).toEqual({ entities: 2, wallets: 2, addressLabels: 1, fingerprintLabels: 1, settlementContracts: 1, tokens: 1, deactivated: [] });
    const snapshot = async () => [
      await rows("SELECT id, label, category, kind, active, track_fees, source FROM entities ORDER BY id"),
      await rows("SELECT address, entity_id FROM entity_wallets ORDER BY address"),
      await rows("SELECT address, label, category, source FROM address_labels"),
      await rows("SELECT fingerprint, label, category, provider_address, source FROM fingerprint_labels"),
      await rows("SELECT address, label, source, event_topic0, provider_topic, event_verified FROM settlement_contracts"),
      await rows("SELECT address, symbol, decimals, currency, source FROM tokens"),
      await rows("SELECT source, network, registry_version, explorer_base_url FROM registry_sources"),
    ];
    const first = await snapshot();
    expect(first[0]).toEqual([
      { id: "alice", label: "Alice", category: "agent", kind: "agent", active: true, track_fees: true, source: "registry:a.json" },
      { id: "shop-mpp", label: "Shop", category: "commerce", kind: "service", active: true, track_fees: false, source: "registry:a.json" },
    ]);
    expect(first[4]).toEqual([{ address: ESCROW, label: "Escrow", source: "registry:a.json", event_topic0: TOPIC, provider_topic: 3, event_verified: true }]);
    expect(first[6]).toEqual([{ source: "registry:a.json", network: "devnet", registry_version: 2, explorer_base_url: "https://explore.one" }]);
    expect(await countTokens(pool)).toBe(1);
    await loadRegistryIntoDb(pool, registry(), "registry:a.json");
    expect(await snapshot()).toEqual(first);
  });

  it("updates changed rows (updated_at moves), deactivates the file's dropped entities and leaves other sources alone", async () => {
    await pool.query("INSERT INTO entities (id, label, category, kind, source) VALUES ('cli-bot', 'CLI bot', 'agent', 'agent', 'cli')");
    await pool.query("UPDATE address_labels SET updated_at = '2020-01-01'");
    const result = await loadRegistryIntoDb(pool, registry({
      entities: [{ id: "alice", label: "Alice v2", category: "agent", kind: "agent", active: true, trackFees: false, wallets: [A, C] }],
      addressLabels: [{ address: C, label: "Counterparty v2", category: "shop" }],
      settlementContracts: [{ address: ESCROW, label: "Escrow", event: null }],
    }), "registry:a.json");
    expect(result.deactivated).toEqual(["shop-mpp"]);
    expect(await rows("SELECT id, label, active, track_fees FROM entities ORDER BY id")).toEqual([
      { id: "alice", label: "Alice v2", active: true, track_fees: false },
      { id: "cli-bot", label: "CLI bot", active: true, track_fees: false },
      { id: "shop-mpp", label: "Shop", active: false, track_fees: false },
    ]);
    const [label] = await rows("SELECT label, category, updated_at > '2020-01-02' AS moved FROM address_labels");
    expect(label).toEqual({ label: "Counterparty v2", category: "shop", moved: true });
    // a contract without a declared event falls back to the defaults
    expect(await rows("SELECT event_topic0, provider_topic, event_verified FROM settlement_contracts")).toEqual([{ event_topic0: null, provider_topic: 2, event_verified: false }]);

    const context = await loadMatchContext(pool, { fallback: "https://fallback" });
    expect([...context.wallets.keys()].sort()).toEqual([A, C]); // shop-mpp is inactive: its wallet is not watched
    expect(context.wallets.get(C)).toEqual({ id: "alice", label: "Alice v2", category: "agent", trackFees: false });
    expect(context.explorerBaseUrl).toBe("https://explore.one");
    expect(context.tokens?.get(USDC)).toEqual({ symbol: "USDC", decimals: 6, currency: "USD" });
    expect(context.fingerprintProviders?.get("0x" + "12".repeat(10))).toBe(B);
    expect(context.settlementEvents?.get(ESCROW)).toEqual({ topic0: expect.stringMatching(/^0x[0-9a-f]{64}$/), providerTopic: 2, verified: false });
  });

  it("the newest file's explorer URL wins unless overridden; a failing load leaves nothing behind (one transaction)", async () => {
    await loadRegistryIntoDb(pool, registry({ entities: [], explorerBaseUrl: "https://explore.two" }), "registry:b.json");
    const client = await pool.connect();
    try {
      expect((await loadMatchContext(client, { fallback: "https://fallback" })).explorerBaseUrl).toBe("https://explore.two");
      expect((await loadMatchContext(client, { override: "https://mine", fallback: "https://fallback" })).explorerBaseUrl).toBe("https://mine");
    } finally {
      client.release();
    }
    const broken = registry({
      entities: [{ id: "ghost", label: "Ghost", category: "agent", kind: "agent", active: true, trackFees: false, wallets: ["0x" + "9".repeat(40)] }],
      tokens: [{ address: "0x" + "2".repeat(40), symbol: "BAD", decimals: "six" as unknown as number, currency: "USD" }],
    });
    await expect(loadRegistryIntoDb(pool, broken, "registry:c.json")).rejects.toThrow(/integer/);
    expect(await rows("SELECT id FROM entities WHERE id = 'ghost'")).toEqual([]);
    expect(await rows("SELECT source FROM registry_sources WHERE source = 'registry:c.json'")).toEqual([]);
    expect((await pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")).rows[0].n).toBe(0);
  });
});

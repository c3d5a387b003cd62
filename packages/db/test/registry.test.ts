import { mppFingerprint, parseRegistry, type Registry, type RegistryEntity } from "@agent-ledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countTokens, createPgPool, loadMatchContext, loadRegistryIntoDb } from "../src/index.ts";
import { createTestDatabase } from "../src/testing.ts";

const A = "0x" + "a".repeat(40),
  B = "0x" + "b".repeat(40),
  C = "0x" + "c".repeat(40),
  ESCROW = "0x" + "e".repeat(40),
  USDC = "0x" + "1".repeat(40);
const TOPIC = "0x" + "f".repeat(64);

/** An entity without the registry v3 fields. */
const ent = (e: Omit<RegistryEntity, "walletSources" | "serverIds" | "categories" | "serviceUrl" | "source">): RegistryEntity => ({
  ...e,
  walletSources: {},
  serverIds: [],
  categories: [],
  serviceUrl: null,
  source: null,
});

function registry(overrides: Partial<Registry> = {}): Registry {
  return {
    registryVersion: 2,
    network: "devnet",
    explorerBaseUrl: "https://explore.one",
    chainId: null,
    escrows: [],
    clientLabels: [],
    entities: [
      ent({ id: "alice", label: "Alice", category: "agent", kind: "agent", active: true, trackFees: true, wallets: [A] }),
      ent({ id: "shop-mpp", label: "Shop", category: "commerce", kind: "service", active: true, trackFees: false, wallets: [B] }),
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
    expect(result).toEqual({
      entities: 2,
      wallets: 2,
      addressLabels: 1,
      fingerprintLabels: 1,
      settlementContracts: 1,
      tokens: 1,
      serverIds: 0,
      escrows: 0,
      clientLabels: 0,
      deactivated: [],
    });
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
    const result = await loadRegistryIntoDb(
      pool,
      registry({
        entities: [ent({ id: "alice", label: "Alice v2", category: "agent", kind: "agent", active: true, trackFees: false, wallets: [A, C] })],
        addressLabels: [{ address: C, label: "Counterparty v2", category: "shop" }],
        settlementContracts: [{ address: ESCROW, label: "Escrow", event: null }],
      }),
      "registry:a.json",
    );
    expect(result.deactivated).toEqual(["shop-mpp"]);
    expect(await rows("SELECT id, label, active, track_fees FROM entities ORDER BY id")).toEqual([
      { id: "alice", label: "Alice v2", active: true, track_fees: false },
      { id: "cli-bot", label: "CLI bot", active: true, track_fees: false },
      { id: "shop-mpp", label: "Shop", active: false, track_fees: false },
    ]);
    const [label] = await rows("SELECT label, category, updated_at > '2020-01-02' AS moved FROM address_labels");
    expect(label).toEqual({ label: "Counterparty v2", category: "shop", moved: true });
    // a contract without a declared event falls back to the defaults
    expect(await rows("SELECT event_topic0, provider_topic, event_verified FROM settlement_contracts")).toEqual([
      { event_topic0: null, provider_topic: 2, event_verified: false },
    ]);

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
      entities: [ent({ id: "ghost", label: "Ghost", category: "agent", kind: "agent", active: true, trackFees: false, wallets: ["0x" + "9".repeat(40)] })],
      tokens: [{ address: "0x" + "2".repeat(40), symbol: "BAD", decimals: "six" as unknown as number, currency: "USD" }],
    });
    await expect(loadRegistryIntoDb(pool, broken, "registry:c.json")).rejects.toThrow(/integer/);
    expect(await rows("SELECT id FROM entities WHERE id = 'ghost'")).toEqual([]);
    expect(await rows("SELECT source FROM registry_sources WHERE source = 'registry:c.json'")).toEqual([]);
    expect(
      (await pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")).rows[0].n,
    ).toBe(0);
  });
});

describe("registry v3: server ids, escrows and client labels (pg)", () => {
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
  const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe",
    LEGACY = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
  const PRECOMPILE = "0x4d50500000000000000000000000000000000000",
    USDC = "0x20c000000000000000000000b9537d11c60e8b50";
  const FAL = mppFingerprint("fal.mpp.tempo.xyz"),
    ALCHEMY_HOST = mppFingerprint("mpp.alchemy.com"),
    ALCHEMY_REALM = mppFingerprint("alchemy.com");
  const CLIENT = mppFingerprint("demo-agent-alpha");
  const file = (over: Record<string, unknown> = {}) =>
    parseRegistry({
      registry_version: 3,
      network: "tempo-mainnet",
      chain_id: 4217,
      tokens: [{ address: USDC, symbol: "USDC.e", decimals: 6, currency: "USD" }],
      entities: [
        { id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [{ address: GATEWAY, source: "two public sources" }] },
        {
          id: "fal-mpp",
          label: "fal.ai",
          category: "service",
          wallets: [],
          categories: ["ai", "media"],
          service_url: "https://fal.mpp.tempo.xyz",
          source: "tempoxyz/mpp schemas/services.ts@2f8740e5",
          server_ids: [{ fingerprint: FAL, from: "host", value: "fal.mpp.tempo.xyz" }],
        },
        {
          id: "alchemy-mpp",
          label: "Alchemy",
          category: "service",
          server_ids: [
            { fingerprint: ALCHEMY_HOST, from: "host", value: "mpp.alchemy.com" },
            { fingerprint: ALCHEMY_REALM, from: "realm", value: "alchemy.com", source: "discovered https://mpp.alchemy.com 2026-11-27T12:00:00.000Z" },
          ],
        },
      ],
      escrows: [
        { id: "mpp-session-escrow", address: LEGACY, abi: "legacy", label: "MPP session escrow", source: "wevm/mppx defaults.ts" },
        { id: "mpp-channel-reserve", address: PRECOMPILE, abi: "precompile", label: "TIP-1034 channel reserve", token: USDC },
      ],
      client_labels: [{ fingerprint: CLIENT, label: "Demo agent Alpha", source: "devnet" }],
      ...over,
    });

  it("writes server ids, escrows (and their escrow entities), client labels and the facts' sources; loading again changes nothing", async () => {
    const result = await loadRegistryIntoDb(pool, file(), "registry:mainnet.json");
    expect(result).toMatchObject({ entities: 5, wallets: 3, serverIds: 3, escrows: 2, clientLabels: 1, deactivated: [] });
    const snapshot = async () => [
      await rows("SELECT id, kind, category, categories, service_url, fact_source FROM entities ORDER BY id"),
      await rows("SELECT address, entity_id, fact_source FROM entity_wallets ORDER BY address"),
      await rows("SELECT fingerprint, entity_id, source, value, fact_source, registry_source FROM server_ids ORDER BY value"),
      await rows("SELECT address, entity_id, abi, label, token_address, fact_source, source FROM escrows ORDER BY address"),
      await rows("SELECT fingerprint, label, fact_source, source FROM client_labels"),
    ];
    const first = await snapshot();
    expect(first[0]).toEqual([
      { id: "alchemy-mpp", kind: "service", category: "service", categories: [], service_url: null, fact_source: null },
      {
        id: "fal-mpp",
        kind: "service",
        category: "service",
        categories: ["ai", "media"],
        service_url: "https://fal.mpp.tempo.xyz",
        fact_source: "tempoxyz/mpp schemas/services.ts@2f8740e5",
      },
      { id: "mpp-channel-reserve", kind: "escrow", category: "escrow", categories: [], service_url: null, fact_source: null },
      { id: "mpp-session-escrow", kind: "escrow", category: "escrow", categories: [], service_url: null, fact_source: "wevm/mppx defaults.ts" },
      { id: "tempo-gateway-mpp", kind: "service", category: "gateway", categories: [], service_url: null, fact_source: null },
    ]);
    expect(first[1]).toEqual([
      { address: LEGACY, entity_id: "mpp-session-escrow", fact_source: "wevm/mppx defaults.ts" },
      { address: PRECOMPILE, entity_id: "mpp-channel-reserve", fact_source: null },
      { address: GATEWAY, entity_id: "tempo-gateway-mpp", fact_source: "two public sources" },
    ]);
    expect(first[2]).toEqual([
      {
        fingerprint: ALCHEMY_REALM,
        entity_id: "alchemy-mpp",
        source: "realm",
        value: "alchemy.com",
        fact_source: "discovered https://mpp.alchemy.com 2026-11-27T12:00:00.000Z",
        registry_source: "registry:mainnet.json",
      },
      { fingerprint: FAL, entity_id: "fal-mpp", source: "host", value: "fal.mpp.tempo.xyz", fact_source: null, registry_source: "registry:mainnet.json" },
      {
        fingerprint: ALCHEMY_HOST,
        entity_id: "alchemy-mpp",
        source: "host",
        value: "mpp.alchemy.com",
        fact_source: null,
        registry_source: "registry:mainnet.json",
      },
    ]);
    expect(first[3]).toEqual([
      {
        address: LEGACY,
        entity_id: "mpp-session-escrow",
        abi: "legacy",
        label: "MPP session escrow",
        token_address: null,
        fact_source: "wevm/mppx defaults.ts",
        source: "registry:mainnet.json",
      },
      {
        address: PRECOMPILE,
        entity_id: "mpp-channel-reserve",
        abi: "precompile",
        label: "TIP-1034 channel reserve",
        token_address: USDC,
        fact_source: null,
        source: "registry:mainnet.json",
      },
    ]);
    expect(first[4]).toEqual([{ fingerprint: CLIENT, label: "Demo agent Alpha", fact_source: "devnet", source: "registry:mainnet.json" }]);
    await loadRegistryIntoDb(pool, file(), "registry:mainnet.json");
    expect(await snapshot()).toEqual(first);
  });

  it("loadMatchContext: serverIds and escrows name one WatchedEntity per id, and each escrow's address is a wallet of its escrow entity", async () => {
    const context = await loadMatchContext(pool, "https://explore.tempo.xyz");
    expect([...(context.serverIds?.entries() ?? [])].sort()).toEqual(
      [
        [ALCHEMY_REALM, { entity: { id: "alchemy-mpp", label: "Alchemy", category: "service", trackFees: false }, source: "realm" }],
        [FAL, { entity: { id: "fal-mpp", label: "fal.ai", category: "service", trackFees: false }, source: "host" }],
        [ALCHEMY_HOST, { entity: { id: "alchemy-mpp", label: "Alchemy", category: "service", trackFees: false }, source: "host" }],
      ].sort(),
    );
    expect(context.serverIds?.get(ALCHEMY_REALM)?.entity).toBe(context.serverIds?.get(ALCHEMY_HOST)?.entity);
    const legacy = context.escrows?.get(LEGACY);
    expect(legacy).toEqual({ abi: "legacy", entity: { id: "mpp-session-escrow", label: "MPP session escrow", category: "escrow", trackFees: false } });
    expect(context.escrows?.get(PRECOMPILE)?.abi).toBe("precompile");
    expect(context.wallets.get(LEGACY)).toBe(legacy!.entity);
    expect(context.wallets.get(PRECOMPILE)).toBe(context.escrows?.get(PRECOMPILE)?.entity);
    expect(context.wallets.get(GATEWAY)?.id).toBe("tempo-gateway-mpp");
    expect([...context.wallets.keys()].sort()).toEqual([LEGACY, PRECOMPILE, GATEWAY].sort());
  });

  it("a server id, escrow or client label the file no longer declares is deleted; an inactive entity's server ids and escrows are not matched", async () => {
    const next = file({
      entities: [
        { id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [GATEWAY] },
        { id: "fal-mpp", label: "fal.ai", category: "service", active: false, server_ids: [{ fingerprint: FAL, from: "host", value: "fal.mpp.tempo.xyz" }] },
      ],
      escrows: [{ id: "mpp-session-escrow", address: LEGACY, abi: "legacy", label: "MPP session escrow" }],
      client_labels: [],
    });
    const result = await loadRegistryIntoDb(pool, next, "registry:mainnet.json");
    expect(result.deactivated.sort()).toEqual(["alchemy-mpp", "mpp-channel-reserve"]);
    expect(await rows("SELECT fingerprint FROM server_ids")).toEqual([{ fingerprint: FAL }]);
    expect(await rows("SELECT address FROM escrows")).toEqual([{ address: LEGACY }]);
    expect(await rows("SELECT fingerprint FROM client_labels")).toEqual([]);
    // the wallet's fact source follows the file (now given as a plain address)
    expect(await rows(`SELECT fact_source FROM entity_wallets WHERE address = '${GATEWAY}'`)).toEqual([{ fact_source: null }]);
    const context = await loadMatchContext(pool, "https://explore.tempo.xyz");
    expect(context.serverIds?.size).toBe(0); // fal-mpp is inactive
    expect([...(context.escrows?.keys() ?? [])]).toEqual([LEGACY]);
    expect(context.wallets.has(PRECOMPILE)).toBe(false); // its escrow entity was deactivated
  });

  it("another file's server ids and escrows are left alone", async () => {
    await loadRegistryIntoDb(
      pool,
      parseRegistry({
        registry_version: 3,
        network: "devnet",
        entities: [
          {
            id: "probe-mpp",
            label: "Probe",
            category: "service",
            server_ids: [{ fingerprint: mppFingerprint("ledger-probe.local"), from: "realm", value: "ledger-probe.local" }],
          },
        ],
      }),
      "registry:demo.json",
    );
    await loadRegistryIntoDb(pool, file({ escrows: [], client_labels: [] }), "registry:mainnet.json");
    expect((await rows("SELECT value, registry_source FROM server_ids ORDER BY value")).map((r) => r.value)).toEqual([
      "alchemy.com",
      "fal.mpp.tempo.xyz",
      "ledger-probe.local",
      "mpp.alchemy.com",
    ]);
    expect(await rows("SELECT address FROM escrows")).toEqual([]);
  });
});
